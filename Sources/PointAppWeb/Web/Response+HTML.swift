import Hummingbird

extension Response {
  /// An HTML page, never cached: pages show a user's own balance.
  static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
    .html(ByteBuffer(string: html), status: status)
  }

  /// An HTML page from its bytes.
  static func html(_ html: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status,
      headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: html)
    )
  }
}

extension Response {
  /// A JSON file to download as `filename`, never cached.
  static func json(_ data: [UInt8], filename: String) -> Response {
    Response(
      status: .ok,
      headers: [
        .contentType: "application/json; charset=utf-8", .cacheControl: "no-store",
        .contentDisposition: "attachment; filename=\"\(filename)\"",
      ],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
    )
  }
}
