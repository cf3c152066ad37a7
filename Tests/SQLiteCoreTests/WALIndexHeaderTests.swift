import XCTest

@testable import SQLiteCore

/// `walIndexHeader`: read without a lock from the shared memory, it changes with every
/// commit of any connection, and with nothing else.
final class WALIndexHeaderTests: XCTestCase {
  private func pair() throws -> (Connection, Connection) {
    let path = temporaryPath(self)
    let a = try Connection(path: path)
    try a.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)")
    return (a, try Connection(path: path))
  }

  func testOnlyCommitsChangeIt() throws {
    let (a, b) = try pair()
    let first = try XCTUnwrap(a.walIndexHeader(), "a WAL database read by this connection has a header")
    _ = try a.scalar("SELECT sum(v) FROM t")
    _ = try b.scalar("SELECT sum(v) FROM t")
    XCTAssertEqual(a.walIndexHeader(), first, "reads change nothing")
    try b.begin()
    try b.run("INSERT INTO t VALUES (2)")
    b.rollback()
    XCTAssertEqual(a.walIndexHeader(), first, "a rolled-back transaction changes nothing")
    try b.run("INSERT INTO t VALUES (3)")
    let second = try XCTUnwrap(a.walIndexHeader())
    XCTAssertNotEqual(second, first, "another connection's commit changes it")
    try a.run("INSERT INTO t VALUES (4)")
    XCTAssertNotEqual(a.walIndexHeader(), second, "this connection's commit changes it")
    try b.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let third = try XCTUnwrap(a.walIndexHeader())
    try b.run("INSERT INTO t VALUES (5)")
    XCTAssertNotEqual(a.walIndexHeader(), third, "a commit into a restarted WAL changes it")
  }

  func testNoHeaderOutsideWALMode() throws {
    XCTAssertNil(try memoryDB().walIndexHeader())
    let path = temporaryPath(self)
    let rollback = try Connection(path: path)
    try rollback.execute("CREATE TABLE t (v INTEGER)")
    XCTAssertNil(rollback.walIndexHeader())
  }
}
