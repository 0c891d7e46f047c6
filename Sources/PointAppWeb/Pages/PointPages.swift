import Foundation
import PointApp

extension Pages {
  public static func points(_ state: AppFeature.State, fragments: PageRenderer) -> [String: Any] {
    let titles = state.surveyTitles
    let dashboard = state.dashboard
    var body: [String: Any] = [
      "total": "\(dashboard.balance)",
      "yen": PointAmount.grouped(dashboard.balance.yen),
      "earned": "\(state.progress.ledger.earnings)",
      "recent": dashboard.recentTransactions.map { transaction($0, titles: titles) },
      "hasRecent": !dashboard.recentTransactions.isEmpty,
      "hasProfile": state.progress.profile != nil, "profileBonus": "\(Profile.bonus)",
      "rank": rank(dashboard.page.rank), "nextMonthRank": rank(dashboard.page.nextMonthRank),
      "earnedForNextMonth": "\(dashboard.page.earnedForNextMonth)",
      "expiring": dashboard.page.expiring.map { ["label": $0.endOf.label, "amount": "\($0.amount)"] },
      "hasExpiring": !dashboard.page.expiring.isEmpty,
      "rankConditions": fragments.rankConditions,
    ]
    if let next = dashboard.page.nextGoal {
      body["nextRank"] = ["title": next.rank.title, "missing": "\(next.missing)"]
    }
    if let goal = dashboard.nextGoal {
      body["goal"] = [
        "title": goal.option.title, "missing": "\(goal.missing)",
        "percent": percent(dashboard.balance.value, of: goal.option.cost.value),
      ]
    }
    return layout(state, body: body)
  }

  /// Every rank with what it takes, for `rank-conditions`.
  static func rankConditions() -> [String: Any] {
    ["ranks": MemberRank.allCases.map { rank($0) }]
  }

  private static func rank(_ rank: MemberRank) -> [String: Any] {
    ["title": rank.title, "bonus": rank.bonusPercent, "threshold": "\(rank.threshold)", "key": "\(rank)"]
  }

  public static func history(_ state: AppFeature.State) -> [String: Any] {
    let titles = state.surveyTitles
    let page = state.history.page
    var body: [String: Any] = [
      "transactions": page.transactions.map { transaction($0, titles: titles) },
      "isEmpty": page.transactions.isEmpty,
      "number": page.number, "pageCount": page.pageCount,
    ]
    if page.hasPrevious { body["previous"] = "/points/history?page=\(page.number - 1)" }
    if page.hasNext { body["next"] = "/points/history?page=\(page.number + 1)" }
    return layout(state, body: body)
  }

  public static func exchange(_ state: AppFeature.State) -> [String: Any] {
    let page = state.exchange.page
    return layout(state, body: [
      "total": "\(page.balance)",
      "perDay": ExchangeLimits.perDay,
      "monthly": "\(ExchangeLimits.monthlyPoints)",
      "leftThisMonth": "\(page.leftThisMonth)",
      "requestedToday": page.requestedToday,
      "testCodes": page.testCodes,
      "options": ExchangeOption.all.map { option in
        var row: [String: Any] = [
          "title": option.title, "cost": "\(option.cost)", "fee": "\(option.fee)", "hasFee": option.fee > .zero,
          "total": "\(option.total)", "delivers": option.delivers, "href": "/exchange/\(option.id.rawValue)",
        ]
        switch page.refusals[option.id] {
        case nil: row["available"] = true
        case .insufficientBalance?: row["refusal"] = "あと\(option.total.subtracting(page.balance) ?? .zero)で交換できます"
        case .dailyLimit?: row["refusal"] = "本日は申請済みです"
        case .optionUnavailable?: row["refusal"] = "ただいまお取り扱いを休止しています"
        case let refusal?: row["refusal"] = refusal.message
        }
        return row
      },
    ])
  }

  public static func exchangeHistory(_ state: AppFeature.State) -> [String: Any] {
    let page = state.exchange.history
    let requests = page.requests.map { exchangeRequest($0, revealing: false) }
    var body: [String: Any] = [
      "requests": requests, "isEmpty": requests.isEmpty, "number": page.number, "pageCount": page.pageCount,
      "paged": page.pageCount > 1,
    ]
    if page.hasPrevious { body["previous"] = "/exchange/history?page=\(page.number - 1)" }
    if page.hasNext { body["next"] = "/exchange/history?page=\(page.number + 1)" }
    return layout(state, body: body)
  }

  public static func exchangeRequestPage(_ state: AppFeature.State, _ request: ExchangeRequest) -> [String: Any] {
    var body = exchangeRequest(request, revealing: true)
    body["testCodes"] = state.exchange.page.testCodes
    return layout(state, body: body)
  }

  /// A request as its pages show it: the code in full only on its own page (`revealing`).
  private static func exchangeRequest(_ request: ExchangeRequest, revealing: Bool) -> [String: Any] {
    let option = ExchangeOption(id: request.option)
    var row: [String: Any] = [
      "number": request.number, "title": option?.title ?? request.option.rawValue, "points": "\(request.points)",
      "requestedAt": date(request.requestedAt), "href": "/exchange/history/\(request.number)",
      "delivers": option?.delivers ?? "",
    ]
    switch request.status {
    case .pending:
      row["status"] = "申請中"
      row["statusKey"] = "pending"
      row["isPending"] = true
    case let .fulfilled(code, at):
      row["status"] = "交換完了"
      row["statusKey"] = "fulfilled"
      row["code"] = revealing ? code.value : code.masked
      row["endedAt"] = date(at)
    case let .failed(at, _):
      row["status"] = "失敗（返還済み）"
      row["statusKey"] = "failed"
      row["isFailed"] = true
      row["endedAt"] = date(at)
    }
    return row
  }

  public static func missionsPage(_ state: AppFeature.State, csrf: String) -> [String: Any] {
    let missions = state.missions
    let achievements: [[String: Any]] = Achievement.allCases.map { achievement in
      var row: [String: Any] = ["title": achievement.title, "detail": achievement.detail]
      if let date = missions.progress.achievements[achievement] { row["unlockedAt"] = day(date) }
      return row
    }
    return layout(state, body: [
      "csrf": csrf,
      "streak": missions.streakDays,
      "longest": missions.progress.streak.longest,
      "missions": self.missions(missions.missions),
      "achievements": achievements,
      "unlockedCount": missions.progress.achievements.count,
      "achievementCount": Achievement.allCases.count,
    ])
  }
}
