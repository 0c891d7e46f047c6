import Hummingbird
import PointApp

/// The console, every URL under /admin, behind `OperatorGate`: /admin, /admin/login (a page whose
/// form posts to it), /admin/surveys, POST /admin/surveys/{id}/close, /admin/audit?from=, POST
/// /admin/logout.
struct AdminController {
  let loop: OperatorLoop

  func addRoutes(to router: Router<AppRequestContext>) {
    let admin = router.group("/admin").add(middleware: OperatorGate(sessions: loop.sessions) { [date = loop.dependencies.date] in date.now })

    admin.page("") { request, context in
      try await loop.page(request, context, .homeRequested)
    }

    admin.page("login") { request, context in
      try await loop.page(request, context, .loginPageRequested(refused: request.uri.queryParameters["refused"] == "1"))
    } form: { request, context in
      try await loop.form(request, context) { form in
        .loginSubmitted(email: try form.value("email"), password: Secret(try form.value("password")))
      }
    }

    admin.page("surveys") { request, context in
      try await loop.page(request, context, .surveysPageRequested)
    }

    admin.form("surveys/:id/close") { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.form(request, context) { _ in .closeSurveyButtonTapped(id) }
    }

    admin.page("audit") { request, context in
      try await loop.page(request, context, .auditPageRequested(cursor: request.uri.queryParameters["from"].map(String.init)))
    }

    admin.form("logout") { request, context in
      try await loop.form(request, context) { _ in .logoutButtonTapped }
    }
  }
}
