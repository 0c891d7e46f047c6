import Hummingbird

/// Answers 404 to a path with a control character once decoded (`%00`, `%0A`…), before it reaches
/// the static files or a route: the file system would cut a path at its NUL and serve what comes
/// before it (`/favicon.svg%00.html` as HTML, `//%00evil.example` redirected to another host).
/// No page or file of ours has one in its name.
struct ControlCharacterGuard<Context: RequestContext>: RouterMiddleware {
  @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
    let path = request.uri.path
    if path.utf8.contains(UInt8(ascii: "%")), let decoded = path.removingPercentEncoding,
      decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    {
      throw HTTPError(.notFound)
    }
    return try await next(request, context)
  }
}
