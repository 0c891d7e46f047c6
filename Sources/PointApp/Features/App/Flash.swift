/// A one-shot message shown on the next page a user sees: the web's alert.
public struct Flash: Codable, Equatable, Sendable {
  public enum Kind: String, Codable, Sendable {
    case success, error
  }

  public let kind: Kind
  public let message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// What a login says: what moved into the account from the browser's guest.
  public static func loggedIn(_ report: MergeReport) -> Flash {
    var message = "ログインしました。"
    if report.surveysMoved > 0 || report.pointsMoved > .zero {
      message += "ゲストで獲得した\(report.pointsMoved)（アンケート\(report.surveysMoved)件）を引き継ぎました。"
    }
    if !report.duplicateSurveys.isEmpty || !report.duplicateMissions.isEmpty {
      message += "両方で済ませていたアンケート・ミッションのポイントは1回分だけです。"
    }
    return Flash(.success, message)
  }
}
