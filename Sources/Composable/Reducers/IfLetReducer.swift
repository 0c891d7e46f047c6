import CasePaths
import IssueReporting

extension Reducer where Action: CasePathable {
  /// Runs `child` on optional child state while it is present, before this reducer runs.
  ///
  /// A child action that arrives while the child state is `nil` changes nothing and is reported:
  /// it is a logic error in the feature.
  public func ifLet<ChildState, ChildAction, Child: Reducer>(
    _ toChildState: WritableKeyPath<State, ChildState?>,
    action toChildAction: ActionCase<Action, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> then child: () -> Child,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> IfLetReducer<Self, Child> where Child.State == ChildState, Child.Action == ChildAction {
    IfLetReducer(
      parent: self, child: child(), toChildState: toChildState,
      toChildAction: Action.allCasePaths[keyPath: toChildAction],
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// `ifLet` for child state that has no logic of its own, such as a confirmation dialog.
  public func ifLet<ChildState, ChildAction>(
    _ toChildState: WritableKeyPath<State, ChildState?>,
    action toChildAction: ActionCase<Action, ChildAction>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> IfLetReducer<Self, EmptyReducer<ChildState, ChildAction>> {
    ifLet(
      toChildState, action: toChildAction, then: { EmptyReducer() },
      fileID: fileID, filePath: filePath, line: line, column: column
    )
  }
}

/// The reducer `ifLet` returns.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let child: Child
  @usableFromInline let toChildState: WritableKeyPath<Parent.State, Child.State?>
  @usableFromInline let toChildAction: AnyCasePath<Parent.Action, Child.Action>
  let location: SourceLocation

  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let effect = reduceChild(into: &state, action: action)
    return effect.merge(with: parent.reduce(into: &state, action: action))
  }

  @inlinable
  func reduceChild(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard let childAction = toChildAction.extract(from: action) else { return .none }
    guard state[keyPath: toChildState] != nil else {
      reportChildActionWhileNil(action)
      return .none
    }
    let toChildAction = toChildAction
    return child.reduce(into: &state[keyPath: toChildState]!, action: childAction)
      .map { toChildAction.embed($0) }
  }

  @usableFromInline
  func reportChildActionWhileNil(_ action: Parent.Action) {
    location.report(
      #"An "ifLet""#, received: "a child action while its child state was nil", action,
      causes: """
        Likely causes:
        • A parent reducer set the child state to nil before "ifLet" ran: "ifLet" must come \
        after the parent's reducer in "body" so that the child sees its actions first.
        • An effect of the child sent this action after the child state was set to nil.
        • The action was sent while the child state was nil: a stale or forged request.
        """
    )
  }
}

/// Where an operator was written, for the issues it reports.
struct SourceLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// Reports that the operator written here ignored `action`, which it received as `what`, with
  /// the likely causes.
  func report(_ name: String, received what: String, _ action: Any, causes: String) {
    reportIssue(
      """
      \(name) at "\(fileID):\(line)" received \(what), and ignored it.

        Action:
          \(action)

      \(causes)
      """,
      fileID: fileID, filePath: filePath, line: line, column: column
    )
  }
}
