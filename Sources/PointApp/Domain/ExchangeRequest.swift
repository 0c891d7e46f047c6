import Foundation

/// An exchange as a request: its points are held when it is made (申請中), then it is fulfilled
/// with a code (交換完了) or fails and its points are given back (失敗), once either way.
public struct ExchangeRequest: Codable, Equatable, Identifiable, Sendable {
  /// The user's own number for it, from 1: its page is `/exchange/history/{number}`.
  public let number: Int
  public let option: ExchangeOption.ID
  /// The points held: the option's cost and fee.
  public let points: PointAmount
  public let requestedAt: Date
  /// The hold's movement id: unique among every user's requests, so the issuer knows a request
  /// asked again (after a crash, from another instance) by it.
  public let key: TransactionID
  public internal(set) var status: Status

  public var id: Int { number }

  public enum Status: Codable, Equatable, Sendable {
    /// 申請中: held, waiting for its code; `attempts` made so far that did not end it.
    case pending(attempts: Int)
    /// 交換完了, with the code, shown only to its owner.
    case fulfilled(code: GiftCode, at: Date)
    /// 失敗: the points were given back (movement `refundID`).
    case failed(at: Date, refundID: TransactionID)
  }

  public init(number: Int, option: ExchangeOption.ID, points: PointAmount, requestedAt: Date, key: TransactionID, status: Status = .pending(attempts: 0)) {
    self.number = number
    self.option = option
    self.points = points
    self.requestedAt = requestedAt
    self.key = key
    self.status = status
  }

  public var isPending: Bool {
    if case .pending = status { true } else { false }
  }

  /// Whether it counts in the limits: every request but one that failed (its points came back).
  public var counts: Bool {
    if case .failed = status { false } else { true }
  }
}

/// Archived requests: numbers `start + 1 ... start + requests.count`, oldest first.
public struct ExchangeSegment: Codable, Equatable, Sendable {
  public let start: Int
  public let requests: [ExchangeRequest]

  public init(start: Int, requests: [ExchangeRequest]) {
    self.start = start
    self.requests = requests
  }
}

/// A code that an exchange delivers.
public struct GiftCode: Codable, Hashable, Sendable {
  public let value: String

  public init(_ value: String) { self.value = value }

  /// For lists: all but the last four characters hidden, the dashes kept (`••••-••••-••••-W4RA`).
  public var masked: String {
    let hidden = max(0, value.count - 4)
    return String(value.enumerated().map { index, character in index < hidden && character != "-" ? "•" : character })
  }

  /// Sealed (`SealedGiftCode`) when the encoder's `userInfo` holds a sealing, as the web layer's
  /// saved records do; in plain text otherwise (an encoder of the tests'). A sealed code
  /// is read only with the sealing that opens it; a plain one (written before codes were sealed)
  /// always.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let plain = try? container.decode(String.self) {
      value = plain
      return
    }
    let sealed = try container.decode(SealedGiftCode.self)
    guard let sealing = decoder.userInfo[.giftCodeSealing] as? any GiftCodeSealing else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a sealed gift code, and nothing to open it with"))
    }
    self = try sealing.open(sealed)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let sealing = encoder.userInfo[.giftCodeSealing] as? any GiftCodeSealing {
      try container.encode(try sealing.seal(self))
    } else {
      try container.encode(value)
    }
  }
}

/// A gift code as records keep it: encrypted under key `key`, with a keyed digest that names it
/// where a name is needed (never the code itself).
public struct SealedGiftCode: Codable, Equatable, Sendable {
  /// The id of the key it is sealed with (keys rotate: older ones still open what they sealed).
  public let key: String
  /// HMAC-SHA256 of the code, hex.
  public let digest: String
  /// The ciphertext and its tag, base64.
  public let box: String

  public init(key: String, digest: String, box: String) {
    self.key = key
    self.digest = digest
    self.box = box
  }
}

/// Seals gift codes and opens them again (`CodeKeys` in the web layer).
public protocol GiftCodeSealing: Sendable {
  func seal(_ code: GiftCode) throws -> SealedGiftCode
  func open(_ sealed: SealedGiftCode) throws -> GiftCode
}

extension CodingUserInfoKey {
  /// The `GiftCodeSealing` that saved records seal their codes with.
  public static let giftCodeSealing = CodingUserInfoKey(rawValue: "pointapp.giftCodeSealing")!
}

extension GiftCode: CustomDebugStringConvertible, CustomReflectable {
  /// A dump (the trace of changes, `LOG_LEVEL=trace`; a test's diff) and a string it is
  /// interpolated into show a code as the lists do, masked: this for a description (there is no
  /// other: the code itself is `value`), and for its one field.
  public var debugDescription: String { masked }
  public var customMirror: Mirror { Mirror(self, children: ["masked": masked], displayStyle: .struct) }
}

/// What the fulfiller asks the gift source next for a pending request.
public enum GiftCall: Equatable, Sendable {
  /// Its code (an order under its key: never a second one).
  case issue
  /// Its order as it stands: after a call whose answer was not heard.
  case status
  /// That it never be issued: a code issued after all is delivered, otherwise the points return.
  case cancel
}

extension ExchangeRequest {
  /// The call for this request at `now`: past `giveUpAfter` since it was made, or when its end
  /// was asked for (the support desk), `cancel`; after a call whose answer was not heard
  /// (`answerUnknown`), `status`; otherwise `issue`.
  public func nextCall(at now: Date, answerUnknown: Bool, endAsked: Bool, giveUpAfter: TimeInterval) -> GiftCall {
    if endAsked || now.timeIntervalSince(requestedAt) >= giveUpAfter { return .cancel }
    return answerUnknown ? .status : .issue
  }
}

/// The support desk's move of a pending request, which the web layer writes to the exchange
/// queue with the save (like a message in the mail outbox): the fulfiller takes it at its next
/// pass.
public struct ExchangeNudge: Equatable, Sendable {
  public let number: Int
  /// To end it (cancelled at its source, or delivered if a code was issued) rather than ask again.
  public let end: Bool

  public init(number: Int, end: Bool) {
    self.number = number
    self.end = end
  }
}
