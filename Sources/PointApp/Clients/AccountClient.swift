import Composable
import Dependencies
import DependenciesMacros
import Foundation

/// Accounts as the features reach them. The web layer binds it to the user of each request:
/// registering makes that user's data the account's; logging in takes what the user did as a
/// guest into the account's data.
@DependencyClient
public struct AccountClient: Sendable {
  /// Registers `email` with `password` for the request's user.
  public var register: @Sendable (_ email: EmailAddress, _ password: String) async throws -> SignIn
  /// Checks `password` for `email`'s account, then takes the request's guest progress into it.
  public var logIn: @Sendable (_ email: EmailAddress, _ password: String) async throws -> SignIn
  /// Checks the signed-in account's password, for what needs it typed again (exchanges); when it
  /// was confirmed.
  public var confirmPassword: @Sendable (_ password: String) async throws -> Date
  /// Replaces the signed-in account's password, given the current one; ends its other sessions.
  public var changePassword: @Sendable (_ current: String, _ new: String) async throws -> Void
  /// A new link that proves `email`'s address, valid until `expires` (an earlier one stops
  /// working): its token, kept only hashed. `nil`: no account has that address.
  public var issueVerification: @Sendable (_ email: EmailAddress, _ expires: Date) async throws -> Secret?
  /// Marks the address whose link carries `token` as its account's own: the address. Refused
  /// (`invalidLink`) once used, past its time, replaced or never issued.
  public var verifyAddress: @Sendable (_ token: Secret) async throws -> EmailAddress
  /// A new link that lets `email`'s account choose a new password, valid until `expires` (an
  /// earlier one stops working): its token, kept only hashed. `nil` when no account has the
  /// address or one went to it within `LinkLimit`: the caller cannot tell which. Throws
  /// `throttled` when the request's client asked too often.
  public var issueReset: @Sendable (_ email: EmailAddress, _ expires: Date) async throws -> Secret?
  /// Gives the account whose reset link carries `token` the password `password` (once, before
  /// the link expires), ends every session of the account, and counts its address as verified
  /// (the link reached it): the address. Refused (`invalidResetLink`) otherwise.
  public var resetPassword: @Sendable (_ token: Secret, _ password: String) async throws -> EmailAddress
  /// Ends the signed-in account, given its password: the account and what is kept under its
  /// address (login limits, mail not yet sent) are deleted with the user's save; its sessions end.
  /// The address it had.
  public var withdraw: @Sendable (_ password: String) async throws -> EmailAddress
  /// Starts moving the signed-in account to `newEmail`, given its password: a link for the new
  /// address, valid until `expires` (kept only hashed). Refused when an account has that
  /// address, or links went there too often (`LinkLimit`).
  public var requestAddressChange: @Sendable (_ newEmail: EmailAddress, _ password: String, _ expires: Date) async throws -> Secret
  /// Moves the account whose change link carries `token` to its new address (counted as
  /// verified: the link reached it); every session of the account ends. The addresses before and
  /// after. Refused (`invalidLink`) once used, past its time, replaced or never issued.
  public var confirmAddressChange: @Sendable (_ token: Secret) async throws -> AddressMove
}

/// An account moved from one address to another.
public struct AddressMove: Equatable, Sendable {
  public let from: EmailAddress
  public let to: EmailAddress

  public init(from: EmailAddress, to: EmailAddress) {
    self.from = from
    self.to = to
  }
}

/// An account signed in to, and what moved into it from the guest who signed in.
public struct SignIn: Equatable, Sendable {
  public let email: EmailAddress
  public let merged: MergeReport?

  public init(email: EmailAddress, merged: MergeReport? = nil) {
    self.email = email
    self.merged = merged
  }
}

