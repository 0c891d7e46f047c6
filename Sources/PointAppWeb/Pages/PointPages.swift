import Foundation
import PointApp

extension Pages {
  public static func points(_ state: AppFeature.State) -> [String: Any] {
    let titles = state.surveyTitles
    let dashboard = state.dashboard
    var body: [String: Any] = [
      "total": "\(dashboard.balance)",
      "yen": PointAmount.grouped(dashboard.balance.yen),
      "earned": "\(state.progress.ledger.totalEarned)",
      "recent": dashboard.recentTransactions.map { transaction($0, titles: titles) },
      "hasRecent": !dashboard.recentTransactions.isEmpty,
      "hasProfile": state.progress.profile != nil, "profileBonus": "\(Profile.bonus)",
      "rank": rank(dashboard.page.rank), "nextMonthRank": rank(dashboard.page.nextMonthRank),
      "earnedForNextMonth": "\(dashboard.page.earnedForNextMonth)",
      "expiring": dashboard.page.expiring.map { ["label": $0.endOf.label, "amount": "\($0.amount)"] },
      "hasExpiring": !dashboard.page.expiring.isEmpty,
      "ranks": MemberRank.allCases.map { rank($0) },
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
    let exchange = state.exchange
    let balance = exchange.progress.ledger.balance
    return layout(state, body: [
      "total": "\(balance)",
      "options": ExchangeOption.all.map { option in
        [
          "title": option.title, "cost": "\(option.cost)", "href": "/exchange/\(option.id.rawValue)",
          "affordable": exchange.canAfford(option),
          "missing": option.cost.subtracting(balance).map { "\($0)" } ?? "",
        ] as [String: Any]
      },
    ])
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
