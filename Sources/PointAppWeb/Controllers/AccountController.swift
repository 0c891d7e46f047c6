import Hummingbird
import PointApp

/// /register and /login (each a page whose form posts to it), /account, POST /account/password,
/// /account/verify (a verification link's page, whose button posts to it), POST
/// /account/verification (another link), /password/forgot and /password/reset (a reset link's
/// page), POST /logout and POST /logout/everywhere.
struct AccountController {
  let loop: RequestLoop

  func addRoutes(to router: Router<AppRequestContext>) {
    for (path, kind) in [("/register", SignInForm.Kind.register), ("/login", .logIn)] {
      router.page(RouterPath(path)) { request, _ in
        try await loop.page(request, .signInForm(.pageRequested(kind)))
      } form: { request, context in
        try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
          .signInForm(.submitted(kind, email: try form.value("email"), password: Secret(try form.value("password"))))
        }
      }
    }

    router.page("/account") { request, _ in
      try await loop.page(request, .accountPageRequested)
    }

    router.form("/account/password") { request, context in
      try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
        .passwordChange(.submitted(current: Secret(try form.value("current")), new: Secret(try form.value("new"))))
      }
    }

    router.page("/account/verify") { request, _ in
      try await loop.page(request, .verificationPageRequested(token: request.uri.queryParameters.get("token") ?? ""))
    } form: { request, _ in
      try await loop.form(request) { form in .addressVerification(.confirmTapped(token: try form.value("token"))) }
    }

    router.form("/account/verification") { request, _ in
      try await loop.form(request) { _ in .addressVerification(.resendTapped) }
    }

    router.page("/password/forgot") { request, _ in
      try await loop.page(request, .passwordForgotPageRequested)
    } form: { request, context in
      try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
        .passwordReset(.requestSubmitted(email: try form.value("email")))
      }
    }

    router.page("/password/reset") { request, _ in
      try await loop.page(request, .passwordResetPageRequested(token: request.uri.queryParameters.get("token") ?? ""))
    } form: { request, context in
      try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
        .passwordReset(.resetSubmitted(token: try form.value("token"), password: Secret(try form.value("password"))))
      }
    }

    router.form("/logout") { request, _ in
      try await loop.form(request) { _ in .logoutButtonTapped }
    }

    router.form("/logout/everywhere") { request, _ in
      try await loop.form(request) { _ in .logoutEverywhereButtonTapped }
    }
  }
}
