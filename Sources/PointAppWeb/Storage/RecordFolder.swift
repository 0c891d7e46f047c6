import Foundation
import Glibc
import NIOPosix
import Synchronization

/// A folder of small JSON records, one file per id (`<id>.json`), each written durably on the
/// user store's file threads: what session and account records are kept in.
///
/// Every request reads its session's record: a record read shortly before is answered from
/// memory after one `stat` on the caller's thread, while the file is the same version
/// (`FileVersion`, as the user store does), so a write by another process is never missed.
final class RecordFolder<Kind, Record: Codable & Sendable>: Sendable {
  private let folder: String
  private let threadPool: NIOThreadPool
  private let recent = Mutex(RecentlyUsed<RandomID<Kind>, (version: FileVersion, record: Record)>(generation: 500))

  init(_ directory: URL, threadPool: NIOThreadPool) throws {
    folder = directory.path
    self.threadPool = threadPool
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try DurableFile.removeAbandonedTemporaries(in: folder)
  }

  func read(_ id: RandomID<Kind>) async throws -> Record? {
    let path = path(id)
    if let kept = recent.withLock({ $0[id] }), FileVersion(path: path) == kept.version {
      return kept.record
    }
    guard let (data, version, readAt) = try await threadPool.runIfActive({ () throws -> (Data, FileVersion, timespec)? in
      guard let (data, version) = try DurableFile.readVersioned(path) else { return nil }
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      return (data, version, now)
    }) else { return nil }
    let record = try SavedJSON.decode(Record.self, from: data)
    if version.isSettled(at: readAt) {
      recent.withLock { $0[id] = (version, record) }
    }
    return record
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
