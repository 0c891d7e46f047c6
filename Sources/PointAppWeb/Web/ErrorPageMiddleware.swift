import Hummingbird
import Logging

/// Turns every error into a Japanese page in the layout: the status a thrown `HTTPError` carries,
/// 500 for anything else, which is logged and never shown.
struct ErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
  let renderer: PageRenderer

  @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as HTTPResponseError {
      if error.status.code >= 500 {
        context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
      }
      var response = page(for: error.status, request: request, context: context)
      // What the error says about itself, such as a 405's Allow; the page is always HTML.
      for field in (error as? HTTPError)?.headers ?? [:] where field.name != .contentType {
        response.headers.append(field)
      }
      return response
    } catch let error as DatabaseUnavailable {
      // Not a bug: the database is down or restarting. The browser may try again shortly.
      context.logger.warning("database unavailable", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
      var response = page(for: .serviceUnavailable, request: request, context: context)
      response.headers[.retryAfter] = "5"
      return response
    } catch {
      context.logger.error("request failed", metadata: ["error": "\(Database.loggable(error))", "path": "\(request.uri.path)"])
      return page(for: .internalServerError, request: request, context: context)
    }
  }

  private func page(for status: HTTPResponse.Status, request: Request, context: Context) -> Response {
    .html(renderer.render("error", Pages.error(status)), status: status)
  }
}
