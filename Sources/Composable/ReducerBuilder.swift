/// Builds a reducer from a list of reducers that run one after another on the same state.
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  public static func buildBlock() -> EmptyReducer<State, Action> { EmptyReducer() }

  public static func buildExpression<R: Reducer>(_ reducer: R) -> R
  where R.State == State, R.Action == Action { reducer }

  public static func buildPartialBlock<R: Reducer>(first: R) -> R
  where R.State == State, R.Action == Action { first }

  public static func buildPartialBlock<R0: Reducer, R1: Reducer>(
    accumulated: R0, next: R1
  ) -> Sequenced<R0, R1> {
    Sequenced(first: accumulated, second: next)
  }

  public static func buildOptional<R: Reducer>(_ reducer: R?) -> OptionalReducer<R>
  where R.State == State, R.Action == Action { OptionalReducer(wrapped: reducer) }

  public static func buildEither<First: Reducer, Second: Reducer>(
    first: First
  ) -> EitherReducer<First, Second> { .first(first) }

  public static func buildEither<First: Reducer, Second: Reducer>(
    second: Second
  ) -> EitherReducer<First, Second> { .second(second) }

  /// Two reducers run in order; their effects run together.
  public struct Sequenced<R0: Reducer, R1: Reducer>: Reducer
  where R0.State == R1.State, R0.Action == R1.Action {
    @usableFromInline let first: R0
    @usableFromInline let second: R1

    @usableFromInline
    init(first: R0, second: R1) {
      self.first = first
      self.second = second
    }

    @inlinable
    public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
      let effect = first.reduce(into: &state, action: action)
      return effect.merge(with: second.reduce(into: &state, action: action))
    }
  }

  /// A reducer that is there only when a builder `if` held.
  public struct OptionalReducer<Wrapped: Reducer>: Reducer {
    let wrapped: Wrapped?

    public func reduce(into state: inout Wrapped.State, action: Wrapped.Action) -> Effect<Wrapped.Action> {
      wrapped?.reduce(into: &state, action: action) ?? .none
    }
  }

  /// One of two reducers, chosen by a builder `if`/`else`.
  public enum EitherReducer<First: Reducer, Second: Reducer>: Reducer
  where First.State == Second.State, First.Action == Second.Action {
    case first(First)
    case second(Second)

    public func reduce(into state: inout First.State, action: First.Action) -> Effect<First.Action> {
      switch self {
      case let .first(reducer): reducer.reduce(into: &state, action: action)
      case let .second(reducer): reducer.reduce(into: &state, action: action)
      }
    }
  }
}
