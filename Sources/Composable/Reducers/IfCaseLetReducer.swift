import CasePaths

extension Reducer where State: CasePathable, Action: CasePathable {
  /// Runs `child` on one case of an enum state while the state is in that case, before this
  /// reducer runs: `.ifCaseLet(\.signedIn, action: \.signedIn) { SignedIn() }`.
  ///
  /// When this reducer moves the state to another case, the child's effects are cancelled. A
  /// child action that arrives while the state is in another case changes nothing and is
  /// reported: on a server, a stale or forged request, or an effect that outlived its case.
  public func ifCaseLet<CaseState, CaseAction, Case: Reducer>(
    _ toCaseState: StateCase<State, CaseState>,
    action toCaseAction: ActionCase<Action, CaseAction>,
    @ReducerBuilder<CaseState, CaseAction> then child: () -> Case,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> IfCaseLetReducer<Self, Case> where Case.State == CaseState, Case.Action == CaseAction {
    IfCaseLetReducer(
      parent: self, child: child(), toCaseState: State.allCasePaths[keyPath: toCaseState],
      toCaseAction: Action.allCasePaths[keyPath: toCaseAction], effectID: EffectID(unchecked: toCaseState as AnyKeyPath),
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer `ifCaseLet` returns.
public struct IfCaseLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let child: Child
  @usableFromInline let toCaseState: AnyCasePath<Parent.State, Child.State>
  @usableFromInline let toCaseAction: AnyCasePath<Parent.Action, Child.Action>
  /// The id the child's effects run under, cancelled when the state leaves the case.
  @usableFromInline let effectID: EffectID
  let location: SourceLocation

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let wasInCase = toCaseState.extract(from: state) != nil
    let childEffect = reduceChild(into: &state, action: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    let left = wasInCase && toCaseState.extract(from: state) == nil
    return childEffect
      .merge(with: parentEffect)
      .merge(with: left ? Effect(operations: [.cancel(effectID)]) : .none)
  }

  private func reduceChild(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard let childAction = toCaseAction.extract(from: action) else { return .none }
    guard var childState = toCaseState.extract(from: state) else {
      location.report(
        #"An "ifCaseLet""#, received: "a child action while its state was in another case", action,
        causes: """
          Likely causes:
          • A parent reducer changed the case before "ifCaseLet" ran: "ifCaseLet" must wrap the \
          parent's reducer so that the child sees its actions first.
          • An effect of the child sent this action after the state left its case.
          • The action was sent while the state was in another case: a stale or forged request.
          """
      )
      return .none
    }
    let effect = child.reduce(into: &childState, action: childAction)
    state = toCaseState.embed(childState)
    let toCaseAction = toCaseAction
    return effect.map { toCaseAction.embed($0) }.cancellable(id: effectID)
  }
}
extension IfCaseLetReducer: Sendable where Parent: Sendable, Child: Sendable {}
