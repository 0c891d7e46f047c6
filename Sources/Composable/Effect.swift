import Dependencies
import IssueReporting

/// Work a reducer asks the runtime to do after it has changed state.
///
/// An effect is a value: a list of operations the store runs concurrently. Every action an
/// operation sends is fed back into the same reducer.
public struct Effect<Action: Sendable>: Sendable {
  @usableFromInline
  package enum Operation: Sendable {
    case send(Action)
    case run(@Sendable (Send<Action>) async -> Void)
    /// Cancels the running effects marked with an id, when the store reaches it.
    case cancel(EffectID)
  }

  @usableFromInline
  package let operations: [Operation]

  @usableFromInline
  package init(operations: [Operation]) {
    self.operations = operations
  }

  /// No work.
  @inlinable
  public static var none: Self { Self(operations: []) }

  /// Feeds an action straight back into the store. Use it for child → parent delegate actions,
  /// never to share logic between actions.
  public static func send(_ action: Action) -> Self {
    Self(operations: [.send(action)])
  }

  /// Runs asynchronous work that may send any number of actions.
  ///
  /// The dependencies in force when the effect is created are in force while it runs. An error the
  /// operation throws goes to `handler`; without one it is reported as an issue (a failed test, a
  /// runtime warning in the server), never silently dropped. Cancellation is not an error.
  public static func run(
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    let dependencies = DependencyValues._current
    return Self(operations: [
      .run { send in
        await withDependencies { $0 = dependencies } operation: {
          do {
            try await operation(send)
          } catch is CancellationError {
          } catch {
            if let handler {
              await handler(error, send)
            } else {
              reportIssue(
                """
                An "Effect.run" returned from "\(fileID):\(line)" threw an unhandled error: \
                \(error)

                Handle it in the operation, or pass a "catch:" handler to "Effect.run".
                """,
                fileID: fileID, filePath: filePath, line: line, column: column
              )
            }
          }
        }
      }
    ])
  }

  /// Runs all effects at the same time.
  public static func merge(_ effects: Self...) -> Self { merge(effects) }

  /// Runs this effect and `other` at the same time.
  @inlinable
  public func merge(with other: Self) -> Self {
    // Most actions start no work: merging nothing allocates nothing.
    if other.operations.isEmpty { return self }
    if operations.isEmpty { return other }
    return Self(operations: operations + other.operations)
  }

  /// Runs all effects at the same time.
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    // A closure, not `\.operations`: a key path into a generic type is built anew at every call,
    // and merging runs after every reducer of every body.
    Self(operations: effects.flatMap { $0.operations })
  }

  /// Runs the effects one after another: each starts when the previous one has finished.
  public static func concatenate(_ effects: Self...) -> Self { concatenate(effects) }

  /// Runs the effects one after another: each starts when the previous one has finished.
  public static func concatenate(_ effects: some Collection<Self>) -> Self {
    let effects = effects.filter { !$0.operations.isEmpty }
    guard effects.count > 1 else { return effects.first ?? .none }
    return Self(operations: [
      .run { send in
        for effect in effects {
          guard !Task.isCancelled else { return }
          await effect.execute(send)
        }
      }
    ])
  }

  /// Turns the actions this effect sends into another type of action (used by `Scope` and friends).
  @inlinable
  public func map<NewAction: Sendable>(
    _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Effect<NewAction> {
    if operations.isEmpty { return .none }
    return Effect<NewAction>(
      operations: operations.map { operation in
        switch operation {
        case let .send(action):
          return .send(transform(action))
        case let .run(work):
          return .run { send in await work(Send { await send(transform($0)) }) }
        case let .cancel(id):
          return .cancel(id)
        }
      }
    )
  }

  /// Runs every operation concurrently and returns when all have finished.
  ///
  /// Operations start in order, each on the caller's thread until it first suspends (as the store
  /// starts an action's work), so that a `cancel` reaches exactly the effects started before it.
  package func execute(_ send: Send<Action>) async {
    // One operation needs no task of its own: it runs in the caller's.
    if operations.count <= 1 {
      switch operations.first {
      case let .send(action): await send(action)
      case let .run(work): await work(send)
      case let .cancel(id): CancellableEffects.current?.cancel(id)
      case nil: break
      }
      return
    }
    await withTaskGroup(of: Void.self) { group in
      for operation in operations {
        switch operation {
        case let .send(action):
          group.addImmediateTask { await send(action) }
        case let .run(work):
          group.addImmediateTask { await work(send) }
        case let .cancel(id):
          CancellableEffects.current?.cancel(id)
        }
      }
    }
  }
}

/// Sends actions from an effect back into the store that runs it.
public struct Send<Action: Sendable>: Sendable {
  let deliver: @Sendable (Action) async -> Void

  public init(_ deliver: @escaping @Sendable (Action) async -> Void) {
    self.deliver = deliver
  }

  /// Sends an action back into the store, unless the effect has been cancelled.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    await deliver(action)
  }
}
