/// A button of an alert or a confirmation dialog: its label, its role, and the action it sends
/// (none: it only closes the alert).
public struct ButtonState<Action>: Identifiable {
  public typealias Role = ButtonRole

  public let id: Int
  public let label: String
  public let role: Role?
  public let action: Action?

  /// - Parameter id: tells the buttons of one alert apart; their position is used by default.
  public init(role: Role? = nil, action: Action? = nil, label: String, id: Int = 0) {
    self.id = id
    self.label = label
    self.role = role
    self.action = action
  }

  public func map<NewAction>(_ transform: (Action) -> NewAction) -> ButtonState<NewAction> {
    ButtonState<NewAction>(role: role, action: action.map(transform), label: label, id: id)
  }
}

extension ButtonState: Equatable where Action: Equatable {}
extension ButtonState: Hashable where Action: Hashable {}
extension ButtonState: Sendable where Action: Sendable {}

/// Numbers buttons by position, so that two with the same label stay apart.
func numbered<Action>(_ buttons: [ButtonState<Action>]) -> [ButtonState<Action>] {
  buttons.enumerated().map { ButtonState(role: $1.role, action: $1.action, label: $1.label, id: $0) }
}

/// What a button does, as far as its look goes.
public enum ButtonRole: String, Sendable, Hashable {
  /// Closes without doing anything.
  case cancel
  /// Does something that cannot be undone, such as deleting.
  case destructive
}
