import Foundation

/// What an operator is there to do: each role reaches its own parts of the console and nothing
/// else (a route outside them answers 403).
public enum OperatorRole: String, Codable, CaseIterable, Sendable {
  /// 管理者: manages operators and reads the audit log; reaches every part of the console.
  case administrator
  /// 編集: the catalog (writing, publishing and closing surveys) and its dashboards.
  case editor
  /// サポート: the support desk, and approving another operator's large adjustments.
  case support
  /// 分析: the dashboards and the exports of answers.
  case analyst

  public var title: String {
    switch self {
    case .administrator: "管理者"
    case .editor: "編集"
    case .support: "サポート"
    case .analyst: "分析"
    }
  }

  public func may(_ area: ConsoleArea) -> Bool {
    switch self {
    case .administrator: true
    case .editor: [.surveys, .catalog].contains(area)
    case .support: [.desk].contains(area)
    case .analyst: [.surveys, .exports].contains(area)
    }
  }

  /// Where the console opens for the role.
  public var home: ConsoleArea {
    may(.surveys) ? .surveys : .desk
  }
}

/// The parts of the console a role may reach.
public enum ConsoleArea: String, CaseIterable, Sendable {
  /// The survey list and each survey's dashboard.
  case surveys
  /// Writing, previewing, publishing, duplicating and closing surveys.
  case catalog
  /// Downloading answers.
  case exports
  /// Finding users and putting their points right; approving adjustments.
  case desk
  /// The audit log.
  case audit
  /// Operators: adding, roles, disabling, second factors.
  case operators

  /// Whether reaching it asks for the second factor again once the last was `OperatorFeature.reconfirmAfter` ago.
  public var asksSecondFactorAgain: Bool {
    self == .exports || self == .operators
  }
}
