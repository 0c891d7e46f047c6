import Hummingbird

/// Answers HEAD as the GET of the same URL would, headers only. It wraps the whole router: routes
/// are matched by method before any router middleware runs, and ours are GET routes.
struct HeadAsGetResponder<Responder: HTTPResponder>: HTTPResponder {
  let responder: Responder

  func respond(to request: Request, context: Responder.Context) async throws -> Response {
    guard request.method == .head else { return try await responder.respond(to: request, context: context) }
    var head = request.head
    head.method = .get
    var response = try await responder.respond(to: Request(head: head, body: request.body), context: context)
    response.body = ResponseBody()
    return response
  }
}
