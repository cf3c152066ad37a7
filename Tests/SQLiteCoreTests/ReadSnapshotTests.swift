import XCTest

@testable import SQLiteCore

private struct Boom: Error {}

/// `readingOneSnapshot`: every statement of the body sees the database as of its first
/// read, without holding the write lock, and the snapshot always ends.
final class ReadSnapshotTests: XCTestCase {
  /// Two connections on one WAL file holding `t(v)` = [1].
  private func pair() throws -> (Connection, Connection) {
    let path = temporaryPath(self)
    let a = try Connection(path: path)
    try a.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)")
    // Without a busy timeout: any lock the reader held against writers would fail a write.
    var noWaiting = Connection.Options()
    noWaiting.busyTimeoutMilliseconds = 0
    return (a, try Connection(path: path, options: noWaiting))
  }

  private func sum(_ db: Connection) throws -> SQLValue? { try db.scalar("SELECT sum(v) FROM t") }

  func testStatementsOfTheBodySeeOneSnapshotAndWritersAreNotBlocked() throws {
    let (reader, writer) = try pair()
    let (before, after) = try reader.readingOneSnapshot {
      let first = try sum(reader)
      try writer.run("INSERT INTO t VALUES (10)")
      return (first, try sum(reader))
    }
    XCTAssertEqual(before, .integer(1))
    XCTAssertEqual(after, .integer(1), "the second statement read the same snapshot as the first")
    XCTAssertTrue(reader.isAutocommit)
    XCTAssertEqual(try sum(reader), .integer(11), "the next request sees the commit")
  }

  func testWithoutASnapshotTheSecondStatementSeesTheCommit() throws {
    let (reader, writer) = try pair()
    XCTAssertEqual(try sum(reader), .integer(1))
    try writer.run("INSERT INTO t VALUES (10)")
    XCTAssertEqual(try sum(reader), .integer(11))
  }

  func testInsideATransactionTheBodyJustRuns() throws {
    let (reader, _) = try pair()
    try reader.begin()
    try reader.run("INSERT INTO t VALUES (5)")
    XCTAssertEqual(try reader.readingOneSnapshot { try sum(reader) }, .integer(6), "the transaction's own write")
    XCTAssertEqual(reader.transactionDepth, 1)
    XCTAssertFalse(reader.isAutocommit, "the snapshot did not end the transaction")
    reader.rollback()
    XCTAssertEqual(try sum(reader), .integer(1))
  }

  func testAFailingBodyEndsTheSnapshot() throws {
    let (reader, writer) = try pair()
    XCTAssertThrowsError(
      try reader.readingOneSnapshot { () throws -> Void in
        _ = try sum(reader)
        throw Boom()
      })
    XCTAssertTrue(reader.isAutocommit)
    try writer.run("INSERT INTO t VALUES (10)")
    XCTAssertEqual(try sum(reader), .integer(11))
  }

  func testNestedSnapshotsAreOne() throws {
    let (reader, writer) = try pair()
    let inner = try reader.readingOneSnapshot {
      _ = try sum(reader)
      try writer.run("INSERT INTO t VALUES (10)")
      return try reader.readingOneSnapshot { try sum(reader) }
    }
    XCTAssertEqual(inner, .integer(1))
    XCTAssertTrue(reader.isAutocommit)
  }
}
