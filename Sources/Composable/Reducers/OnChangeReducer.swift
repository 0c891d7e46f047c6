extension Reducer {
  /// Runs `perform` after this reducer whenever it changed the value `toValue` reads, with the
  /// value from before the action; `perform`'s effect is merged with this reducer's.
  ///
  /// What would otherwise be repeated in every action that can change the value is said once:
  ///
  ///     Reduce { state, action in … }
  ///       .onChange(of: \.draft) { _, state in
  ///         state.errors = state.draft.isChecked ? state.draft.errors : [:]
  ///         return .none
  ///       }
  ///
  /// As in TCA, only changes made by the reducer it is attached to are seen (a parent that
  /// changes the value after it runs is not), and `toValue` is read twice per action, so it
  /// should be cheap to read and to compare.
  public func onChange<Value: Equatable>(
    of toValue: @escaping @Sendable (State) -> Value,
    _ perform: @escaping @Sendable (_ oldValue: Value, _ state: inout State) -> Effect<Action>
  ) -> OnChangeReducer<Self, Value> {
    OnChangeReducer(base: self, toValue: toValue, perform: perform)
  }
}

/// The reducer `onChange(of:_:)` returns.
public struct OnChangeReducer<Base: Reducer, Value: Equatable>: Reducer {
  @usableFromInline let base: Base
  @usableFromInline let toValue: @Sendable (Base.State) -> Value
  @usableFromInline let perform: @Sendable (Value, inout Base.State) -> Effect<Base.Action>

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let old = toValue(state)
    let effect = base.reduce(into: &state, action: action)
    guard toValue(state) != old else { return effect }
    return effect.merge(with: perform(old, &state))
  }
}

extension OnChangeReducer: Sendable where Base: Sendable {}
