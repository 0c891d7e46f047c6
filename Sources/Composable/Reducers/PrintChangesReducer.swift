extension Reducer {
  /// This reducer, each action it receives and the change of state it made written out by
  /// `printer` (`nil`: nothing), as TCA's `_printChanges()`: for following a feature while
  /// developing it. The default writes to standard output; a server passes its log's
  /// (`.dump(to:)`).
  ///
  /// Unlike TCA, which writes from an effect on a queue of its own, the change is written as the
  /// action is reduced: a request's store runs to its end before answering, and an effect per
  /// action would start work on every action. Values are written as the standard library's
  /// `dump` shows them (TCA uses CustomDump; see `dump(to:)` for why not here): values that must
  /// never be written hide their fields (`CustomReflectable`) and describe themselves, as a
  /// password does.
  public func _printChanges(_ printer: ChangePrinter<State, Action>? = .dump()) -> PrintChangesReducer<Self> {
    PrintChangesReducer(base: self, printer: printer)
  }
}

/// How `_printChanges` writes a change.
public struct ChangePrinter<State, Action>: Sendable {
  public let printChange: @Sendable (_ receivedAction: Action, _ oldState: State, _ newState: State) -> Void

  public init(printChange: @escaping @Sendable (_ receivedAction: Action, _ oldState: State, _ newState: State) -> Void) {
    self.printChange = printChange
  }

  /// The action dumped, then the lines of the state's dump that changed (`−` before, `+` after),
  /// each under the lines that hold it, or "(No state changes)", as one text handed to `write`.
  ///
  /// On the standard library's `dump`, not CustomDump's: the server links no CustomDump, which
  /// (with a trait that swift-snapshot-testing turns on for the whole package graph) brings
  /// FoundationNetworking and libcurl's 25 libraries into the process, 5.5 MB more at start
  /// (BENCHMARKS.md, P4). The tests' `TestStore` still diffs with CustomDump. Unlike CustomDump's,
  /// `dump` writes a dictionary's entries in its storage order, which changes when it grows: its
  /// entries may then show as removed and written again.
  public static func dump(to write: @escaping @Sendable (String) -> Void = { print($0) }) -> Self {
    Self { action, old, new in
      var text = "received action:\n"
      Swift.dump(action, to: &text, indent: 2)
      var before = "", after = ""
      Swift.dump(old, to: &before)
      Swift.dump(new, to: &after)
      text += changedLines(from: before, to: after) ?? "  (No state changes)\n"
      write(String(text.dropLast()))
    }
  }

  /// Only each action's case (`PointApp.AppFeature.Action.surveyList`): no payload, no state.
  public static func actionLabels(to write: @escaping @Sendable (String) -> Void = { print($0) }) -> Self {
    Self { action, _, _ in
      var text = ""
      Swift.dump(action, to: &text, maxDepth: 0)
      write("received action: " + text.dropFirst(2).prefix { $0 != "\n" && $0 != "(" })
    }
  }
}

/// The lines of the dump `after` that are not in `before` (`+`) and those of `before` it lost
/// (`−`), in the dump's order (of two waiting, the removed line first unless the added one is
/// deeper, and so inside what came before it), each preceded once by the unchanged lines that
/// enclose it (its parents, by indentation); `nil` when nothing changed. A diff of lines (the
/// standard library's `difference`), not of values as CustomDump's: a change may pair with a
/// like line elsewhere.
func changedLines(from before: String, to after: String) -> String? {
  let (old, new) = (before.split(separator: "\n"), after.split(separator: "\n"))
  let difference = new.difference(from: old)
  guard !difference.isEmpty else { return nil }
  var removed = Set<Int>(), inserted = Set<Int>()
  for change in difference {
    switch change {
    case let .remove(offset, _, _): removed.insert(offset)
    case let .insert(offset, _, _): inserted.insert(offset)
    }
  }
  func indentation(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
  var text = ""
  /// The unchanged lines that may hold what comes next, each deeper than the one before it.
  var parents: [(line: Substring, shown: Bool)] = []
  func write(_ mark: String, _ line: Substring) {
    let depth = indentation(line)
    for index in parents.indices where !parents[index].shown && indentation(parents[index].line) < depth {
      text += "  " + parents[index].line + "\n"
      parents[index].shown = true
    }
    text += mark + " " + line + "\n"
  }
  /// `line` holds what follows it until a line as shallow; `shown`: written already.
  func enter(_ line: Substring, shown: Bool) {
    while let last = parents.last, indentation(last.line) >= indentation(line) { parents.removeLast() }
    parents.append((line, shown))
  }
  var (i, j) = (0, 0)
  while i < old.count || j < new.count {
    let removing = i < old.count && removed.contains(i), inserting = j < new.count && inserted.contains(j)
    if removing, !inserting || indentation(old[i]) >= indentation(new[j]) {
      write("\u{2212}", old[i])
      // Gone from the new dump: it holds nothing that follows, but ends what it closes.
      while let last = parents.last, indentation(last.line) >= indentation(old[i]) { parents.removeLast() }
      i += 1
    } else if inserting {
      write("+", new[j])
      enter(new[j], shown: true)
      j += 1
    } else {
      enter(new[j], shown: false)
      (i, j) = (i + 1, j + 1)
    }
  }
  return text
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
