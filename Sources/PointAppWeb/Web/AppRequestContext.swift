import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// Hummingbird's basic context with the peer's address: logins are counted per client.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
  public var coreContext: CoreRequestContextStorage
  public let remoteAddress: SocketAddress?
  /// Under `/admin`, the operator's session `OperatorGate` admitted.
  public var operatorSession: OperatorSession?

  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }

  /// Who sent the request: the peer, or the client a trusted proxy (one of `trustedProxies`)
  /// says it forwards (the last address of `X-Forwarded-For`, the one that proxy added).
  func client(of request: Request, trustedProxies: Set<String>) -> String? {
    guard let peer = remoteAddress?.ipAddress else { return nil }
    guard trustedProxies.contains(peer), let forwarded = request.headers[values: HTTPField.Name("X-Forwarded-For")!].last else { return peer }
    let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces)
    return last.flatMap { $0.isEmpty ? nil : $0 } ?? peer
  }
}
