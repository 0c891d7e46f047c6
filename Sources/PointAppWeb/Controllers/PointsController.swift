import Hummingbird
import PointApp

/// /points, /points/history, /exchange and POST /exchange/{id}.
struct PointsController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/points") { request, context in
      try await loop.page(request, context: context) { user in
        try await user.send(.dashboard(.pageRequested))
        return .page("points", Pages.points(user.state, titles: await user.surveyTitles()))
      }
    }

    router.page("/points/history") { request, context in
      let number = try request.uri.queryParameters["page"].map { raw throws(HTTPError) in
        guard let number = Int(raw) else { throw HTTPError(.badRequest) }
        return number
      } ?? 1
      return try await loop.page(request, context: context) { user in
        try await user.send(.history(.pageRequested(number)))
        if user.state.historyPage.archiveFailed { throw HTTPError(.serviceUnavailable) }
        return .page("history", Pages.history(user.state, titles: await user.surveyTitles()))
      }
    }

    router.page("/exchange") { request, context in
      try await loop.page(request, context: context) { user in
        try await user.send(.exchange(.pageRequested))
        return .page("exchange", Pages.exchange(user.state, csrf: user.csrf))
      }
    }

    router.form("/exchange/:id") { request, context in
      let id = ExchangeOption.ID(try context.parameters.require("id"))
      guard ExchangeOption.all.contains(where: { $0.id == id }) else { throw HTTPError(.notFound) }
      return try await loop.form(request, context: context) { _, user in
        try await user.send(.exchange(.exchangeButtonTapped(id)))
        return .redirect("/exchange")
      }
    }
  }
}
