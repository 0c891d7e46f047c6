import Hummingbird
import Logging
import Metrics

/// One log line per request, once it is answered: the request id (the logger's `hb.request.id`),
/// method, route pattern (`/surveys/{id}`, never the ids, query or cookies a user sent; `NotFound`
/// when no route matched), status
/// and duration. 5xx lines are errors, and counted in `serverErrors`.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
  let serverErrors: Counter

  @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
    let start = ContinuousClock.now
    do {
      let response = try await next(request, context)
      log(request, context, response.status, since: start)
      return response
    } catch {
      log(request, context, (error as? any HTTPResponseError)?.status ?? .internalServerError, since: start)
      throw error
    }
  }

  private func log(_ request: Request, _ context: Context, _ status: HTTPResponse.Status, since start: ContinuousClock.Instant) {
    let elapsed = (ContinuousClock.now - start).components
    let milliseconds = Double(elapsed.seconds) * 1_000 + Double(elapsed.attoseconds) / 1e15
    if status.code >= 500 { serverErrors.increment() }
    context.logger.log(
      level: status.code >= 500 ? .error : .info, "request",
      metadata: [
        "method": "\(request.method.rawValue)",
        "route": "\(context.endpointPath ?? "NotFound")",
        "status": "\(status.code)",
        "duration_ms": "\((milliseconds * 100).rounded() / 100)",
      ]
    )
  }
}
