import Foundation
import Testing

@testable import PointAppWeb

/// A write interrupted between any two of its steps leaves the old file or the new one, whole.
struct DurabilityTests {
  func folder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test(arguments: DurableFile.Step.allCases)
  func aFailureBeforeAnyStepLeavesOldOrNew(step: DurableFile.Step) throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("user.json").path
    let old = Data(#"{"version":"old"}"#.utf8)
    let new = Data(#"{"version":"new","more":"bytes"}"#.utf8)
    try DurableFile.write(old, to: path)

    #expect(throws: FileError.self) { try DurableFile.write(new, to: path, failBefore: step) }

    let survivor = try #require(try DurableFile.read(path))
    // Until the rename the old file stands; from the rename on, the new one does.
    #expect(survivor == (step == .syncFolder ? new : old))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["user.json"], "no temporary file is left")
  }

  @Test func aFirstWriteThatFailsLeavesNoFile() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("user.json").path
    #expect(throws: FileError.self) { try DurableFile.write(Data("x".utf8), to: path, failBefore: .rename) }
    #expect(try DurableFile.read(path) == nil)
  }

  @Test func temporaryFilesAbandonedByACrashAreRemovedAtStartOnly() throws {
    let folder = try folder()
    let archive = folder.appendingPathComponent("0123456789abcdef0123456789abcdef.archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    let abandoned = [folder.appendingPathComponent(".a.json.1.tmp"), archive.appendingPathComponent(".ledger-0.json.2.tmp")]
    let inProgress = folder.appendingPathComponent(".b.json.3.tmp")
    let user = folder.appendingPathComponent("0123456789abcdef0123456789abcdef.json")
    for file in abandoned + [inProgress, user] { try Data("x".utf8).write(to: file) }
    for file in abandoned {
      try FileManager.default.setAttributes([.modificationDate: Date() - 120], ofItemAtPath: file.path)
    }

    _ = try JSONFileUserStateStore(directory: folder)

    #expect(abandoned.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
    #expect(FileManager.default.fileExists(atPath: inProgress.path), "a young one may be another process's write")
    #expect(FileManager.default.fileExists(atPath: user.path))
  }

  @Test func writeErrorsAreThrownNotSwallowed() throws {
    #expect(throws: FileError.self) {
      try DurableFile.write(Data("x".utf8), to: "/nonexistent-folder-\(UUID().uuidString)/user.json")
    }
  }
}
