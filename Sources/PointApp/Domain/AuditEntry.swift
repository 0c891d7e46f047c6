import Foundation

/// One operator action as the audit log keeps it: who, what, when, the value before and after.
/// Entries are only ever added: no page or form changes or removes one, and the log's hash chain
/// shows a change made to its records by other means (`pointapp audit verify`).
public struct AuditEntry: Codable, Equatable, Sendable {
  public let at: Date
  /// The operator's address.
  public let operatorEmail: String
  public let action: Action
  /// What it was done to (a survey's id, a user's); empty for a sign-in.
  public let subject: String
  /// The value before and after, as an operator reads it (`nil`: none).
  public let before: String?
  public let after: String?

  public init(at: Date, operatorEmail: String, action: Action, subject: String = "", before: String? = nil, after: String? = nil) {
    self.at = at
    self.operatorEmail = operatorEmail
    self.action = action
    self.subject = subject
    self.before = before
    self.after = after
  }

  public enum Action: String, Codable, CaseIterable, Sendable {
    case operatorCreated, signedIn, signInFailed, signedOut, surveyClosed, draftCreated, surveyPublished, draftDiscarded, responsesExported
    // The support desk's: subject is the user's id.
    case userViewed, pointsAdjusted, answerApproved, answerConfirmed, exchangeRetried, exchangeEnded
    // The second factor and the operators (`/admin/operators`): subject is the operator's address.
    case secondFactorEnrolled, secondFactorGiven, operatorAdded, roleChanged, operatorDisabled, secondFactorReset
    // Four eyes on adjustments: subject is the user's id.
    case adjustmentRequested, adjustmentApproved, adjustmentRefused

    /// The name the audit page shows.
    public var title: String {
      switch self {
      case .operatorCreated: "運営者を作成"
      case .signedIn: "ログイン"
      case .signInFailed: "ログイン失敗"
      case .signedOut: "ログアウト"
      case .surveyClosed: "アンケートを締め切り"
      case .draftCreated: "下書きを作成"
      case .surveyPublished: "アンケートを公開"
      case .draftDiscarded: "下書きを破棄"
      case .responsesExported: "回答をダウンロード"
      case .userViewed: "ユーザーを閲覧"
      case .pointsAdjusted: "ポイントを調整"
      case .answerApproved: "無効回答を承認"
      case .answerConfirmed: "無効回答を確定"
      case .exchangeRetried: "交換の発行を再試行"
      case .exchangeEnded: "交換申請を終了"
      case .secondFactorEnrolled: "二段階認証を登録"
      case .secondFactorGiven: "二段階認証"
      case .operatorAdded: "運営者を追加"
      case .roleChanged: "役割を変更"
      case .operatorDisabled: "運営者を無効化"
      case .secondFactorReset: "二段階認証をリセット"
      case .adjustmentRequested: "ポイント調整を依頼"
      case .adjustmentApproved: "ポイント調整を承認"
      case .adjustmentRefused: "ポイント調整を却下"
      }
    }
  }
}

/// A page of the audit log, newest first, and where the next (older) page starts.
public struct AuditPage: Equatable, Sendable {
  public var entries: [AuditEntry]
  /// The cursor of the next page; `nil`: this is the last.
  public var next: String?

  public init(entries: [AuditEntry], next: String?) {
    self.entries = entries
    self.next = next
  }
}
