import Hummingbird
import PointApp

/// /points, /points/history?page=, /exchange, /exchange/{id} (the confirmation) and POST /exchange/{id}
/// (the request), /exchange/history?page= and /exchange/history/{number}.
struct PointsController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/points") { request, _ in
      try await loop.page(request, .dashboard(.pageRequested))
    }

    router.page("/points/history") { request, _ in
      try await loop.page(request, .history(.pageRequested(try pageNumber(request))))
    }

    router.page("/exchange") { request, _ in
      try await loop.page(request, .exchange(.pageRequested))
    }

    router.page("/exchange/history") { request, _ in
      try await loop.page(request, .exchange(.historyRequested(try pageNumber(request))))
    }

    router.page("/exchange/history/:number") { request, context in
      // Any number is looked up among the user's own requests: another's is a 404 like one never made.
      guard let number = Int(try context.parameters.require("number")) else { throw HTTPError(.notFound) }
      return try await loop.page(request, .exchange(.requestOpened(number)))
    }

    router.page("/exchange/:id") { request, context in
      try await loop.page(request, .exchange(.optionSelected(ExchangeOption.ID(try context.parameters.require("id")))))
    } form: { request, context in
      let id = ExchangeOption.ID(try context.parameters.require("id"))
      return try await loop.form(request) { form in
        guard let ledgerCount = Int(try form.value("ledger")) else { throw HTTPError(.badRequest) }
        return .exchange(.exchangeButtonTapped(id, ledgerCount: ledgerCount, password: try form.optionalValue("password").map { Secret($0) }))
      }
    }
  }

  /// `?page=`: 1 when absent, a 400 when not a number.
  private func pageNumber(_ request: Request) throws(HTTPError) -> Int {
    try request.uri.queryParameters["page"].map { raw throws(HTTPError) in
      guard let number = Int(raw) else { throw HTTPError(.badRequest) }
      return number
    } ?? 1
  }
}
