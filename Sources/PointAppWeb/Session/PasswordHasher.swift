import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// bcrypt, off the threads that serve requests: a hash costs tens of milliseconds of CPU by
/// design.
public struct PasswordHasher: Sendable {
  /// bcrypt's work factor: 12 in production; tests pass the smallest, 4.
  public let cost: UInt8
  /// Checked when there is no account: made once, so that checking it costs one verification,
  /// as a real one does.
  private let decoy: String
  /// Awaited before each hash or check: tests hold bcrypt there to see what waits for it.
  private let pause: (@Sendable () async -> Void)?

  public init(cost: UInt8 = 12, pausingBeforeEach pause: (@Sendable () async -> Void)? = nil) {
    self.cost = cost
    self.pause = pause
    decoy = Bcrypt.hash("decoy for addresses without an account", cost: cost)
  }

  func hash(_ password: String) async throws -> String {
    await pause?()
    let cost = cost
    return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(Self.digest(password), cost: cost) }
  }

  /// What bcrypt is given: bcrypt reads at most 72 bytes and stops at a NUL, and a password may be
  /// 128 characters of any kind; its SHA-256 in base64 is 44 bytes, every one of them counted.
  private static func digest(_ password: String) -> String {
    Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
  }

  /// Whether `password` is the one `hash` was made of. With no hash (no such account) a decoy of
  /// the same cost is checked, so that an unknown address takes as long as a wrong password.
  func verify(_ password: String, against hash: String?) async throws -> Bool {
    await pause?()
    let decoy = decoy
    return try await NIOThreadPool.singleton.runIfActive {
      let matches = Bcrypt.verify(Self.digest(password), hash: hash ?? decoy)
      return hash != nil && matches
    }
  }
}
