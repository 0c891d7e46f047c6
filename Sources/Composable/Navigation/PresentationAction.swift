import CasePaths

/// The actions of a presented child: its own, or its dismissal by the parent or by the user.
@CasePathable
public enum PresentationAction<Action: Sendable>: Sendable {
  /// The child is closed; its running effects are cancelled.
  case dismiss
  /// An action of the presented child.
  indirect case presented(Action)
}

extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Hashable where Action: Hashable {}
