import Foundation
import Synchronization
import Glibc
import NIOPosix

/// A file operation failed; `errno` says why.
public struct FileError: Error, CustomStringConvertible {
  public let operation: String
  public let path: String
  public let code: Int32

  init(_ operation: String, _ path: String, code: Int32 = errno) {
    self.operation = operation
    self.path = path
    self.code = code
  }

  public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

/// Reading and durably replacing whole files with plain POSIX calls, every error surfaced.
/// (Foundation's atomic write does not fsync the folder and may fall back to a non-atomic write.)
public enum DurableFile {
  /// The steps of a write, in order; a test hook can fail the write before any of them.
  public enum Step: CaseIterable, Sendable {
    case writeTemporary, syncTemporary, rename, syncFolder
  }

  /// `nil` when the file does not exist.
  public static func read(_ path: String) throws -> Data? {
    try readVersioned(path)?.data
  }

  /// The file's bytes and the version of the file they were read from; `nil` when the file does
  /// not exist.
  static func readVersioned(_ path: String) throws -> (data: Data, version: FileVersion)? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      throw FileError("open", path)
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else { throw FileError("fstat", path) }
    // Sized from the file, one byte more to see the end in the same call; a file that grows
    // meanwhile (not ours: ours are replaced, never written in place) is read to its end.
    var data = Data(count: Int(status.st_size) + 1)
    var count = 0
    while true {
      if count == data.count { data.count += 64 * 1024 }
      let read = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
      if read < 0 {
        if errno == EINTR { continue }
        throw FileError("read", path)
      }
      if read == 0 { break }
      count += read
    }
    data.count = count
    return (data, FileVersion(status))
  }

  /// What `readIfInMemory` found.
  enum InMemoryRead {
    /// No file at the path.
    case missing
    /// The whole file, as `readVersioned` gives it.
    case read(Data, FileVersion)
    /// Not all of it is in the kernel's page cache (or the read failed): read it where a wait
    /// for the disk is allowed (`readVersioned`, on a file thread).
    case notInMemory
  }

