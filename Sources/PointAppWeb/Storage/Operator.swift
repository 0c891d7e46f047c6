import Crypto
import Foundation
import PointApp

public enum OperatorKind {}
/// An operator's id: from their address, in a space of its own (an operator and a user with the
/// same address are two records that never stand for each other).
public typealias OperatorID = RandomID<OperatorKind>

extension RandomID where Kind == OperatorKind {
  /// The id of the operator of `email`, an address already normalized (trimmed, lowercased).
  public init(email: String) {
    self.init(hex(SHA256.hash(data: Data("operator \(email)".utf8)).prefix(16)))!
  }
}

/// Someone who runs PointApp: signs in at `/admin/login` with a password and a second factor,
/// made by `pointapp create-operator` or by a 管理者 at `/admin/operators`.
public struct Operator: Codable, Equatable, Sendable {
  public let email: String
  public var passwordHash: String
  /// Moves on to end every session of the operator (disabled, demoted, second factor reset).
  public var epoch: Int
  public let created: Date
  public var role: OperatorRole
  /// A disabled operator cannot sign in; their sessions ended when they were disabled.
  public var disabled: Bool
  public var lastSignIn: Date?
  /// The authenticator's secret once enrolled, and the step of the last code taken.
  public var totp: TOTPEnrolment?
  /// SHA-256 of each recovery code not used yet.
  public var recoveryCodes: [String]

  public init(email: String, passwordHash: String, epoch: Int = 0, created: Date, role: OperatorRole = .administrator) {
    self.email = email
    self.passwordHash = passwordHash
    self.epoch = epoch
    self.created = created
    self.role = role
    disabled = false
    recoveryCodes = []
  }

  public var id: OperatorID { OperatorID(email: email) }

  private enum CodingKeys: String, CodingKey {
    case email, passwordHash, epoch, created, role, disabled, lastSignIn, totp, recoveryCodes
  }

  /// An operator saved before roles was the only kind there was: a 管理者.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    email = try container.decode(String.self, forKey: .email)
    passwordHash = try container.decode(String.self, forKey: .passwordHash)
    epoch = try container.decode(Int.self, forKey: .epoch)
    created = try container.decode(Date.self, forKey: .created)
    role = try container.decodeIfPresent(OperatorRole.self, forKey: .role) ?? .administrator
    disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
    lastSignIn = try container.decodeIfPresent(Date.self, forKey: .lastSignIn)
    totp = try container.decodeIfPresent(TOTPEnrolment.self, forKey: .totp)
    recoveryCodes = try container.decodeIfPresent([String].self, forKey: .recoveryCodes) ?? []
  }
}

/// An operator's authenticator: its secret (base 32) and the step of the last code taken (a
/// code is never taken twice).
public struct TOTPEnrolment: Codable, Equatable, Sendable {
  public var secret: String
  public var lastStep: Int64?
  public var enrolled: Date
}

/// Where operators live (`data/operators/`, the `operators` table, or memory).
public typealias OperatorRecords = Records<OperatorID, Operator>
