import CasePaths

/// A feature's logic: how an action changes state, and what work follows.
///
/// Conform by writing either `reduce(into:action:)` or a `body` composed of other reducers.
public protocol Reducer<State, Action> {
  associatedtype State
  associatedtype Action: Sendable
  associatedtype Body

  /// Changes `state` for `action` and returns the work that follows.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducers this one is made of.
  @ReducerBuilder<State, Action>
  var body: Body { get }
}

/// The reducer type of a feature: `var body: some ReducerOf<Self>`.
public typealias ReducerOf<R: Reducer> = Reducer<R.State, R.Action>

extension Reducer where Body == Never {
  public var body: Body {
    fatalError("'\(Self.self)' has no body: it implements 'reduce(into:action:)' instead.")
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }
}

/// Names the case of a parent's action that carries a child's actions, as in
/// `Scope(state: \.counter, action: \.counter)`: the same expression as a `CaseKeyPath`, read
/// through the enum's generated case paths so that a scope's `extract` is the macro's plain
/// `switch` rather than a chain of dynamic casts, which ran for every scope on every action.
public typealias ActionCase<Root: CasePathable, Value> = KeyPath<Root.AllCasePaths, AnyCasePath<Root, Value>>

/// Names a case of an enum state, as in a destination's `Scope(state: \.addContact, action: \.addContact)`.
public typealias StateCase<Root: CasePathable, Value> = KeyPath<Root.AllCasePaths, AnyCasePath<Root, Value>>