  /// Reads the file at `path` as `readVersioned` does, on the caller's thread, when every byte of
  /// it is in the kernel's memory already (`preadv2` with `RWF_NOWAIT`, which answers `EAGAIN`
  /// rather than wait for the disk): an event loop reads a record it has just seen changed without
  /// handing the read to a file thread and back. A file over `inMemoryLimit` bytes, whose copy
  /// would hold the loop up, is left to a file thread; so is every file, once the file system has
  /// said it cannot read without waiting.
  static func readIfInMemory(_ path: String) -> InMemoryRead {
    guard !noWaitUnsupported.load(ordering: .relaxed) else { return .notInMemory }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return errno == ENOENT ? .missing : .notInMemory }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= inMemoryLimit else { return .notInMemory }
    let size = Int(status.st_size)
    // One byte more than the size: a file that grew since its `fstat` is left to the full read.
    var data = Data(count: size + 1)
    let count = data.withUnsafeMutableBytes { buffer in
      var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
      return preadv2(fd, &vector, 1, 0, rwfNoWait)
    }
    if count < 0, errno == EOPNOTSUPP || errno == ENOSYS { noWaitUnsupported.store(true, ordering: .relaxed) }
    guard count == size else { return .notInMemory }
    data.count = count
    return .read(data, FileVersion(status))
  }

  /// The largest file `readIfInMemory` reads (a user's state is a few kilobytes).
  static let inMemoryLimit = 256 * 1024

  /// Set when `preadv2` answered that it cannot read without waiting here (a kernel or file
  /// system without `RWF_NOWAIT`): no file is tried on the caller's thread again.
  private static let noWaitUnsupported = Atomic(false)

  /// `preadv2(2)`'s `RWF_NOWAIT`.
  private static let rwfNoWait: Int32 = 8

  /// glibc's `preadv2`, which Swift's Glibc module does not declare.
  private static let preadv2 = unsafeBitCast(
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "preadv2")!,
    to: (@convention(c) (Int32, UnsafePointer<iovec>, Int32, Int, Int32) -> Int).self
  )

  /// Replaces the file at `path` with `data`: old or new content survives any crash.
  /// `failBefore` lets tests inject a failure before one step. A caller writing several files to
  /// one folder may pass `syncFolder: false` for all but the last, or sync the folder itself.
  /// `exclusive` creates the file only if there is none (the result says whether it did): of
  /// simultaneous creators, processes sharing the folder included, exactly one wins.
  @discardableResult
  public static func write(
    _ data: Data, to path: String, syncFolder: Bool = true, exclusive: Bool = false, failBefore: Step? = nil
  ) throws -> Bool {
    let temporary = try writeTemporary(data, for: path, failBefore: failBefore)
    guard try place(temporary, at: path, exclusive: exclusive, failBefore: failBefore) else { return false }
    if failBefore == .syncFolder { throw FileError("injected failure before syncFolder", path, code: EIO) }
    if syncFolder { try Self.syncFolder(String(split(path).folder)) }
    return true
  }

  /// A path's folder and name, split at its last `/` ("." for a bare name, "/" for one at the
  /// root). Our paths are built as folder and name, never with a trailing `/`. (`NSString`'s path
  /// methods took 1.8 % of the server's time during P2 on files, for every record written.)
  static func split(_ path: String) -> (folder: Substring, name: Substring) {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path[...]) }
    return (slash == path.startIndex ? "/" : path[..<slash], path[path.utf8.index(after: slash)...])
  }

  /// A write's first half: `data` in a new temporary file beside `path`, synced unless `sync`
  /// says not (a commit's records, which its log holds durably already: `FileBackend.apply`);
  /// its name. A caller with other writes to wait for before the file takes its name (`place`)
  /// does them meanwhile.
  static func writeTemporary(_ data: Data, for path: String, sync: Bool = true, failBefore: Step? = nil) throws -> String {
    let (folder, name) = split(path)
    let temporary = "\(folder)/.\(name).\(UInt64.random(in: 0...UInt64.max)).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("create", temporary) }
    do {
      if failBefore == .writeTemporary { throw FileError("injected failure before writeTemporary", path, code: EIO) }
      try writeAll(data, to: fd, path: temporary)
      if failBefore == .syncTemporary { throw FileError("injected failure before syncTemporary", path, code: EIO) }
      if sync { guard fsync(fd) == 0 else { throw FileError("fsync", temporary) } }
      guard close(fd) == 0 else { throw FileError("close", temporary) }
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    return temporary
  }

  /// A write's second half: the temporary file takes `path`'s name (the folder not synced).
  /// `exclusive`: only if `path` has none (`false` then, the temporary file removed).
  static func place(_ temporary: String, at path: String, exclusive: Bool, failBefore: Step? = nil) throws -> Bool {
    do {
      if failBefore == .rename { throw FileError("injected failure before rename", path, code: EIO) }
      if exclusive {
        // link(2) fails when the name exists, where rename(2) would replace it.
        let linked = link(temporary, path) == 0
        let code = errno
        unlink(temporary)
        guard linked else {
          guard code == EEXIST else { throw FileError("link", path, code: code) }
          return false
        }
      } else {
        guard rename(temporary, path) == 0 else { throw FileError("rename", temporary) }
      }
    } catch {
      unlink(temporary)
      throw error
    }
    return true
  }

  /// Removes temporary files of `write` left in `folder` by a crash. Only those older than
  /// `age` go: a younger one may belong to a write in progress in another process sharing the folder.
  public static func removeAbandonedTemporaries(in folder: String, olderThan age: TimeInterval = 60) throws {
    let cutoff = Date().addingTimeInterval(-age)
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix(".") && name.hasSuffix(".tmp") {
      let path = "\(folder)/\(name)"
      guard let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date,
        modified < cutoff
      else { continue }
      guard unlink(path) == 0 || errno == ENOENT else { throw FileError("unlink", path) }
    }
  }

  static func writeAll(_ data: Data, to fd: Int32, path: String) throws {
    try data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          throw FileError("write", path)
        }
        offset += written
      }
    }
  }

  /// Syncs all that was written to the file system `folder` is on (`syncfs(2)`): the bytes and
  /// names of many files at once.
  static func syncFileSystem(of folder: String) throws {
    try sync(folder, by: syncfs, "syncfs")
  }

  /// glibc's `syncfs`, which Swift's Glibc module does not declare.
  private static let syncfs = unsafeBitCast(
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs")!, to: (@convention(c) (Int32) -> Int32).self
  )

  /// Makes the folder's entries (created, renamed files) durable.
  public static func syncFolder(_ folder: String) throws {
    try sync(folder, by: fsync, "fsync")
  }

  /// Opens `folder` and runs `call` (`fsync`, `syncfs`) on it.
  private static func sync(_ folder: String, by call: (Int32) -> Int32, _ name: String) throws {
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw FileError("open", folder) }
    defer { close(fd) }
    guard call(fd) == 0 else { throw FileError(name, folder) }
  }
}

/// Which file a path names, and as of which change: device, inode, size, and the times of its
/// last change. A state file is replaced (a new inode) on every save, and the kernel sets a
/// file's change time (ctime) on every change, which no program can set back.
struct FileVersion: Equatable, Sendable {
  private let device: UInt64
  private let inode: UInt64
  private let size: Int64
  private let modified: timespec
  private let changed: timespec

