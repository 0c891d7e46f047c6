import Hummingbird
import PointApp

/// /register and /login (each a page whose form posts to it), /account, POST /account/password,
/// POST /logout and POST /logout/everywhere.
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

    router.form("/logout") { request, _ in
      try await loop.form(request) { _ in .logoutButtonTapped }
    }

    router.form("/logout/everywhere") { request, _ in
      try await loop.form(request) { _ in .logoutEverywhereButtonTapped }
    }
  }
}
