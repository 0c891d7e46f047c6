/// A child feature presented by its parent, or `nil` when nothing is: a sheet, an alert, a
/// destination reached from a list. Declared `@Presents var destination: Destination.State?`;
/// the parent integrates the child with `ifLet(\.$destination, action: \.destination)`, which
/// cancels the child's running effects when it is dismissed.
@propertyWrapper
public struct PresentationState<State> {
  public var wrappedValue: State?

  public init(wrappedValue: State?) {
    self.wrappedValue = wrappedValue
  }

  /// `$destination`: what `ifLet` scopes to.
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
  }
}

/// `@Presents var destination: Destination.State?`, as TCA writes it.
public typealias Presents = PresentationState

extension PresentationState: Equatable where State: Equatable {}
extension PresentationState: Hashable where State: Hashable {}
extension PresentationState: Sendable where State: Sendable {}

/// Presented state that goes away by itself once the user has chosen one of its buttons: alerts
/// and confirmation dialogs.
public protocol EphemeralState {}

/// Whether `state` is ephemeral, directly or as the payload of a destination enum's case.
func isEphemeral(_ state: Any) -> Bool {
  if state is any EphemeralState { return true }
  let mirror = Mirror(reflecting: state)
  guard mirror.displayStyle == .enum, let payload = mirror.children.first?.value else { return false }
  return payload is any EphemeralState
}
