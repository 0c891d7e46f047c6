import Dependencies
import DependenciesMacros
import Foundation

/// What a source of codes may say of a request, as `Exchange` records it.
public enum GiftCodeError: Error, Equatable, Sendable {
  /// The source will not issue this request's code: its points go back.
  case rejected
  /// No answer now (down, too slow): the request stays pending and is asked again.
  case unavailable
}

/// The user's exchange requests waiting for their code, as the support desk moves them: the web
/// layer binds it to the user of each update, and writes in the same commit.
@DependencyClient
public struct ExchangeOutboxClient: Sendable {
  /// Request `number` is asked of its source again at the fulfiller's next pass.
  public var retry: @Sendable (_ number: Int) async throws -> Void
  /// Request `number` is to end at the fulfiller's next pass: cancelled at its source (its points
  /// back), or delivered if a code was issued after all.
  public var end: @Sendable (_ number: Int) async throws -> Void
}

extension ExchangeOutboxClient: DependencyKey {
  /// No user is known outside an update: nothing can be moved.
  public static let liveValue = ExchangeOutboxClient(
    retry: { _ in throw GiftCodeError.unavailable }, end: { _ in throw GiftCodeError.unavailable }
  )
  public static let testValue = ExchangeOutboxClient()
}

extension DependencyValues {
  public var exchangeOutbox: ExchangeOutboxClient {
    get { self[ExchangeOutboxClient.self] }
    set { self[ExchangeOutboxClient.self] = newValue }
  }
}
