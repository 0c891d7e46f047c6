import CasePaths

/// Runs a child reducer on a part of the parent's state, for the parent's actions that carry a
/// child action. The child's effects send parent actions.
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  @usableFromInline let toChildState: WritableKeyPath<ParentState, Child.State>
  @usableFromInline let toChildAction: AnyCasePath<ParentAction, Child.Action>
  @usableFromInline let child: Child

  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: ActionCase<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action, ParentAction: CasePathable {
    self.toChildState = toChildState
    self.toChildAction = ParentAction.allCasePaths[keyPath: toChildAction]
    self.child = child()
  }

  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    let toChildAction = toChildAction
    return child.reduce(into: &state[keyPath: toChildState], action: childAction)
      .map { toChildAction.embed($0) }
  }
}
