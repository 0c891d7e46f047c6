import CasePaths
import Dependencies
import IssueReporting

extension Reducer where Action: CasePathable {
  /// Runs `destination` on presented child state while it is present, before this reducer runs,
  /// and manages its life: its actions reach neither it nor the parent while nothing is presented; `.dismiss` closes it after the parent has seen it, an alert or dialog
  /// closes once one of its buttons is chosen, and whenever the child goes away (dismissed, set to
  /// `nil` by the parent, or replaced by another case of a destination enum) its running effects
  /// are cancelled.
  public func ifLet<DestinationState, DestinationAction, Destination: Reducer>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: ActionCase<Action, PresentationAction<DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> PresentationReducer<Self, Destination>
  where Destination.State == DestinationState, Destination.Action == DestinationAction {
    PresentationReducer(
      parent: self, destination: destination(), toPresentationState: toPresentationState,
      toPresentationAction: Action.allCasePaths[keyPath: toPresentationAction],
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// `ifLet` for presented state without logic of its own, such as an alert.
  public func ifLet<DestinationState, DestinationAction>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: ActionCase<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> PresentationReducer<Self, EmptyReducer<DestinationState, DestinationAction>> {
    ifLet(
      toPresentationState, action: toPresentationAction, destination: { EmptyReducer() },
      fileID: fileID, filePath: filePath, line: line, column: column
    )
  }
}

/// The reducer `ifLet` over `PresentationState` returns.
public struct PresentationReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  let parent: Parent
  let destination: Destination
  let toPresentationState: WritableKeyPath<Parent.State, PresentationState<Destination.State>>
  let toPresentationAction: AnyCasePath<Parent.Action, PresentationAction<Destination.Action>>
  let location: SourceLocation

  /// The id the presented child's effects run under, cancelled when it goes away.
  var effectID: EffectID { EffectID(unchecked: toPresentationState as AnyKeyPath) }

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let presentationAction = toPresentationAction.extract(from: action)
    let presentedBefore = state[keyPath: toPresentationState].wrappedValue
    let wasPresented = presentedBefore != nil
    var destinationEffect = Effect<Parent.Action>.none
    switch presentationAction {
    case let .presented(destinationAction)?:
      if wasPresented {
        let toPresentationAction = toPresentationAction
        // The child's `dismiss` sends the parent this presentation's `.dismiss`.
        let target = DismissTarget(dismissal: toPresentationAction.embed(.dismiss))
        let childEffect = withDependencies {
          $0.dismiss = DismissEffect { await target.dismiss() }
        } operation: {
          destination.reduce(into: &state[keyPath: toPresentationState].wrappedValue!, action: destinationAction)
        }
        destinationEffect = target.handing(childEffect.map { toPresentationAction.embed(.presented($0)) })
          .cancellable(id: effectID)
      } else {
        // Nor does the parent see it: a choice from an alert no longer shown (a stale or forged
        // request) must not act.
        report(action, "a child action while nothing was presented")
        return .none
      }
    case .dismiss?:
      guard wasPresented else {
        report(action, "a dismissal while nothing was presented")
        return .none
      }
    case nil:
      break
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    switch presentationAction {
    case .dismiss?:
      state[keyPath: toPresentationState].wrappedValue = nil
    case .presented?:
      if let presented = state[keyPath: toPresentationState].wrappedValue, isEphemeral(presented) {
        state[keyPath: toPresentationState].wrappedValue = nil
      }
    case nil:
      break
    }
    let presentedAfter = state[keyPath: toPresentationState].wrappedValue
    // Gone, or replaced by another of the destination's cases: the old child's work stops.
    let dismissed = presentedBefore.map { before in presentedAfter.map { !sameCase(before, $0) } ?? true } ?? false
    return destinationEffect
      .merge(with: parentEffect)
      .merge(with: dismissed ? Effect(operations: [.cancel(effectID)]) : .none)
  }

  /// Whether two presented states are the same case of a destination enum (any two values of a
  /// struct are: only its dismissal ends it).
  private func sameCase(_ lhs: Destination.State, _ rhs: Destination.State) -> Bool {
    let (left, right) = (Mirror(reflecting: lhs), Mirror(reflecting: rhs))
    guard left.displayStyle == .enum else { return true }
    return (left.children.first?.label ?? "\(lhs)") == (right.children.first?.label ?? "\(rhs)")
  }

  private func report(_ action: Parent.Action, _ what: String) {
    location.report(
      #"An "ifLet""#, received: what, action,
      causes: """
        Likely causes: the child was dismissed before this action arrived (an effect outlived it, \
        or the request is stale or forged), or "ifLet" runs before a parent reducer that presents it.
        """
    )
  }
}