/// Why registering or logging in did not happen.
public enum AccountError: Error, Equatable, Sendable {
  case invalidEmail
  case password(PasswordProblem)
  case emailTaken
  /// No such account, or a wrong password: the same words for both, so that the page does not
  /// tell which addresses have accounts.
  case wrongCredentials
  /// Too many failed logins for the address (for 15 minutes) or from the address (a minute).
  case throttled
  case alreadySignedIn
  /// The account's password was asked for and not typed, or typed wrong.
  case passwordRequired
  case wrongPassword
  /// The session ended while the form was on its way (signed in, out, or elsewhere meanwhile).
  case sessionEnded
  /// A verification link used, replaced, past its time, or never issued.
  case invalidLink
  case alreadyVerified
  /// Verification links asked for too often.
  case tooManyLinks
  /// A password reset link used, replaced, past its time, or never issued.
  case invalidResetLink
  /// The new address is the one the account has.
  case sameAddress
  /// An exchange is still being fulfilled: it ends (or is refunded) before the account does.
  case exchangePending
  case unavailable

  public init(_ error: any Error) {
    self = (error as? AccountError) ?? .unavailable
  }

  public var message: String {
    switch self {
    case .invalidEmail: "メールアドレスの形式を確認してください。"
    case let .password(problem): problem.message
    case .emailTaken: "このメールアドレスはすでに登録されています。ログインしてください。"
    case .wrongCredentials: "メールアドレスまたはパスワードが正しくありません。"
    case .throttled: "ログインの失敗が続いたため、しばらく受け付けません。15分ほどたってからお試しください。"
    case .alreadySignedIn: "すでにログインしています。"
    case .passwordRequired: "確認のため、パスワードを入力してください。"
    case .wrongPassword: "パスワードが正しくありません。"
    case .sessionEnded: "このページは古くなっています。開き直してから、もう一度お試しください。"
    case .invalidLink: "このリンクは使えません。有効期限（24時間）が切れたか、すでに使われたか、新しいリンクが送られています。"
    case .alreadyVerified: "メールアドレスは確認済みです。"
    case .invalidResetLink: "このリンクは使えません。有効期限（1時間）が切れたか、すでに使われたか、新しいリンクが送られています。もう一度お手続きください。"
    case .tooManyLinks: "確認メールは1分に1回、1時間に3回まで送れます。しばらくたってからお試しください。"
    case .sameAddress: "いまお使いのメールアドレスです。新しいメールアドレスを入力してください。"
    case .exchangePending: "ポイント交換の手続き中です。交換が完了（または返還）してから退会の手続きをしてください。"
    case .unavailable: "ただいま処理できません。時間をおいてお試しください。"
    }
  }
}

extension AccountClient: DependencyKey {
  /// No user is known outside a request: every call fails, and the page says so.
  public static let liveValue = AccountClient(
    register: { _, _ in throw AccountError.unavailable },
    logIn: { _, _ in throw AccountError.unavailable },
    confirmPassword: { _ in throw AccountError.unavailable },
    changePassword: { _, _ in throw AccountError.unavailable },
    issueVerification: { _, _ in throw AccountError.unavailable },
    verifyAddress: { _ in throw AccountError.unavailable },
    issueReset: { _, _ in throw AccountError.unavailable },
    resetPassword: { _, _ in throw AccountError.unavailable },
    withdraw: { _ in throw AccountError.unavailable },
    requestAddressChange: { _, _, _ in throw AccountError.unavailable },
    confirmAddressChange: { _ in throw AccountError.unavailable }
  )
  public static let testValue = AccountClient()
}

extension DependencyValues {
  public var accounts: AccountClient {
    get { self[AccountClient.self] }
    set { self[AccountClient.self] = newValue }
  }
}

extension Effect {
  /// Asks the accounts (or the operators) something: `answer` receives what `ask` returned, or the
  /// refusal it threw; any other failure (storage, a lost connection) is `.unavailable`. The one
  /// way the features call an account client.
  static func asking<Value: Sendable>(
    _ ask: @escaping @Sendable () async throws -> Value,
    answer: @escaping @Sendable (Result<Value, AccountError>) -> Action
  ) -> Self {
    .run { send in
      let result: Result<Value, AccountError>
      do { result = .success(try await ask()) } catch { result = .failure(AccountError(error)) }
      await send(answer(result))
    }
  }
}

extension Result where Failure == AccountError {
  /// The refusal; `nil` for an answer.
  var refusal: AccountError? { if case let .failure(error) = self { error } else { nil } }
}
