/// A reducer that changes nothing and starts no work.
public struct EmptyReducer<State, Action: Sendable>: Reducer {
  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}
