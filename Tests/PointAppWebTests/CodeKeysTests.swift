import Crypto
import Foundation
import PointApp
@testable import PointAppWeb
import Testing

/// Gift codes sealed at rest: the keys file made once and kept to its owner, a key rotated while
/// what the old one sealed still opens, the same code sealed to the same bytes, a box changed or
/// a key missing refused, and the built-in issuer's reservations of an older release renamed.
struct CodeKeysTests {
  let code = GiftCode("7K3M-Q9PZ-2HXD-W4RA")

  func keysFile(_ lines: [String]) throws -> URL {
    let file = scratch("code-keys")
    try Data(lines.joined(separator: "\n").utf8).write(to: file)
    return file
  }

  static func secret() -> String { SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() } }

  @Test func aMissingFileIsMadeOnceReadableByItsOwnerOnly() throws {
    let file = scratch("keys").appendingPathComponent("data.code-keys")
    let first = try CodeKeys.load(file)
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    let again = try CodeKeys.load(file)
    #expect(try again.open(try first.seal(code)) == code, "the second start reads the key the first made")
    let id = try first.seal(code).key
    #expect(id.wholeMatch(of: /k-[0-9a-f]{8}/) != nil, "a random id: \(id)")
  }

  @Test func aRotatedKeySealsWhileTheOldOneStillOpens() throws {
    let old = Self.secret()
    let before = try CodeKeys.load(try keysFile(["k1:\(old)"]))
    let sealedBefore = try before.seal(code)
    let after = try CodeKeys.load(try keysFile(["k2:\(Self.secret())", "k1:\(old)"]))
    #expect(try after.open(sealedBefore) == code)
    let sealedAfter = try after.seal(code)
    #expect(sealedAfter.key == "k2" && sealedAfter.box != sealedBefore.box)
    #expect(throws: CodeKeyError.self, "k2 is not in the old file") { try before.open(sealedAfter) }
  }

  @Test func theSameCodeSealsToTheSameBytesAndAChangedBoxIsRefused() throws {
    let keys = try CodeKeys.load(try keysFile(["k1:\(Self.secret())"]))
    let sealed = try keys.seal(code)
    #expect(try keys.seal(code) == sealed)
    #expect(try keys.seal(GiftCode("7K3M-Q9PZ-2HXD-W4RB")).box != sealed.box)
    #expect(!sealed.box.contains(code.value) && sealed.digest == keys.digest(of: code))
    let other = try keys.seal(GiftCode("7K3M-Q9PZ-2HXD-W4RB"))
    #expect(throws: (any Error).self, "a digest not its code's (its nonce no longer the box's)") {
      try keys.open(SealedGiftCode(key: sealed.key, digest: other.digest, box: sealed.box))
    }
    let tail = String(sealed.digest.prefix(24)) + String(repeating: "0", count: 40)
    #expect(throws: CodeKeyError.self, "the same nonce, another digest") { try keys.open(SealedGiftCode(key: sealed.key, digest: tail, box: sealed.box)) }
    var bytes = try #require(Data(base64Encoded: sealed.box))
    bytes[0] ^= 1
    #expect(throws: (any Error).self) { try keys.open(SealedGiftCode(key: sealed.key, digest: sealed.digest, box: bytes.base64EncodedString())) }
  }

  @Test func aFileThatIsNotKeysIsRefused() throws {
    for lines in [["k1"], ["k1:c2hvcnQ="], [":\(Self.secret())"], [""], ["k1:\(Self.secret())", "k1:\(Self.secret())"]] {
      #expect(throws: CodeKeyError.self, "\(lines)") { try CodeKeys.load(try keysFile(lines)) }
    }
  }

  /// A saved record seals its codes; read back with the keys it opens, and refused without them
  /// (a plain code of an older release is read as it is).
  @Test func savedRecordsSealAndReadBackTheirCodes() throws {
    struct Holder: Codable, Equatable { let code: GiftCode }
    let data = try SavedJSON.encode(Holder(code: code))
    #expect(String(decoding: data, as: UTF8.self).contains("\"digest\"") && !String(decoding: data, as: UTF8.self).contains(code.value))
    #expect(try SavedJSON.decode(Holder.self, from: data) == Holder(code: code))
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Holder.self, from: data) }
    #expect(try SavedJSON.decode(Holder.self, from: Data(#"{"code":"\#(code.value)"}"#.utf8)) == Holder(code: code))
    #expect(try JSONEncoder().encode(Holder(code: code)) == Data(#"{"code":"\#(code.value)"}"#.utf8), "unsealed where no keys are given")
  }

  /// A store remembers the keys its codes were sealed with (fingerprints, never the keys): a
  /// keys file that lacks one, or holds another key under its id, is refused before anything is
  /// sealed with it; the same file, or one with a key added, is taken.
  @Test(arguments: MailTests.Kind.allCases)
  func aStoreRefusesAKeysFileThatCannotOpenItsCodes(kind: MailTests.Kind) async throws {
    let backend = try await MailTests.backend(kind)  // (on PostgreSQL a database of its own: one settings table)
    let old = Self.secret()
    let first = try keysFile(["k1:\(old)"])
    try await CodeKeys.load(first).register(in: backend, file: first.path)
    try await CodeKeys.load(first).register(in: backend, file: first.path)
    let added = try keysFile(["k2:\(Self.secret())", "k1:\(old)"])
    try await CodeKeys.load(added).register(in: backend, file: added.path)
    for wrong in [["k1:\(Self.secret())", "k2:\(Self.secret())"], ["k2:\(Self.secret())"], ["k3:\(Self.secret())"]] {
      let file = try keysFile(wrong)
      await #expect(throws: CodeKeyError.self, "\(wrong.map { $0.prefix(3) })") { try await CodeKeys.load(file).register(in: backend, file: file.path) }
    }
  }

  @Test func theIssuersReservationsOfAnOlderReleaseAreRenamed() async throws {
    let storage = InMemoryRecordStorage()
    let issuer = GiftCodeIssuer(storage: storage)
    #expect(try await storage.create("c-\(code.value)", Data(#""r-x""#.utf8)))
    #expect(try await issuer.renameReservations() == 1)
    #expect(try await storage.names(after: nil, limit: 10) == ["c-\(CodeKeys.current.digest(of: code))"])
    #expect(try await issuer.renameReservations() == 0)
  }
}
