import CasePaths
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
    let name = "of the case \(Action.self) given at line \(line)"
    guard
      let step = await nextReceived(
        described: name, at: location, where: { $0[case: matching] != nil },
        mismatch: { "Received unexpected action: …\n\n  Expected an action \(name)\n  Received:\n    \($0)" }
      )
    else { return }
    expect(step, matches: assert, at: location)
    await settle()
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
    await settle()
  }

  private func nextReceived(
    described name: String,
    at location: Location,
    where matches: (Action) -> Bool,
    mismatch: (Action) -> String
  ) async -> TestRuntime<State, Action>.Step? {
    let clock = ContinuousClock()
    let start = clock.now
    while true {
      let (received, inFlight) = runtime.takeReceived(skippingUnmatched: exhaustivity == .off, where: matches)
      if let received {
        if !matches(received.action) { location.report(mismatch(received.action)) }
        return received
      }
      if inFlight == 0 {
        location.report("Expected to receive an action \(name), but didn't get one.")
        return nil
      }
      if clock.now - start >= timeout {
        location.report(
          "Expected to receive an action \(name), but received none after \(timeout)."
        )
        return nil
      }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }
}
