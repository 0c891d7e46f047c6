import Hummingbird
import PointApp

/// /missions and POST /missions/{id}/claim.
struct MissionsController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/missions") { request, _ in
      try await loop.page(request, .missions(.pageRequested))
    }

    router.form("/missions/:id/claim") { request, context in
      // A mission is named by its kind: a name that is none is no page.
      guard let kind = DailyMission.Kind(rawValue: try context.parameters.require("id")) else {
        throw HTTPError(.notFound)
      }
      return try await loop.form(request) { _ in .missions(.claimButtonTapped(kind)) }
    }
  }
}
