import Foundation
import TestSupport
import XCTest

@testable import PostgresCore

/// `first` reads only the first row of a statement's result as it arrives (libpq's
/// single-row mode): the rest of a large result is never held (it was read whole before),
/// and its statement is cancelled on the server where that fails nothing else, so the rest
/// is not even sent. Peak memory is the process's resident set high-water mark
/// (`VmHWM`), reset before each `first` (`/proc/self/clear_refs`).
final class FirstRowTests: XCTestCase {
  static let rows = 200_000
  /// 200,000 rows of about 110 bytes: held whole (before), their result took 31 MiB more.
  static let allowedGrowthKiB = 4 * 1024

  /// A connection to a fresh schema with `t(v, label)` holding `rows` rows.
  private func table(_ schema: PostgresTestSchema) throws -> PostgresConnection {
    let db = try freshConnection(schema)
    try db.execute(
      "CREATE TABLE t (v BIGINT PRIMARY KEY, label TEXT); INSERT INTO t SELECT g, repeat('x', 100) || g FROM generate_series(1, \(Self.rows)) g"
    )
    return db
  }

  /// The process's peak resident memory in KiB, and a reset of it to the current one.
  private func peakKiB() throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
    return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
  }

  private func resetPeak() throws {
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  }

  /// `first` of every row, in key order: the first row, and how much the peak memory grew.
  private func firstOfAll(_ db: PostgresConnection) throws -> (row: (Int64, String)?, grewKiB: Int) {
    try resetPeak()
    let before = try peakKiB()
    let row = try db.cached("SELECT v, label FROM t ORDER BY v").first { ($0.int(0), $0.text(1)) }
    return (row, try peakKiB() - before)
  }

  private func assertFirst(
    _ db: PostgresConnection, cancelled: Bool, _ what: String, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let cancels = db.streamsCancelled
    let (row, grew) = try firstOfAll(db)
    XCTAssertEqual(row?.0, 1, what, file: file, line: line)
    XCTAssertEqual(row?.1, String(repeating: "x", count: 100) + "1", what, file: file, line: line)
    XCTAssertLessThan(grew, Self.allowedGrowthKiB, "\(what): the peak memory grew by \(grew) KiB", file: file, line: line)
    XCTAssertEqual(
      db.streamsCancelled - cancels, cancelled ? 1 : 0, "\(what): the rest was cancelled on the server", file: file, line: line)
    XCTAssertNil(db.activeStream, what, file: file, line: line)
    print("first of \(Self.rows) rows (\(what)): peak memory grew \(grew) KiB")
  }

  func testTheFirstOfTwoHundredThousandRowsKeepsMemoryFlat() throws {
    let schema = try PostgresTestSchema("firstrow")
    let db = try table(schema)
    let count = "SELECT count(*) FROM t"

    // Outside a transaction: the rest is cancelled, the connection goes on.
    try assertFirst(db, cancelled: true, "outside a transaction")
    XCTAssertEqual(try db.scalar(count, []), .integer(Int64(Self.rows)))

    // In a read snapshot: the snapshot goes on after the cancel.
    try db.readingOneSnapshot {
      try assertFirst(db, cancelled: true, "in a read snapshot")
      XCTAssertEqual(try db.scalar(count, []), .integer(Int64(Self.rows)))
    }

    // In a transaction level with work in it: cancelled under the read's own savepoint;
    // the level keeps its work and commits.
    try db.begin()
    try db.run("INSERT INTO t VALUES (?, 'kept')", [.integer(Int64(Self.rows + 1))])
    try assertFirst(db, cancelled: true, "in a transaction")
    try db.run("INSERT INTO t VALUES (?, 'kept')", [.integer(Int64(Self.rows + 2))])
    try db.commit()
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t WHERE label = 'kept'", []), .integer(2))

    // In a level its owner rolls back on any failure (`inTransaction`), which goes on after
    // `first`: the rest is read and dropped, one row at a time (a cancel would fail it).
    try db.inTransaction {
      try db.run("DELETE FROM t WHERE label = 'kept'", [])
      try assertFirst(db, cancelled: false, "in a level rolled back on failure")
      XCTAssertEqual(try db.scalar(count, []), .integer(Int64(Self.rows)))
    }
    XCTAssertEqual(try db.scalar(count, []), .integer(Int64(Self.rows)))
    XCTAssertEqual(try db.scalar("SELECT v FROM t WHERE v <= 3 ORDER BY v DESC", []), .integer(3), "first of a few rows")
  }
}
