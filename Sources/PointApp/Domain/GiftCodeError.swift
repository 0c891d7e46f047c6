import Foundation

/// What a source of codes said of a request, as `Exchange` records it.
public enum GiftCodeError: Error, Equatable, Sendable {
  /// The source will not issue this request's code: its points go back.
  case rejected
  /// No answer now (down, too slow): the request stays pending and is asked again.
  case unavailable
}
