/// A choice among actions as data (an action sheet): a title, an optional message and buttons,
/// each with the action it sends. Shown like an alert; on the web, as a confirmation page.
public struct ConfirmationDialogState<Action>: EphemeralState {
  public typealias TitleVisibility = DialogTitleVisibility

  public var title: String
  public var titleVisibility: TitleVisibility
  public var message: String?
  public var buttons: [ButtonState<Action>]

  public init(
    title: String, titleVisibility: TitleVisibility = .automatic, message: String? = nil,
    buttons: [ButtonState<Action>]
  ) {
    self.title = title
    self.titleVisibility = titleVisibility
    self.message = message
    self.buttons = numbered(buttons)
  }

  public func map<NewAction>(_ transform: (Action) -> NewAction) -> ConfirmationDialogState<NewAction> {
    ConfirmationDialogState<NewAction>(
      title: title, titleVisibility: titleVisibility, message: message, buttons: buttons.map { $0.map(transform) }
    )
  }
}

extension ConfirmationDialogState: Equatable where Action: Equatable {}
extension ConfirmationDialogState: Hashable where Action: Hashable {}
extension ConfirmationDialogState: Sendable where Action: Sendable {}

/// Whether a confirmation dialog shows its title.
public enum DialogTitleVisibility: Sendable, Hashable {
  case automatic, hidden, visible
}
