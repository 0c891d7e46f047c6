import Hummingbird

extension RouterMethods {
  /// A page, read with GET (and HEAD, answered as GET). Any other method on its path is a 405 that
  /// names the ones it takes. A path is a page, a form, or a page whose form posts to it.
  @discardableResult
  func page(
    _ path: RouterPath, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator
  ) -> Self {
    get(path, use: handler)
    return refuse([.post, .put, .patch, .delete], on: path, allow: "GET, HEAD")
  }

  /// A form's target, sent with POST. Any other method on its path is a 405 that names POST.
  @discardableResult
  func form(
    _ path: RouterPath, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator
  ) -> Self {
    post(path, use: handler)
    return refuse([.get, .put, .patch, .delete], on: path, allow: "POST")
  }

  /// A page with a form that posts to its own URL (a confirmation and its button).
  @discardableResult
  func page(
    _ path: RouterPath,
    use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator,
    form formHandler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator
  ) -> Self {
    get(path, use: handler)
    post(path, use: formHandler)
    return refuse([.put, .patch, .delete], on: path, allow: "GET, HEAD, POST")
  }

  private func refuse(_ methods: [HTTPRequest.Method], on path: RouterPath, allow: String) -> Self {
    for method in methods {
      on(path, method: method) { _, _ -> Response in
        throw HTTPError(.methodNotAllowed, headers: [.allow: allow])
      }
    }
    return self
  }
}
