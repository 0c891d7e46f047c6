import CasePaths
import IdentifiedCollections
import IssueReporting

/// The action of one element of a collection feature, addressed by id (never by index).
@CasePathable
public enum IdentifiedAction<ID: Hashable & Sendable, Action: Sendable>: Sendable {
  case element(id: ID, action: Action)
}

extension IdentifiedAction: Equatable where Action: Equatable {}

/// The `IdentifiedAction` of an element reducer.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable

extension Reducer where Action: CasePathable {
  /// Runs `element` on the element whose id an action carries, before this reducer runs.
  public func forEach<ElementState: Identifiable, ElementAction, Element: Reducer>(
    _ toElements: WritableKeyPath<State, IdentifiedArray<ElementState.ID, ElementState>>,
    action toElementAction: ActionCase<Action, IdentifiedAction<ElementState.ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> ForEachReducer<Self, ElementState.ID, Element>
  where Element.State == ElementState, Element.Action == ElementAction {
    ForEachReducer(
      parent: self, element: element(), toElements: toElements,
      toElementAction: Action.allCasePaths[keyPath: toElementAction],
      location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }
}

/// The reducer `forEach` returns.
public struct ForEachReducer<Parent: Reducer, ID: Hashable & Sendable, Element: Reducer>: Reducer
where Element.State: Identifiable, Element.State.ID == ID {
  let parent: Parent
  let element: Element
  let toElements: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>
  let toElementAction: AnyCasePath<Parent.Action, IdentifiedAction<ID, Element.Action>>
  let location: SourceLocation

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let effect = reduceElement(into: &state, action: action)
    return effect.merge(with: parent.reduce(into: &state, action: action))
  }

  private func reduceElement(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard case let .element(id, elementAction) = toElementAction.extract(from: action) else {
      return .none
    }
    guard state[keyPath: toElements][id: id] != nil else {
      location.report(
        #"A "forEach""#, received: "an action for an element with id \(id) that is not in the collection", action,
        causes: """
          Likely causes: the element was removed before "forEach" ran ("forEach" must come after \
          the parent's reducer), an element's effect outlived it, or the id is stale or forged.
          """
      )
      return .none
    }
    let toElementAction = toElementAction
    return element.reduce(into: &state[keyPath: toElements][id: id]!, action: elementAction)
      .map { toElementAction.embed(.element(id: id, action: $0)) }
  }
}
