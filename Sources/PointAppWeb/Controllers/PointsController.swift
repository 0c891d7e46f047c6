import Hummingbird
import PointApp

/// /points, /points/history, /exchange, /exchange/{id} (the confirmation) and POST /exchange/{id}.
struct PointsController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/points") { request, _ in
      try await loop.page(request, .dashboard(.pageRequested))
    }

    router.page("/points/history") { request, _ in
      let number = try request.uri.queryParameters["page"].map { raw throws(HTTPError) in
        guard let number = Int(raw) else { throw HTTPError(.badRequest) }
        return number
      } ?? 1
      return try await loop.page(request, .history(.pageRequested(number)))
    }

    router.page("/exchange") { request, _ in
      try await loop.page(request, .exchange(.pageRequested))
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
}