  init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
    size = Int64(status.st_size)
    modified = status.st_mtim
    changed = status.st_ctim
  }

  /// The version of the file at `path` now (`nil`: none there, or it cannot be told).
  init?(path: String) {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    self.init(status)
  }

  /// Whether the file's last change is at least `margin` old at `now`. File times come from the
  /// kernel's coarse clock, one tick (at most 10 ms) behind: any change after a settled version
  /// was read gets a later change time, so the version alone tells the two apart. A change in the
  /// same tick as the version could give the same times (and, with a reused inode, the same
  /// version): a version that is not settled is never trusted.
  func isSettled(at now: timespec, margin: Int = 50_000_000) -> Bool {
    let age = (now.tv_sec - changed.tv_sec) * 1_000_000_000 + (now.tv_nsec - changed.tv_nsec)
    return age >= margin
  }

  static func == (lhs: FileVersion, rhs: FileVersion) -> Bool {
    lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
      && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
      && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
  }
}

/// An exclusive `flock` held until `unlock()`: serialises processes sharing a data folder.
final class FileLock: Sendable {
  private let fd: Int32

  /// Blocks until the lock is held.
  init(path: String) throws {
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("open", path) }
    while flock(fd, LOCK_EX) != 0 {
      guard errno == EINTR else {
        let error = FileError("flock", path)
        close(fd)
        throw error
      }
    }
  }

  /// Closing the descriptor releases the lock.
  func unlock() {
    close(fd)
  }
}

/// Locks by name across the processes sharing a data folder, without a file each: the byte of one
/// file at the name's digest (`HoldingKey.number`), locked as an open file description's
/// (`F_OFD_SETLKW`), which waits. Locks of this process's holders, all through one descriptor, do
/// not keep each other out: they take turns by their locks in memory first, and only one of them
/// holds a name at a time.
final class NamedLocks: Sendable {
  private let path: String
  private let fd: Int32
  /// Linux's `F_OFD_SETLKW` and `F_OFD_SETLK`, which Swift's Glibc module does not declare.
  private static let (waitForLock, tryForLock): (Int32, Int32) = (38, 37)

  init(path: String) throws {
    self.path = path
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("open", path) }
  }

  deinit { close(fd) }

  /// Blocks until the name is held.
  func lock(_ name: String) throws {
    _ = try set(name, to: F_WRLCK, waiting: true)
  }

  /// Holds the name if no other holds it (`true`), without waiting: a caller that must not block
  /// (an event loop) waits on a file thread only when this fails.
  func lockIfFree(_ name: String) throws -> Bool {
    try set(name, to: F_WRLCK, waiting: false)
  }

  /// Holds `name` at once when it is free; else waits for it on one of `threads`.
  func lock(_ name: String, waitingOn threads: NIOThreadPool) async throws {
    if try lockIfFree(name) { return }
    try await threads.runIfActive { try self.lock(name) }
  }

  func unlock(_ name: String) {
    _ = try? set(name, to: F_UNLCK, waiting: false)
  }

  private func set(_ name: String, to type: Int32, waiting: Bool) throws -> Bool {
    var lock = flock()
    lock.l_type = Int16(type)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = off_t(UInt64(bitPattern: HoldingKey.number(name)) >> 2)
    lock.l_len = 1
    while fcntl(fd, waiting ? Self.waitForLock : Self.tryForLock, &lock) != 0 {
      if !waiting, errno == EAGAIN || errno == EACCES { return false }
      guard errno == EINTR else { throw FileError("fcntl", path) }
    }
    return true
  }
}

/// A folder's `flock` shared by every writer of this process: the first takes it, the last lets
/// it go. Writers in this process keep out of each other's way by their records' locks; this one
/// keeps other processes sharing the folder out, without putting this process's writes, and
/// their syncs, in a line.
final class SharedFolderLock: Sendable {
  private let path: String
  private let state = Mutex<(holders: Int, lock: FileLock?)>((0, nil))

  init(folder: String) {
    path = folder + "/.lock"
  }

  /// Runs `body` (on a file thread) while the lock is held.
  func withLock<T>(_ body: () throws -> T) throws -> T {
    try state.withLock { state in
      if state.holders == 0 { state.lock = try FileLock(path: path) }
      state.holders += 1
    }
    defer {
      state.withLock { state in
        state.holders -= 1
        if state.holders == 0 {
          state.lock?.unlock()
          state.lock = nil
        }
      }
    }
    return try body()
  }
}
