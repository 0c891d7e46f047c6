/// A reducer with its `body` built once, for running many stores on one feature: the server makes
/// a store per request, and building a body instantiates its scopes' key paths and case paths,
/// which cost more than most actions. A reducer without a body runs itself.
///
/// Dependencies are still read when an action runs, from the running store's: a `@Dependency`
/// prefers the values current when it is read to those of when its reducer was built.
public struct PreparedReducer<State, Action: Sendable>: Reducer, @unchecked Sendable {
  // Unchecked: built from a `Sendable` reducer, and a body is an immutable value made of it.
  private let run: (inout State, Action) -> Effect<Action>

  public init<R: Reducer & Sendable>(_ reducer: R) where R.State == State, R.Action == Action {
    run = Self.prepared(reducer)
  }

  init<R: Reducer>(unchecked reducer: R) where R.State == State, R.Action == Action {
    run = Self.prepared(reducer)
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    run(&state, action)
  }

  private static func prepared<R: Reducer>(_ reducer: R) -> (inout State, Action) -> Effect<Action>
  where R.State == State, R.Action == Action {
    guard R.Body.self != Never.self, let body = reducer.body as? any Reducer<State, Action> else {
      return reducer.reduce(into:action:)
    }
    return { state, action in body.reduce(into: &state, action: action) }
  }
}
