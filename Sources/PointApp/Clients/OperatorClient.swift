import Dependencies
import DependenciesMacros
import Foundation

/// What operators change, as their features reach it. The web layer binds it to the operator of
/// each request, and records every change in the audit log with the operator's address.
@DependencyClient
public struct OperatorClient: Sendable {
  /// Checks an operator's address and password; the address signed in to.
  public var signIn: @Sendable (_ email: String, _ password: Secret) async throws -> String
  /// Closes a survey now (its deadline becomes now); the survey as it is then.
  public var closeSurvey: @Sendable (_ id: SurveyID) async throws -> Survey
  /// A page of the audit log, newest first, from `cursor` (`nil`: the newest).
  public var auditPage: @Sendable (_ cursor: String?) async throws -> AuditPage
  /// Every survey being edited, published or not.
  public var drafts: @Sendable () async throws -> [EditorDraft]
  /// The draft of a survey, if it is being edited.
  public var draft: @Sendable (_ id: SurveyID) async throws -> EditorDraft?
  /// Keeps a draft (a new one is audited as created).
  public var saveDraft: @Sendable (_ draft: EditorDraft) async throws -> Void
  /// Publishes a survey built from its draft, as the next version of the survey of its id (the
  /// first if there is none), and ends the draft; the survey as published.
  public var publish: @Sendable (_ survey: Survey) async throws -> Survey
  /// Ends a draft without publishing it.
  public var discardDraft: @Sendable (_ id: SurveyID) async throws -> Void
  /// A survey's responses counted (its dashboard).
  public var responseCounts: @Sendable (_ id: SurveyID) async throws -> ResponseCounts
  /// How the survey's invitations stand; `nil`: it sends none.
  public var invitations: @Sendable (_ id: SurveyID) async throws -> InvitationProgress?
  /// Notes an export of a survey's responses in the audit log, before it is sent.
  public var exportStarted: @Sendable (_ id: SurveyID, _ export: ResponseExport) async throws -> Void
  /// The signed-in operator's new authenticator secret, kept with the session until a code of
  /// it is typed (the same one each time the page is shown).
  public var startEnrolment: @Sendable () async throws -> Enrolment
  /// Enrols the secret of `startEnrolment` once `code` is one of its codes: the second factor is
  /// given, and ten recovery codes are made (shown once, from the session).
  public var confirmEnrolment: @Sendable (_ code: String) async throws -> Void
  /// The second factor: a code of the operator's authenticator, or one of their recovery codes
  /// (each taken once). Wrong codes are throttled as passwords are.
  public var verifySecondFactor: @Sendable (_ code: String) async throws -> Void
  /// Every operator, for `/admin/operators`.
  public var team: @Sendable () async throws -> [OperatorSummary]
  /// What a 管理者 does to the operators: each audited.
  public var changeTeam: @Sendable (_ change: TeamChange) async throws -> Void
}

/// An authenticator's secret to enrol: as typed (base 32) and as the app reads it (a URI).
public struct Enrolment: Equatable, Sendable {
  public var secret: String
  public var uri: String

  public init(secret: String, uri: String) {
    self.secret = secret
    self.uri = uri
  }
}

/// An operator as `/admin/operators` lists them.
public struct OperatorSummary: Equatable, Sendable {
  /// The operator's id (from their address), which the page's forms name.
  public var id: String
  public var email: String
  public var role: OperatorRole
  public var disabled: Bool
  public var lastSignIn: Date?
  public var enrolled: Bool

  public init(id: String, email: String, role: OperatorRole, disabled: Bool, lastSignIn: Date?, enrolled: Bool) {
    self.id = id
    self.email = email
    self.role = role
    self.disabled = disabled
    self.lastSignIn = lastSignIn
    self.enrolled = enrolled
  }
}

/// A change a 管理者 makes to the operators.
public enum TeamChange: Equatable, Sendable {
  /// A new operator with a password made for them, shown once to the 管理者 who added them.
  case add(email: String, role: OperatorRole)
  case changeRole(id: String, OperatorRole)
  /// Their sessions end at once; they cannot sign in.
  case disable(id: String)
  /// Their authenticator is forgotten: they enrol a new one at their next sign-in.
  case resetSecondFactor(id: String)
}

/// Why a change to the operators was refused; nothing changed.
public enum TeamError: String, Error, Equatable, CaseIterable, Sendable {
  case invalidEmail
  case exists
  case unknown
  /// The last 管理者 who can sign in stays one: nobody could manage operators otherwise.
  case lastAdministrator
  case yourself

  public var message: String {
    switch self {
    case .invalidEmail: "メールアドレスの形式を確認してください。"
    case .exists: "このメールアドレスの運営者はすでにいます。"
    case .unknown: "その運営者は見つかりません。"
    case .lastAdministrator: "有効な管理者が一人もいなくなるため、この変更はできません。"
    case .yourself: "自分自身を無効にすることはできません。"
    }
  }
}

/// What a change to the operators did, said on the page after it.
public enum TeamNotice: String, Equatable, CaseIterable, Sendable {
  case added, roleChanged, disabled, secondFactorReset

  public var message: String {
    switch self {
    case .added: "運営者を追加しました。初期パスワードはこの画面でだけ表示します。本人に安全な方法で伝えてください。"
    case .roleChanged: "役割を変更しました。"
    case .disabled: "運営者を無効にしました。その運営者のログインはすべて終了しています。"
    case .secondFactorReset: "二段階認証をリセットしました。次のログインで認証アプリを登録し直します。"
    }
  }
}

extension OperatorClient: TestDependencyKey {
  public static let testValue = OperatorClient()
}

extension DependencyValues {
  public var operators: OperatorClient {
    get { self[OperatorClient.self] }
    set { self[OperatorClient.self] = newValue }
  }
}

/// Why an operator's action did not happen.
public enum OperatorError: Error, Equatable, Sendable {
  case notFound
  case unavailable
}
