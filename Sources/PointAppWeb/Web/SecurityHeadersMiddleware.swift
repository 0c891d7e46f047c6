import HTTPTypes
import Hummingbird

/// Sets the security headers on every response, pages, error pages, redirects and static files
/// alike: a Content-Security-Policy that allows only our own stylesheet and forms (no inline style
/// or script, no framing, no plugins, no `<base>`), no MIME sniffing, no referrer sent to other
/// sites, and, behind HTTPS, Strict-Transport-Security.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
  static var contentSecurityPolicy: String {
    "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
      + "form-action 'self'; base-uri 'none'; object-src 'none'"
  }

  /// Only when the site is served over HTTPS (secure cookies on): a browser that saw it would
  /// refuse plain HTTP to the host for a year.
  let strictTransportSecurity: Bool

  @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
    var response = try await next(request, context)
    response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
    response.headers[.xContentTypeOptions] = "nosniff"
    response.headers[.referrerPolicy] = "same-origin"
    response.headers[.xFrameOptions] = "DENY"
    if strictTransportSecurity {
      response.headers[.strictTransportSecurity] = "max-age=31536000"
    }
    return response
  }
}

extension HTTPField.Name {
  static let referrerPolicy = Self("Referrer-Policy")!
  static let xFrameOptions = Self("X-Frame-Options")!
}
