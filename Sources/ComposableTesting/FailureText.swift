import Composable
import CustomDump
import IssueReporting

/// Where a test step was written, for the issues it reports.
struct Location: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  func report(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Reports what a non-exhaustive test skipped as a known issue, under
  /// `.off(showSkippedAssertions: true)` only: it does not fail the test.
  func reportSkipped(_ message: String, if exhaustivity: Exhaustivity) {
    guard case .off(showSkippedAssertions: true) = exhaustivity else { return }
    withExpectedIssue(isIntermittent: true, fileID: fileID, filePath: filePath, line: line, column: column) {
      report("Skipped assertions.\n\n\(message)")
    }
  }
}

/// Diffs read "−expected / +actual", as TCA's do.
let minusPlus = DiffFormat(first: "\u{2212}", second: "+", both: " ")

func plural(_ count: Int, _ noun: String) -> String {
  count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
}

func list(_ actions: [some Any]) -> String {
  actions.map { action in
    var dumped = ""
    customDump(action, to: &dumped)
    return dumped.indented(by: 4)
  }
  .joined(separator: "\n")
}

extension String {
  func indented(by count: Int) -> String {
    let prefix = String(repeating: " ", count: count)
    return split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : prefix + $0 }
      .joined(separator: "\n")
  }
}

extension PresentationState: CustomDumpRepresentable {
  // A failure's diff shows what is presented, not the wrapper around it.
  public var customDumpValue: Any { wrappedValue as Any }
}
