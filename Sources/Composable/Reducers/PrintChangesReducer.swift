import CustomDump

extension Reducer {
  /// This reducer, each action it receives and the change of state it made written out by
  /// `printer` (`nil`: nothing), as TCA's `_printChanges()`: for following a feature while
  /// developing it. The default writes to standard output; a server passes its log's
  /// (`.customDump(to:)`).
  ///
  /// Unlike TCA, which writes from an effect on a queue of its own, the change is written as the
  /// action is reduced: a request's store runs to its end before answering, and an effect per
  /// action would start work on every action. Values that must never be written describe
  /// themselves (`CustomDumpStringConvertible`), as a password does.
  public func _printChanges(_ printer: ChangePrinter<State, Action>? = .customDump()) -> PrintChangesReducer<Self> {
    PrintChangesReducer(base: self, printer: printer)
  }
}

/// How `_printChanges` writes a change.
public struct ChangePrinter<State, Action>: Sendable {
  public let printChange: @Sendable (_ receivedAction: Action, _ oldState: State, _ newState: State) -> Void

  public init(printChange: @escaping @Sendable (_ receivedAction: Action, _ oldState: State, _ newState: State) -> Void) {
    self.printChange = printChange
  }

  /// The action dumped, then the state's diff (`−` before, `+` after) or "(No state changes)",
  /// as one text handed to `write`.
  public static func customDump(to write: @escaping @Sendable (String) -> Void = { print($0) }) -> Self {
    Self { action, old, new in
      var text = "received action:\n"
      CustomDump.customDump(action, to: &text, indent: 2)
      text += "\n"
      text += diff(old, new, format: DiffFormat(first: "\u{2212}", second: "+", both: " ")) ?? "  (No state changes)"
      write(text)
    }
  }

  /// Only each action's case path (`AppFeature.Action.surveyList(.pageRequested)`): no state.
  public static func actionLabels(to write: @escaping @Sendable (String) -> Void = { print($0) }) -> Self {
    Self { action, _, _ in
      var text = "received action: "
      CustomDump.customDump(action, to: &text, maxDepth: 1)
      write(text)
    }
  }
}

/// The reducer `_printChanges` returns.
public struct PrintChangesReducer<Base: Reducer>: Reducer {
  @usableFromInline let base: Base
  @usableFromInline let printer: ChangePrinter<Base.State, Base.Action>?

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    guard let printer else { return base.reduce(into: &state, action: action) }
    let old = state
    let effect = base.reduce(into: &state, action: action)
    printer.printChange(action, old, state)
    return effect
  }
}

extension PrintChangesReducer: Sendable where Base: Sendable {}
