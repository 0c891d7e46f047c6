/// A reducer with its `body` built once, for running many stores on one feature: the server makes
/// a store per request, and building a body instantiates its scopes' key paths and case paths,
/// which cost more than most actions. A reducer without a body runs itself.
///
/// Dependencies are still read when an action runs, from the running store's: a `@Dependency`
/// prefers the values current when it is read to those of when its reducer was built.
public struct PreparedReducer<State, Action: Sendable>: Reducer, @unchecked Sendable {
  // Unchecked: built from a `Sendable` reducer, and a body is an immutable value made of it.
  //
  // Inlinable, with the reducers it is built of: the feature's type is known where it is prepared,
  // so its whole body is compiled for that type, rather than run through generic code that looks
  // up type metadata at every step.
  @usableFromInline let run: (inout State, Action) -> Effect<Action>

  @inlinable
  public init<R: Reducer & Sendable>(_ reducer: R) where R.State == State, R.Action == Action {
    run = Self.prepared(reducer)
  }

  /// For a feature with a `body` (the usual case): chosen where the feature's type is known, so
  /// that `prepared` keeps the body as its own type rather than as `any Reducer`.
  @inlinable
  public init<R: Reducer & Sendable>(_ reducer: R)
  where R.State == State, R.Action == Action, R.Body: Reducer, R.Body.State == State, R.Body.Action == Action {
    run = Self.prepared(reducer)
  }

  package init<R: Reducer>(unchecked reducer: R) where R.State == State, R.Action == Action {
    run = Self.prepared(reducer)
  }

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    run(&state, action)
  }

  @usableFromInline
  static func prepared<R: Reducer>(_ reducer: R) -> (inout State, Action) -> Effect<Action>
  where R.State == State, R.Action == Action {
    guard R.Body.self != Never.self, let body = reducer.body as? any Reducer<State, Action> else {
      return reducer.reduce(into:action:)
    }
    return { state, action in body.reduce(into: &state, action: action) }
  }

  @inlinable
  static func prepared<R: Reducer>(_ reducer: R) -> (inout State, Action) -> Effect<Action>
  where R.State == State, R.Action == Action, R.Body: Reducer, R.Body.State == State, R.Body.Action == Action {
    let body = reducer.body
    return { state, action in body.reduce(into: &state, action: action) }
  }
}
