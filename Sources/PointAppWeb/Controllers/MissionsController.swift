import Hummingbird
import PointApp

/// /missions and POST /missions/{id}/claim.
struct MissionsController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/missions") { request, context in
      try await loop.page(request, context: context) { user in
        try await user.send(.missions(.pageRequested))
        return .page("missions", Pages.missionsPage(user.state, csrf: user.csrf))
      }
    }

    router.form("/missions/:id/claim") { request, context in
      guard let kind = DailyMission.Kind(rawValue: try context.parameters.require("id")) else {
        throw HTTPError(.notFound)
      }
      return try await loop.form(request, context: context) { _, user in
        try await user.send(.missions(.claimButtonTapped(kind)))
        return .redirect("/missions")
      }
    }
  }
}
