import CustomDump
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
public struct GiftCode: Codable, Hashable, Sendable, CustomStringConvertible {
  public let value: String

  public init(_ value: String) { self.value = value }

  /// For lists: all but the last four characters hidden, the dashes kept (`••••-••••-••••-W4RA`).
  public var masked: String {
    let hidden = max(0, value.count - 4)
    return String(value.enumerated().map { index, character in index < hidden && character != "-" ? "•" : character })
  }

  public var description: String { value }

  public init(from decoder: any Decoder) throws {
    value = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

extension GiftCode: CustomDumpStringConvertible {
  /// A dump (the trace of changes, `LOG_LEVEL=trace`) shows a code as the lists do, masked.
  public var customDumpDescription: String { masked }
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
