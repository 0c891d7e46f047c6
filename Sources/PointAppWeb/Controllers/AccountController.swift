import Hummingbird
import PointApp

/// /register and /login (each a page whose form posts to it), /account, POST /account/password,
/// /account/verify (a verification link's page, whose button posts to it), POST
/// /account/verification (another link), /password/forgot and /password/reset (a reset link's
/// page), /account/notifications (the mail the member hears), /account/data.json (what we hold),
/// POST /account/email and /account/email/confirm (moving to another address), /account/withdraw
/// (退会) and /account/withdrawn, /unsubscribe (a notice's link: its
/// page, and its one-click POST), POST /logout and POST /logout/everywhere.
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

    router.page("/account/notifications") { request, _ in
      try await loop.page(request, .notificationSettingsPageRequested)
    } form: { request, _ in
      try await loop.form(request) { form in
        var lists = Set<NoticeList>()
        for field in form.fields where field.name == "lists" {
          guard let list = NoticeList(rawValue: field.value) else { throw HTTPError(.badRequest, message: "no such list") }
          lists.insert(list)
        }
        return .notifications(.settingsSubmitted(lists))
      }
    }

    router.form("/account/email") { request, context in
      try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
        .addressChange(.submitted(newEmail: try form.value("email"), password: Secret(try form.value("password"))))
      }
    }

    router.page("/account/email/confirm") { request, _ in
      try await loop.page(request, .addressChangePageRequested(token: Secret(request.uri.queryParameters.get("token") ?? "")))
    } form: { request, context in
      try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
        .addressChange(.confirmTapped(token: Secret(try form.value("token"))))
      }
    }

    router.page("/account/withdraw") { request, _ in
      try await loop.page(request, .withdrawPageRequested)
    } form: { request, context in
      try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
        .withdrawal(.submitted(password: Secret(try form.value("password"))))
      }
    }

    router.page("/account/data.json") { request, _ in
      try await loop.memberData(request)
    }

    router.page("/account/withdrawn") { request, _ in
      try await loop.page(request, .withdrawnPageRequested)
    }

    // A notice's link, which works without signing in: its page asks, its POST (the page's
    // button, or the mail program's one click of RFC 8058, which sends no cookie) stops the list.
    router.page("/unsubscribe") { request, _ in
      let (_, list) = try unsubscription(request)
      return Response.html(loop.renderer.render("unsubscribe", ["list": list.title, "action": request.uri.description]))
    } form: { request, _ in
      let (user, list) = try unsubscription(request)
      guard let state = try await loop.send(.notifications(.unsubscribed(list)), to: user), !state.progress.notices.receives(list) else {
        throw HTTPError(.notFound)
      }
      return Response.html(loop.renderer.render("unsubscribe", ["list": list.title, "done": true]))
    }

    router.page("/account/verify") { request, _ in
      try await loop.page(request, .verificationPageRequested(token: Secret(request.uri.queryParameters.get("token") ?? "")))
    } form: { request, _ in
      try await loop.form(request) { form in .addressVerification(.confirmTapped(token: Secret(try form.value("token")))) }
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
      try await loop.page(request, .passwordResetPageRequested(token: Secret(request.uri.queryParameters.get("token") ?? "")))
    } form: { request, context in
      try await loop.form(request, client: context.client(of: request, trustedProxies: loop.trustedProxies)) { form in
        .passwordReset(.resetSubmitted(token: Secret(try form.value("token")), password: Secret(try form.value("password"))))
      }
    }

    router.form("/logout") { request, _ in
      try await loop.form(request) { _ in .logoutButtonTapped }
    }

    router.form("/logout/everywhere") { request, _ in
      try await loop.form(request) { _ in .logoutEverywhereButtonTapped }
    }
  }

  /// The user and list of an unsubscribe link; 404 for a link the server did not make.
  private func unsubscription(_ request: Request) throws -> (UserID, NoticeList) {
    let query = request.uri.queryParameters
    guard let user = query.get("token").flatMap(loop.sessions.unsubscriber), let list = query.get("list").flatMap(NoticeList.init(rawValue:)) else {
      throw HTTPError(.notFound)
    }
    return (user, list)
  }
}
