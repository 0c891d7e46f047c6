import CasePaths

/// The actions of a `StackState`: an element's own, a push, or a pop.
@CasePathable
public enum StackAction<State, Action: Sendable> {
  /// An action of the element with `id`.
  indirect case element(id: StackElementID, action: Action)
  /// Pops the element with `id` and everything above it; their running effects are cancelled.
  case popFrom(id: StackElementID)
  /// Pushes `state` with `id` (the next id of the stack).
  indirect case push(id: StackElementID, state: State)
}

extension StackAction: Sendable where State: Sendable {}
extension StackAction: Equatable where State: Equatable, Action: Equatable {}

/// The `StackAction` of an element reducer.
public typealias StackActionOf<R: Reducer> = StackAction<R.State, R.Action>

extension Case {
  /// The actions of one element of a stack, by id: `receive(\.path[id: 0].delegate)`.
  public subscript<ElementState, ElementAction>(id id: StackElementID) -> Case<ElementAction>
  where Value == StackAction<ElementState, ElementAction> {
    Case<ElementAction>(
      embed: { [self] action -> Any in self._embed(.element(id: id, action: action)) },
      extract: { [self] (root: Any) -> ElementAction? in
        guard case let .element(elementID, action)? = self._extract(from: root), elementID == id else { return nil }
        return action
      }
    )
  }
}
