import Hummingbird
import PointApp

/// /profile: the form, and where it posts.
struct ProfileController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/profile") { request, _ in
      try await loop.page(request, .profile(.pageRequested))
    } form: { request, _ in
      try await loop.form(request) { form in
        .profile(.submitted(ProfileDraft(
          birthYear: try form.optionalValue("birthYear") ?? "", gender: try form.optionalValue("gender") ?? "",
          prefecture: try form.optionalValue("prefecture") ?? "", occupation: try form.optionalValue("occupation") ?? ""
        )))
      }
    }
  }
}
