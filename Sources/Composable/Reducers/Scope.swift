import CasePaths

/// Runs a child reducer on a part of the parent's state, for the parent's actions that carry a
/// child action. The child's effects send parent actions.
///
/// The part is a property (`Scope(state: \.counter, action: \.counter)`), or, for a destination
/// enum, one of its cases (`Scope(state: \.addContact, action: \.addContact)`): the child then runs
/// only while the state is in that case.
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  @usableFromInline
  enum Part {
    case property(WritableKeyPath<ParentState, Child.State>)
    case enumCase(AnyCasePath<ParentState, Child.State>)
  }

  @usableFromInline let toChildState: Part
  @usableFromInline let toChildAction: AnyCasePath<ParentAction, Child.Action>
  @usableFromInline let child: Child

  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: ActionCase<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action, ParentAction: CasePathable {
    self.toChildState = .property(toChildState)
    self.toChildAction = ParentAction.allCasePaths[keyPath: toChildAction]
    self.child = child()
  }

  public init<ChildState, ChildAction>(
    state toChildState: StateCase<ParentState, ChildState>,
    action toChildAction: ActionCase<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action, ParentState: CasePathable, ParentAction: CasePathable {
    self.toChildState = .enumCase(ParentState.allCasePaths[keyPath: toChildState])
    self.toChildAction = ParentAction.allCasePaths[keyPath: toChildAction]
    self.child = child()
  }

  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    let toChildAction = toChildAction
    switch toChildState {
    case let .property(keyPath):
      return child.reduce(into: &state[keyPath: keyPath], action: childAction)
        .map { toChildAction.embed($0) }
    case let .enumCase(casePath):
      // An action for a case the state is not in (the destination changed) changes nothing.
      guard var childState = casePath.extract(from: state) else { return .none }
      let effect = child.reduce(into: &childState, action: childAction)
      state = casePath.embed(childState)
      return effect.map { toChildAction.embed($0) }
    }
  }
}
