import Foundation
import PointApp

extension Pages {
  /// What every console page shows around its body: who is signed in.
  static func adminLayout(_ state: OperatorFeature.State, csrf: String, body: [String: Any]) -> [String: Any] {
    var context = body
    context["isConsole"] = true
    if let email = state.signedIn {
      context["operator"] = email
      context["csrf"] = csrf
    }
    return context
  }

  /// The console's sign-in form; after a refused sign-in, why.
  static func adminLogin(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    var body: [String: Any] = ["csrf": csrf]
    if let refusal = state.refusal { body["refusal"] = refusal.message }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// Every survey with its state now, and a button to close an open one.
  static func adminSurveys(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    let now = state.now ?? .distantPast
    let rows: [[String: Any]] = state.surveys.map { survey in
      let status = survey.status(at: now)
      var row: [String: Any] = [
        "id": survey.id.rawValue, "title": survey.title, "category": survey.category.title,
        "status": status.title, "statusClass": status.rawValue,
        "reward": "\(survey.reward)", "published": date(survey.publishedAt),
        "deadline": survey.expiresAt.map(date) ?? "なし",
        "closable": status == .open || status == .scheduled,
      ]
      if let quota = survey.quota { row["quota"] = "\(survey.placesTaken + quota.collected) / \(quota.target)" }
      return row
    }
    return adminLayout(state, csrf: csrf, body: ["surveys": rows, "count": rows.count])
  }

  /// A page of the audit log, newest first.
  static func adminAudit(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    let entries: [[String: Any]] = state.auditPage.entries.map { entry in
      var row: [String: Any] = ["at": date(entry.at), "operator": entry.operatorEmail, "action": entry.action.title]
      // Only what the entry has: a sign-in has no subject, no before and after.
      if !entry.subject.isEmpty { row["subject"] = entry.subject }
      if let before = entry.before { row["before"] = before }
      if let after = entry.after { row["after"] = after }
      return row
    }
    var body: [String: Any] = ["entries": entries, "isEmpty": entries.isEmpty, "isFirst": state.auditCursor == nil]
    if let next = state.auditPage.next { body["next"] = next }
    return adminLayout(state, csrf: csrf, body: body)
  }
}
