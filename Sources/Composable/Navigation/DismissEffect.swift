import Dependencies
import IssueReporting
import Synchronization

/// How a presented child closes itself, as TCA's `@Dependency(\.dismiss)`: from an effect,
/// `.run { _ in await dismiss() }`. The parent then receives its presentation's `.dismiss`, as if
/// it had dismissed the child itself, and the child's effects are cancelled.
///
/// Only a child run by `ifLet` over `@Presents` state can be dismissed; anywhere else the call is
/// reported and does nothing. No animation or transaction parameters: a server has neither.
public struct DismissEffect: Sendable {
  let dismiss: (@Sendable () async -> Void)?

  init(_ dismiss: (@Sendable () async -> Void)?) {
    self.dismiss = dismiss
  }

  public func callAsFunction(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    guard let dismiss else {
      reportIssue(
        """
        A reducer requested dismissal at "\(fileID):\(line)", but couldn't be dismissed: it is not \
        presented ("ifLet" over "@Presents" state).

        This is a logic error: the reducer assumes it is presented. A reducer that also runs on its \
        own should check "@Dependency(\\.isPresented)" first.
        """,
        fileID: fileID, filePath: filePath, line: line, column: column
      )
      return
    }
    await dismiss()
  }
}

extension DependencyValues {
  /// Dismisses the presented child whose effect calls it (`PresentationReducer` sets it).
  public var dismiss: DismissEffect {
    get { self[DismissKey.self] }
    set { self[DismissKey.self] = newValue }
  }

  /// Whether the reducer runs presented, so that `dismiss` can close it.
  public var isPresented: Bool { dismiss.dismiss != nil }
}

private enum DismissKey: DependencyKey {
  static let liveValue = DismissEffect(nil)
  static let testValue = DismissEffect(nil)
}

/// Where a presented child's `dismiss` sends its parent's `.dismiss`: the store's send, handed
/// over by the child's effects when they start (they run with the dependencies of the reduce
/// that made them, before any send exists).
final class DismissTarget<Action: Sendable>: Sendable {
  private let send = Mutex<Send<Action>?>(nil)
  private let dismissal: Action

  init(dismissal: Action) { self.dismissal = dismissal }

  func start(with send: Send<Action>) { self.send.withLock { $0 = send } }

  func dismiss() async {
    guard let send = send.withLock({ $0 }) else { return }
    await send(dismissal)
  }

  /// `effect`'s work, handing its send over to `dismiss` first.
  func handing(_ effect: Effect<Action>) -> Effect<Action> {
    Effect(operations: effect.operations.map { operation in
      guard case let .run(work) = operation else { return operation }
      return .run { [self] send in
        start(with: send)
        await work(send)
      }
    })
  }
}
