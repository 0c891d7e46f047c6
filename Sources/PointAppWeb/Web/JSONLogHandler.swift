import Foundation
import Logging

/// Writes each log record as one JSON object on standard error, for log shippers
/// (`--log-format json`): time, level, label, message and the metadata as strings.
public struct JSONLogHandler: LogHandler {
  public var logLevel: Logger.Level = .info
  public var metadata: Logger.Metadata = [:]
  private let label: String
  private let write: @Sendable (String) -> Void

  public init(label: String, write: @escaping @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data(line.utf8)) }) {
    self.label = label
    self.write = write
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    var record: [String: String] = [
      "time": Date().formatted(.iso8601), "level": event.level.rawValue, "label": label, "message": event.message.description,
    ]
    for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
      record[key] = value.description
    }
    guard let json = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]) else {
      return
    }
    write(String(decoding: json, as: UTF8.self) + "\n")
  }
}
