import Foundation

/// What the support desk does to a user, as a user's update (`AppFeature.Action.support`).
public enum SupportAction: Equatable, Sendable {
  /// Adds (positive) or takes (negative) points, with the reason the user reads in the history,
  /// as movement `id`: the form's own, so that a form sent twice adjusts once.
  case adjust(points: Int, reason: String, id: TransactionID)
  /// Pays an answer recorded invalid after all: the survey's reward, once, when it gets a place in
  /// the survey's quota (and in `cell`, the quota cell its response was in, by name).
  case approveAnswer(Survey, cell: String? = nil)
  /// Asks the issuer again for a pending exchange request, whatever its age.
  case retryExchange(Int)
  /// Ends a pending exchange request now: with the code if one was issued, otherwise refunded.
  case refundExchange(Int)
}

/// Why the support desk's action was refused; nothing changed.
public enum SupportError: String, Error, Codable, Equatable, CaseIterable, Sendable {
  case reasonRequired
  case reasonTooLong
  case invalidAmount
  case insufficientBalance
  /// The answer is not one recorded invalid (never answered, paid, or approved already).
  case notInvalid
  /// The answer has moved to the archive: it is no longer changed.
  case archived
  /// The exchange request has ended (or never was).
  case notPending
  /// This adjustment's form was sent before: it was done then.
  case alreadyDone
  /// The adjustment was decided already (approved, refused), or never asked.
  case notWaiting
  /// Four eyes: the operator who asked for an adjustment is not the one who approves it.
  case ownRequest
  /// The survey's quota (or the answer's quota cell) is full: the answer cannot be approved.
  case quotaFull
  /// The quota could not be counted now: nothing was done.
  case quotaUnavailable

  public var message: String {
    switch self {
    case .reasonRequired: "調整の理由を入力してください。"
    case .reasonTooLong: "調整の理由は\(UserProgress.maxAdjustmentReason)文字以内で入力してください。"
    case .invalidAmount: "ポイントは0以外の整数（最大±\(PointAmount.grouped(UserProgress.maxAdjustment))）で入力してください。"
    case .insufficientBalance: "残高を超えてポイントを減らすことはできません。"
    case .notInvalid: "この回答は無効として記録されていないため、承認できません。"
    case .archived: "この回答は古いため、サポートデスクから変更できません。"
    case .notPending: "この交換申請は申請中ではありません。"
    case .alreadyDone: "この調整はすでに行われています（同じフォームが2回送信されました）。"
    case .notWaiting: "この調整はすでに承認または却下されています。"
    case .ownRequest: "自分が依頼した調整は承認・却下できません。別の運営者（管理者またはサポート）に依頼してください。"
    case .quotaFull: "この調査は回収目標（または割付セルの上限）に達しているため、承認できません。ポイントは付与していません。"
    case .quotaUnavailable: "回収目標を確認できなかったため、承認していません。しばらくしてからもう一度お試しください。"
    }
  }
}

/// What the support desk did, said on the user's page after the form.
public enum SupportNotice: String, Equatable, CaseIterable, Sendable {
  case adjusted, approved, confirmed, retried, ended
  /// Four eyes: a large adjustment waits for a second operator.
  case awaitingApproval
  case adjustmentApproved, adjustmentRefused

  public var message: String {
    switch self {
    case .adjusted: "ポイントを調整しました。"
    case .approved: "回答を承認し、報酬を付与しました。"
    case .confirmed: "回答が無効であることを確定しました。"
    case .retried: "コードの発行の再試行を受け付けました。数秒後に交換申請の状態をご確認ください。"
    case .ended: "交換申請の終了を受け付けました。発行済みのコードがあればそのコードで完了、なければポイントを返還します（数秒後に状態をご確認ください）。"
    case .awaitingApproval: "この調整は承認待ちです。別の運営者（管理者またはサポート）が承認すると、ユーザーに反映されます。"
    case .adjustmentApproved: "調整を承認し、ユーザーに反映しました。"
    case .adjustmentRefused: "調整を却下しました。ユーザーのポイントは変わっていません。"
    }
  }
}

/// The outcome of a support desk form: done, or refused and why.
public enum SupportOutcome: Equatable, Sendable {
  case done(SupportNotice)
  case refused(SupportError)
}

/// A user as the support desk sees them: everything kept of them, the responses their answers
/// held here gave the surveys' clients, and the catalog's titles.
public struct Dossier: Equatable, Sendable {
  public var user: String
  public var progress: UserProgress
  /// By survey: an answer without one was given before responses were recorded.
  public var responses: [SurveyID: SurveyResponse]
  public var surveyTitles: [SurveyID: String]

  public init(user: String, progress: UserProgress, responses: [SurveyID: SurveyResponse] = [:], surveyTitles: [SurveyID: String] = [:]) {
    self.user = user
    self.progress = progress
    self.responses = responses
    self.surveyTitles = surveyTitles
  }
}
