import Foundation
import NIOPosix

/// A folder of small JSON records, one file per id (`<id>.json`), each written durably on the
/// user store's file threads: what session and account records are kept in.
struct RecordFolder<Kind, Record: Codable & Sendable>: Sendable {
  private let folder: String
  private let threadPool: NIOThreadPool

  init(_ directory: URL, threadPool: NIOThreadPool) throws {
    folder = directory.path
    self.threadPool = threadPool
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try DurableFile.removeAbandonedTemporaries(in: folder)
  }

  func read(_ id: RandomID<Kind>) async throws -> Record? {
    let path = path(id)
    guard let data = try await threadPool.runIfActive({ try DurableFile.read(path) }) else { return nil }
    return try SavedJSON.decode(Record.self, from: data)
  }

  /// Writes `record` as `id`'s; with `exclusive`, only if `id` has none (the result says whether).
  @discardableResult
  func write(_ record: Record, as id: RandomID<Kind>, exclusive: Bool = false) async throws -> Bool {
    let path = path(id)
    let data = try SavedJSON.encode(record)
    return try await threadPool.runIfActive { try DurableFile.write(data, to: path, exclusive: exclusive) }
  }

  private func path(_ id: RandomID<Kind>) -> String { "\(folder)/\(id.rawValue).json" }
}
