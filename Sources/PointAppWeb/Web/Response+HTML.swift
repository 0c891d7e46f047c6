import Hummingbird

extension Response {
  /// An HTML page, never cached: pages show a user's own balance.
  static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status,
      headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: html))
    )
  }
}
