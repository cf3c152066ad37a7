import Foundation
import SQLiteCore
import XCTest

@testable import StoreEngine

/// Opening a Core Data store in place while its writer closes: the writer's last
/// connection checkpoints and removes `-wal` and `-shm`, possibly between the reader's
/// choice of access (`readonlyShm`, made while both files were there) and its ATTACH.
/// The ATTACH then fails (the process's VFS never creates the `-wal`), and the open must
/// choose again rather than fail or leave a file beside the store. The race is staged
/// with `beforeAttach`, so the test does not depend on timing.
final class CoreDataAttachRaceTests: XCTestCase {
  func testAWriterLeavingBetweenTheChoiceAndTheAttachIsChosenAgain() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-race-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("Store.sqlite").path
    try CoreDataFixture.write(path)
    var writer: Connection? = try Connection(path: path)
    try writer?.execute("PRAGMA journal_mode = WAL; INSERT INTO ZLIST VALUES (99, 5, 1, 'written last');")
    XCTAssertEqual(CoreDataFile.access(path), "readonlyShm", "the writer's -wal and -shm are there")

    let reader = try Store(path: nil)
    var attempts = 0
    let source = try CoreDataSource(
      path: path, connection: reader.connection, schemaName: "coredata",
      beforeAttach: {
        attempts += 1
        if attempts == 1 { writer = nil }  // the writer closes: checkpoint, -wal and -shm removed
      })
    XCTAssertEqual(attempts, 2, "the failed ATTACH was followed by a fresh choice")
    XCTAssertEqual(source.file.access, "immutable")
    XCTAssertEqual(try reader.connection.scalar("SELECT ZNAME FROM coredata.ZLIST WHERE Z_PK = 99"), .text("written last"))
    for suffix in ["-wal", "-shm", "-journal"] {
      XCTAssertFalse(FileManager.default.fileExists(atPath: path + suffix), "the reader wrote \(suffix) beside the store")
    }
    reader.close()
  }
}
