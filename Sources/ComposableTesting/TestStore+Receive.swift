import CasePaths
import Foundation
import Composable
import CustomDump

extension TestStore {
  /// Receives the next action an effect sent, which must be of the case `matching` names, and
  /// checks the state change `assert` describes.
  public func receive<Value>(
    _ matching: CaseKeyPath<Action, Value>,
    assert: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: CasePathable {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    lastStep = location
    let name = "of the case \(caseName(matching, filePath: filePath, line: line))"
    guard
      let step = await nextReceived(
        described: name, at: location, where: { $0[case: matching] != nil },
        mismatch: { "Received unexpected action: …\n\n  Expected an action \(name)\n  Received:\n    \($0)" }
      )
    else { return }
    expect(step, matches: assert, at: location)
    await executor.idle()
    reportOverruns()
  }

  /// Receives the next action an effect sent, which must equal `expected`, and checks the state
  /// change `assert` describes.
  public func receive(
    _ expected: Action,
    assert: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: Equatable {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    lastStep = location
    guard
      let step = await nextReceived(
        described: "\(expected)", at: location, where: { $0 == expected },
        mismatch: { received in
          let difference = diff(expected, received, format: minusPlus).map { $0.indented(by: 4) } ?? "    \(received)"
          return "Received unexpected action: …\n\n\(difference)\n\n(Expected: −, Received: +)"
        }
      )
    else { return }
    expect(step, matches: assert, at: location)
    await executor.idle()
    reportOverruns()
  }

  private func nextReceived(
    described name: String,
    at location: Location,
    where matches: (Action) -> Bool,
    mismatch: (Action) -> String
  ) async -> TestLog<State, Action>.Step? {
    while true {
      await executor.idle()
      let events = log.eventCount
      if let (received, skipped) = log.takeReceived(skippingUnmatched: exhaustivity != .on, where: matches) {
        if !skipped.isEmpty { location.reportSkipped(skippedActions(skipped.map(\.action)), if: exhaustivity) }
        if !matches(received.action) { location.report(mismatch(received.action)) }
        return received
      }
      if unfinished.isEmpty {
        location.report("Expected to receive an action \(name), but didn't get one.")
        return nil
      }
      guard await waitForEvent(after: events) else {
        location.report("Expected to receive an action \(name), but received none after \(timeout).")
        return nil
      }
    }
  }
}

/// How a test names the case it expects: the key path as the test wrote it (`\.numberFactResponse`).
/// On Linux a case key path describes itself without its case's name, so the name is read from
/// the test's source line; a test whose source is not at hand gets its line number.
func caseName(_ keyPath: AnyKeyPath, filePath: StaticString, line: UInt) -> String {
  let description = String(describing: keyPath)
  guard description.contains("<computed") else { return description }
  guard
    let source = try? String(contentsOfFile: "\(filePath)", encoding: .utf8),
    let text = source.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(Int(line) - 1).first,
    let start = text.firstIndex(of: "\\")
  else { return "given at line \(line)" }
  var depth = 0
  let expression = text[start...].prefix { character in
    if character == "[" { depth += 1 }
    if character == "]" { depth -= 1 }
    return depth > 0 || !" ,){".contains(character)
  }
  return String(expression)
}
