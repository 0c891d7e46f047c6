/// A reducer written as a closure: the usual core of a feature's `body`.
public struct Reduce<State, Action: Sendable>: Reducer {
  @usableFromInline let reduce: (inout State, Action) -> Effect<Action>

  public init(_ reduce: @escaping (_ state: inout State, _ action: Action) -> Effect<Action>) {
    self.reduce = reduce
  }

  /// Wraps any reducer of the same state and action, erasing its type.
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.reduce = reducer.reduce(into:action:)
  }

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reduce(&state, action)
  }
}
