/// An alert as data: a title, a message and buttons, each with the action it sends. A feature
/// presents one by setting it in its state; a phone shows it as an alert, the web shell as a
/// confirmation page whose buttons are forms.
public struct AlertState<Action>: EphemeralState {
  public var title: String
  public var message: String?
  public var buttons: [ButtonState<Action>]

  /// With no buttons, the alert has one that only closes it ("OK").
  public init(title: String, message: String? = nil, buttons: [ButtonState<Action>] = []) {
    self.title = title
    self.message = message
    self.buttons = numbered(buttons)
  }

  public func map<NewAction>(_ transform: (Action) -> NewAction) -> AlertState<NewAction> {
    AlertState<NewAction>(title: title, message: message, buttons: buttons.map { $0.map(transform) })
  }
}

extension AlertState: Equatable where Action: Equatable {}
extension AlertState: Hashable where Action: Hashable {}
extension AlertState: Sendable where Action: Sendable {}
