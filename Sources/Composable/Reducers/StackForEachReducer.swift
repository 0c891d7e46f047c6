import CasePaths
import IssueReporting

extension Reducer where Action: CasePathable {
  /// Runs `destination` on the element of a stack an action addresses, before this reducer runs;
  /// after it, applies pushes and pops. An action for an element not on the stack reaches neither. Whenever an element leaves the stack, its running effects
  /// are cancelled.
  public func forEach<ElementState, ElementAction, Element: Reducer>(
    _ toStack: WritableKeyPath<State, StackState<ElementState>>,
    action toStackAction: ActionCase<Action, StackAction<ElementState, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> destination: () -> Element,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> StackForEachReducer<Self, Element> where Element.State == ElementState, Element.Action == ElementAction {
    StackForEachReducer(
      parent: self, element: destination(), toStack: toStack,
      toStackAction: Action.allCasePaths[keyPath: toStackAction],
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer `forEach` over a `StackState` returns.
public struct StackForEachReducer<Parent: Reducer, Element: Reducer>: Reducer {
  let parent: Parent
  let element: Element
  let toStack: WritableKeyPath<Parent.State, StackState<Element.State>>
  let toStackAction: AnyCasePath<Parent.Action, StackAction<Element.State, Element.Action>>
  let location: SourceLocation

  /// The id an element's effects run under, cancelled when it leaves the stack.
  func effectID(_ id: StackElementID) -> EffectID {
    EffectID(unchecked: [AnyHashable(toStack as AnyKeyPath), AnyHashable(id)])
  }

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let stackAction = toStackAction.extract(from: action)
    let idsBefore = state[keyPath: toStack].elementIDs
    var elementEffect = Effect<Parent.Action>.none
    if case let .element(id, elementAction)? = stackAction {
      if state[keyPath: toStack][id: id] != nil {
        let toStackAction = toStackAction
        elementEffect = element
          .reduce(into: &state[keyPath: toStack][id: id]!, action: elementAction)
          .map { toStackAction.embed(.element(id: id, action: $0)) }
          .cancellable(id: effectID(id))
      } else {
        report(action, "an action for element \(id), which is not on the stack")
        return .none
      }
    }
    if case let .popFrom(id)? = stackAction, state[keyPath: toStack][id: id] == nil {
      report(action, "a pop of element \(id), which is not on the stack")
      return .none
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    switch stackAction {
    case let .popFrom(id)?:
      state[keyPath: toStack].pop(from: id)
    case let .push(id, elementState)?:
      if let top = state[keyPath: toStack].elementIDs.last, id <= top {
        report(action, "a push with id \(id), not above the top element \(top)")
      } else {
        state[keyPath: toStack][id: id] = elementState
      }
    case .element?, nil:
      break
    }
    let idsAfter = Set(state[keyPath: toStack].elementIDs)
    let cancellations = idsBefore.filter { !idsAfter.contains($0) }.map { Effect<Parent.Action>.Operation.cancel(effectID($0)) }
    return elementEffect
      .merge(with: parentEffect)
      .merge(with: Effect(operations: cancellations))
  }

  private func report(_ action: Parent.Action, _ what: String) {
    location.report(
      #"A "forEach""#, received: what, action,
      causes: """
        Likely causes: the element was popped before this action arrived (an effect outlived it, \
        or the request is stale or forged).
        """
    )
  }
}
