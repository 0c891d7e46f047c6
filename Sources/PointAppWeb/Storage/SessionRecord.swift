import Foundation
import PointApp

/// What the server keeps of a session; the cookie carries only its id.
public struct SessionRecord: Codable, Equatable, Sendable {
  /// Whose data the session reads and changes; `nil` once the session has ended (logged out, or
  /// replaced by a new id at sign-in). An ended id is never taken up again: a copied cookie stays
  /// dead.
  public var user: UserID?
  /// The account signed in, if any, and its session epoch then: logging out of every device
  /// moves the account's epoch on, which ends every session of an older one.
  public var account: AccountID?
  public var epoch: Int
  /// The last request, to the hour or so (`Sessions.touchInterval`): sessions end after a while
  /// without one.
  public var lastSeen: Date
  /// When the password was last typed in this session: exchanges ask again after a while.
  public var passwordConfirmedAt: Date?
  /// The operator signed in, for an operator's session (`/admin`, its own cookie), which never
  /// leads to a user (`user` is `nil`), as a user's never leads to an operator.
  public var `operator`: OperatorID?
  /// An operator's session: when the second factor was last given in it (`nil`: not yet, only
  /// the sign-in's second step is open).
  public var secondFactorAt: Date?
  /// An operator's session: the authenticator secret being enrolled (base 32), until a code of it
  /// is typed; never shown again after.
  public var pendingSecret: String?
  /// An operator's session: what its next page shows once (recovery codes, a new operator's
  /// password), then forgets.
  public var revealed: OperatorFeature.Revealed?

  public init(
    user: UserID?, account: AccountID? = nil, epoch: Int = 0, lastSeen: Date, passwordConfirmedAt: Date? = nil, operator: OperatorID? = nil
  ) {
    self.operator = `operator`
    self.user = user
    self.account = account
    self.epoch = epoch
    self.lastSeen = lastSeen
    self.passwordConfirmedAt = passwordConfirmedAt
  }
}

/// Where sessions live (`data/sessions/`, the `sessions` table, or memory).
public typealias SessionRecords = Records<SessionID, SessionRecord>
