/// A stack of pushed features, each addressed by a `StackElementID` that stays its own while it
/// is on the stack (never an index): a list → detail → edit drill-down.
public struct StackState<Element> {
  private var ids: [StackElementID] = []
  private var elements: [StackElementID: Element] = [:]
  /// The id the next push gets. Part of the value, so that a test's expected state pushes with
  /// the same ids as the store's; not compared.
  private var nextID = 0

  public init() {}

  public init(_ elements: some Sequence<Element>) {
    for element in elements { append(element) }
  }

  /// The ids of the elements, bottom first.
  public var elementIDs: [StackElementID] { ids }

  /// The element with `id`, if it is on the stack. Setting `nil` pops it and everything above it.
  public subscript(id id: StackElementID) -> Element? {
    get { elements[id] }
    set {
      guard let newValue else { return pop(from: id) }
      if elements[id] == nil {
        ids.append(id)
        nextID = Swift.max(nextID, id.rawValue + 1)
      }
      elements[id] = newValue
    }
  }

  /// Pushes an element on top.
  public mutating func append(_ element: Element) {
    self[id: StackElementID(rawValue: nextID)] = element
  }

  /// Pops the element with `id` and everything above it.
  public mutating func pop(from id: StackElementID) {
    guard let index = ids.firstIndex(of: id) else { return }
    for removed in ids[index...] { elements[removed] = nil }
    ids.removeSubrange(index...)
  }

  /// Pops everything above the element with `id`.
  public mutating func pop(to id: StackElementID) {
    guard let index = ids.firstIndex(of: id), index + 1 < ids.count else { return }
    pop(from: ids[index + 1])
  }

  /// Pops the top element.
  @discardableResult
  public mutating func popLast() -> Element? {
    guard let id = ids.last else { return nil }
    defer { pop(from: id) }
    return elements[id]
  }
}

extension StackState: RandomAccessCollection {
  public var startIndex: Int { ids.startIndex }
  public var endIndex: Int { ids.endIndex }
  public subscript(position: Int) -> Element { elements[ids[position]]! }
}

extension StackState: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension StackState: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.ids == rhs.ids && lhs.elements == rhs.elements
  }
}

extension StackState: Sendable where Element: Sendable {}

extension StackState: CustomStringConvertible {
  public var description: String {
    "StackState(" + ids.map { "#\($0.rawValue): \(elements[$0]!)" }.joined(separator: ", ") + ")"
  }
}

/// The id of an element of a `StackState`, given when it is pushed.
public struct StackElementID: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
  public let rawValue: Int

  public init(rawValue: Int) { self.rawValue = rawValue }
  public init(integerLiteral value: Int) { self.rawValue = value }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
  public var description: String { "#\(rawValue)" }
}
