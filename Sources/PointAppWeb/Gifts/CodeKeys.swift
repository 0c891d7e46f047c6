import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PointApp
import Synchronization

/// The keys gift codes are sealed with at rest (AES-256-GCM), read from a file outside the data
/// folder: a line `<key id>:<32 bytes in base64>` per key, the first the one that seals; the
/// others still open what they sealed, so that a key can rotate (a new first line) while the
/// codes sealed before stay readable, each naming its key.
///
/// Sealing is deterministic: the nonce is taken from a keyed digest of the code, so that the same
/// state always saves as the same bytes (`SavedJSON`) and the digest can name a code where a
/// name is needed (the built-in issuer's `c-<digest>`). A nonce repeats only with its own code.
public struct CodeKeys: GiftCodeSealing {
  struct Key: Sendable {
    let id: String
    // (Bytes: `SymmetricKey` is not `Sendable`.)
    private let encryptionBytes: Data
    private let digestBytes: Data

    init(id: String, secret: SymmetricKey) {
      self.id = id
      // Two keys of one secret: one encrypts, one makes the digests.
      encryptionBytes = Data(HMAC<SHA256>.authenticationCode(for: Data("pointapp code encryption".utf8), using: secret))
      digestBytes = Data(HMAC<SHA256>.authenticationCode(for: Data("pointapp code digest".utf8), using: secret))
    }

    var encryption: SymmetricKey { SymmetricKey(data: encryptionBytes) }
    var digest: SymmetricKey { SymmetricKey(data: digestBytes) }
  }

  let sealing: Key
  let keys: [String: Key]

  init(_ keys: [(id: String, secret: SymmetricKey)]) {
    let all = keys.map { Key(id: $0.id, secret: $0.secret) }
    sealing = all[0]
    self.keys = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The keys in `file`, made (one new key, readable by its owner only) when there is none.
  public static func load(_ file: URL) throws -> CodeKeys {
    if !FileManager.default.fileExists(atPath: file.path) {
      // Written whole (0600 from its creation, synced), then linked into place, the folder
      // synced: of two instances starting together, one makes it and the other reads the same
      // keys; a power cut leaves it whole or absent. The id is random: a file made by mistake
      // elsewhere never passes for this one (`register`).
      let line = "k-\(hex(randomBytes(4))):" + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() } + "\n"
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try DurableFile.write(Data(line.utf8), to: file.path, exclusive: true)
    }
    guard let text = FileManager.default.contents(atPath: file.path).map({ String(decoding: $0, as: UTF8.self) }) else {
      throw CodeKeyError("cannot read the code keys file \(file.path)")
    }
    var keys: [(id: String, secret: SymmetricKey)] = []
    for line in text.split(whereSeparator: \.isNewline) where !line.trimmingCharacters(in: .whitespaces).isEmpty {
      let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
      guard parts.count == 2, !parts[0].isEmpty, let secret = Data(base64Encoded: String(parts[1])), secret.count == 32 else {
        throw CodeKeyError("\(file.path): each line is \"<key id>:<32 bytes in base64>\"")
      }
      guard !keys.contains(where: { $0.id == String(parts[0]) }) else {
        throw CodeKeyError("\(file.path): key \(parts[0]) is named twice (a new key needs a new id)")
      }
      keys.append((String(parts[0]), SymmetricKey(data: secret)))
    }
    guard !keys.isEmpty else { throw CodeKeyError("\(file.path) holds no key") }
    return CodeKeys(keys)
  }

  /// A key of the moment: what a process uses until it is given its file (tests).
  static func ephemeral() -> CodeKeys { CodeKeys([("ephemeral", SymmetricKey(size: .bits256))]) }

  /// The process's keys: `SavedJSON` and `SavedJSONWriter` seal and open with them. One set
  /// per process, installed at start (`buildApplication`) from its file.
  public static var current: CodeKeys { installed.withLock { $0 } }
  private static let installed = Mutex(CodeKeys.ephemeral())

  public static func install(_ keys: CodeKeys) {
    installed.withLock { $0 = keys }
  }

  /// What names each key in the store (`settings/code-keys`): a keyed hash of it, never the key.
  func fingerprints() -> [String: String] {
    keys.mapValues { hex(HMAC<SHA256>.authenticationCode(for: Data("pointapp key fingerprint".utf8), using: $0.digest).prefix(16)) }
  }

  /// Checks these keys against the ones the store's codes were sealed with (their fingerprints,
  /// kept in `settings/code-keys`), then adds these: a keys file that lacks one of them, or holds
  /// another key under its id (a file made anew on another machine, a line pasted wrong), stops
  /// the start, since the codes sealed with it could no longer be opened.
  public func register(in backend: any RecordBackend, file: String) async throws {
    let settings = Records<RecordName, [String: String]>(backend.table(.settings))
    let mine = fingerprints()
    _ = try await settings.create([:], as: RecordName("code-keys"))
    try await settings.modify(RecordName("code-keys")) { known in
      var known = known ?? [:]
      for (id, fingerprint) in known.sorted(by: { $0.key < $1.key }) {
        guard let own = mine[id] else {
          throw CodeKeyError("\(file) lacks key \(id), which codes in this store are sealed with: name the file that holds it (--code-keys)")
        }
        guard own == fingerprint else {
          throw CodeKeyError("\(file) holds another key under the id \(id) than the one codes in this store are sealed with")
        }
      }
      known.merge(mine) { old, _ in old }
      return (known, ())
    }
  }

  public func digest(of code: GiftCode) -> String {
    hex(HMAC<SHA256>.authenticationCode(for: Data(code.value.utf8), using: sealing.digest))
  }

  public func seal(_ code: GiftCode) throws -> SealedGiftCode {
    let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(code.value.utf8), using: sealing.digest))
    let box = try AES.GCM.seal(Data(code.value.utf8), using: sealing.encryption, nonce: AES.GCM.Nonce(data: mac.prefix(12)))
    return SealedGiftCode(key: sealing.id, digest: hex(mac), box: (box.ciphertext + box.tag).base64EncodedString())
  }

  public func open(_ sealed: SealedGiftCode) throws -> GiftCode {
    guard let key = keys[sealed.key] else { throw CodeKeyError("a gift code sealed with key \(sealed.key), which the code keys file does not hold") }
    guard let box = Data(base64Encoded: sealed.box), box.count >= 16, let digest = Self.bytes(hex: sealed.digest), digest.count == 32 else {
      throw CodeKeyError("a sealed gift code that is not one")
    }
    let plain = try AES.GCM.open(
      AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: digest.prefix(12)), ciphertext: box.dropLast(16), tag: box.suffix(16)), using: key.encryption
    )
    // The digest names the code where it is compared (the built-in issuer's reservations, the
    // crash test's checks): it must be this code's.
    guard Data(HMAC<SHA256>.authenticationCode(for: plain, using: key.digest)) == digest else {
      throw CodeKeyError("a sealed gift code whose digest is not its code's")
    }
    return GiftCode(String(decoding: plain, as: UTF8.self))
  }

  private static func bytes(hex: String) -> Data? {
    var data = Data()
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
      guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
      data.append(byte)
      index = next
    }
    return data
  }
}

public struct CodeKeyError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}
