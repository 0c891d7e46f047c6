import Crypto
import Foundation

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

/// Someone who runs PointApp: signs in at `/admin/login`, made by `pointapp create-operator`.
public struct Operator: Codable, Equatable, Sendable {
  public let email: String
  public var passwordHash: String
  /// Moves on to end every session of the operator.
  public var epoch: Int
  public let created: Date

  public init(email: String, passwordHash: String, epoch: Int = 0, created: Date) {
    self.email = email
    self.passwordHash = passwordHash
    self.epoch = epoch
    self.created = created
  }

  public var id: OperatorID { OperatorID(email: email) }
}

/// Where operators live (`data/operators/`, the `operators` table, or memory).
public typealias OperatorRecords = Records<OperatorID, Operator>
