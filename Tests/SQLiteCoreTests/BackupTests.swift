#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import SQLiteCore

final class BackupTests: XCTestCase {
  func testBackupOfMemoryDatabaseToFileAndReopen() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, b BLOB)")
    for i in 0..<500 { try db.run("INSERT INTO t (v, b) VALUES (?, ?)", [.text("row \(i)"), .blob([UInt8(i % 256)])]) }
    let path = temporaryPath(self)
    let pages = try db.backup(to: path)
    XCTAssertGreaterThan(pages, 1)

    let copy = try Connection(path: path)
    XCTAssertEqual(try copy.scalar("SELECT count(*) FROM t"), .integer(500))
    XCTAssertEqual(try copy.scalar("SELECT v FROM t WHERE id = 500"), .text("row 499"))
    XCTAssertEqual(try copy.scalar("SELECT b FROM t WHERE id = 2"), .blob([1]))
    XCTAssertEqual(try copy.scalar("PRAGMA integrity_check"), .text("ok"))
  }

  func testBackupWhileATransactionIsOpenIsRefusedAndLeavesNoFile() throws {
    let path = temporaryPath(self, "src.sqlite")
    let db = try Connection(path: path)
    try db.execute("CREATE TABLE t (v); INSERT INTO t VALUES (1)")
    try db.begin()
    try db.run("INSERT INTO t VALUES (2)")
    let dest = temporaryPath(self, "dest.sqlite")
    let error = sqliteError { try db.backup(to: dest) }
    XCTAssertEqual(error?.primaryCode, 5)  // SQLITE_BUSY
    XCTAssertTrue(error?.message.contains("transaction open") ?? false, "\(String(describing: error))")
    XCTAssertNotEqual(access(dest, F_OK), 0, "no file is left behind")
    db.rollback()
    // After the transaction, the same backup works and holds the committed row only.
    try db.backup(to: dest)
    let copy = try Connection(path: dest)
    XCTAssertEqual(try copy.scalar("SELECT count(*) FROM t"), .integer(1))
    XCTAssertEqual(try copy.scalar("PRAGMA integrity_check"), .text("ok"))
  }

  func testBackupToUnwritablePathFails() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (v)")
    XCTAssertNotNil(sqliteError { try db.backup(to: "/nonexistent-dir-for-test/x.sqlite") })
  }

  func testOpeningAFileThatIsNotADatabase() throws {
    let path = temporaryPath(self, "garbage.bin")
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let junk = Array(repeating: UInt8(ascii: "x"), count: 4096)
    _ = junk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    let db = try Connection(path: path)  // opening is lazy
    let e = sqliteError { try db.scalar("SELECT count(*) FROM sqlite_schema") }
    XCTAssertEqual(e?.isNotADatabase, true)
  }
}
