import TestSupport
import XCTest

@testable import PostgresCore

/// `forEachRow` reads a result's rows as they arrive (libpq's single-row mode): left part
/// way, interleaved with other statements on the connection (nested reads), inside
/// transactions and with a failure part way, each run answers as a whole result did and
/// leaves the connection usable.
final class StreamingTests: XCTestCase {
  private struct Stop: Error {}

  /// A connection to a fresh schema with `t(v)` holding 1...n.
  private func numbers(_ schema: PostgresTestSchema, _ n: Int) throws -> PostgresConnection {
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE t (v BIGINT PRIMARY KEY, label TEXT); INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, \(n)) g")
    return db
  }

  private func all(_ db: PostgresConnection, _ sql: String = "SELECT v FROM t ORDER BY v") throws -> [Int64] {
    var out: [Int64] = []
    try db.cached(sql).forEachRow { out.append($0.int(0)) }
    return out
  }

  /// The connection answers a statement of each kind correctly.
  private func assertUsable(_ db: PostgresConnection, count: Int64, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertNil(db.activeStream, "no stream is left open", file: file, line: line)
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t", []), .integer(count), file: file, line: line)
    XCTAssertEqual(try all(db, "SELECT v FROM t WHERE v <= 3 ORDER BY v"), Array(1...min(3, count)), file: file, line: line)
  }

  func testRowsArriveOneAtATimeAndAllOfThemInOrder() throws {
    let schema = try PostgresTestSchema("stream")
    let db = try numbers(schema, 20_000)
    var seen: [Int64] = []
    var labels = 0
    try db.cached("SELECT v, label FROM t ORDER BY v").forEachRow { row in
      XCTAssertNotNil(db.activeStream, "the rows are read while they arrive")
      seen.append(row.int(0))
      if row.text(1) == "row \(row.int(0))" { labels += 1 }
    }
    XCTAssertEqual(seen, Array(1...20_000))
    XCTAssertEqual(labels, 20_000)
    XCTAssertEqual(db.streamsParked, 0)
    // An empty result, and a statement without rows through forEachRow.
    XCTAssertEqual(try all(db, "SELECT v FROM t WHERE v < 0"), [])
    try db.cached("UPDATE t SET label = 'x' WHERE v <= 10").forEachRow { _ in XCTFail("an UPDATE has no rows") }
    XCTAssertEqual(db.changes, 10, "the command's changes count, as a whole result's did")
    try assertUsable(db, count: 20_000)
  }

  func testAStreamLeftPartWayLeavesTheConnectionUsable() throws {
    let schema = try PostgresTestSchema("abandon")
    let db = try numbers(schema, 20_000)
    // Outside a transaction, in a read snapshot, and inside a client transaction.
    var seen = 0
    XCTAssertThrowsError(
      try db.cached("SELECT v FROM t ORDER BY v").forEachRow { _ in
        seen += 1
        if seen == 5 { throw Stop() }
      }
    ) { XCTAssertTrue($0 is Stop) }
    XCTAssertEqual(seen, 5)
    try assertUsable(db, count: 20_000)

    XCTAssertThrowsError(
      try db.readingOneSnapshot {
        try db.cached("SELECT v FROM t ORDER BY v").forEachRow { if $0.int(0) == 100 { throw Stop() } }
      })
    XCTAssertTrue(db.isAutocommit)
    try assertUsable(db, count: 20_000)

    try db.begin()
    try db.run("INSERT INTO t VALUES (?, 'new')", [.integer(20_001)])
    XCTAssertThrowsError(try db.cached("SELECT v FROM t ORDER BY v").forEachRow { if $0.int(0) == 7 { throw Stop() } })
    try db.run("INSERT INTO t VALUES (?, 'newer')", [.integer(20_002)])
    try db.commit()
    try assertUsable(db, count: 20_002)

    // A request being cancelled: the statement is cancelled on the server, not read to its end.
    try db.readingOneSnapshot {
      XCTAssertThrowsError(
        try db.cached("SELECT v FROM t ORDER BY v").forEachRow { _ in
          db.interrupt()
          throw Stop()
        })
    }
    db.clearInterrupt()
    try assertUsable(db, count: 20_002)
  }

  /// Inside a transaction a read runs under a savepoint of its own, which ends when the
  /// stream ends: levels opened and closed while its rows arrive nest as they should.
  func testLevelsOpenedWhileAStreamArrivesInsideATransaction() throws {
    let schema = try PostgresTestSchema("levels")
    let db = try numbers(schema, 5_000)
    try db.begin()
    try db.run("INSERT INTO t VALUES (?, 'outer')", [.integer(10_000)])
    var seen = 0
    try db.cached("SELECT v FROM t ORDER BY v").forEachRow { row in
      seen += 1
      switch row.int(0) {
      case 1:
        try db.begin()
        try db.run("INSERT INTO t VALUES (?, 'kept')", [.integer(10_001)])
        try db.commit()
      case 2:
        try db.begin()
        try db.run("INSERT INTO t VALUES (?, 'undone')", [.integer(10_002)])
        db.rollback()
      case 3:
        try db.begin()
        try db.commit()
      default: break
      }
    }
    XCTAssertEqual(seen, 5_001)
    try db.commit()
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t WHERE v > 5000", []), .integer(2))
    try db.run("DELETE FROM t WHERE v > 5000", [])
    try assertUsable(db, count: 5_000)
  }

  func testAConnectionClosedWhileAStreamIsOpenGivesTheRestOfItsRows() throws {
    let schema = try PostgresTestSchema("closing")
    let db = try numbers(schema, 5_000)
    var seen: [Int64] = []
    try db.cached("SELECT v FROM t ORDER BY v").forEachRow { row in
      seen.append(row.int(0))
      if row.int(0) == 10 { db.close() }
    }
    XCTAssertEqual(seen, Array(1...5_000), "the rest was read before the connection closed")
  }

  func testAnotherStatementWhileAStreamIsOpenParksItsRest() throws {
    let schema = try PostgresTestSchema("nested")
    let db = try numbers(schema, 3_000)
    try db.execute("CREATE TABLE u (v BIGINT, w BIGINT)")
    // Per row: a lookup (`first`), a nested stream of its own, and the same statement again.
    var pairs: [Int64] = []
    var inner = 0
    try db.cached("SELECT v FROM t WHERE v % 1000 = 1 ORDER BY v").forEachRow { row in
      let v = row.int(0)
      let label = try db.cached("SELECT label FROM t WHERE v = ?").first([.integer(v + 1)]) { $0.text(0) }
      XCTAssertEqual(label, "row \(v + 1)")
      try db.cached("SELECT v FROM t WHERE v > ? ORDER BY v LIMIT 3").forEachRow([.integer(v)]) { pairs.append($0.int(0)) }
      inner += try all(db, "SELECT v FROM t WHERE v % 1000 = 1 ORDER BY v").count
      XCTAssertEqual(row.int(0), v, "the row stays readable after the statements its body ran")
    }
    XCTAssertEqual(pairs, [2, 3, 4, 1002, 1003, 1004, 2002, 2003, 2004])
    XCTAssertEqual(inner, 9)
    XCTAssertEqual(db.streamsParked, 1, "the outer stream was parked once; the nested ones ran to their end")

    // A write inside the body of a read, in a transaction (the first statement of the
    // transaction is the stream: its BEGIN and savepoint go first in the same round trip).
    try db.begin()
    var read: [Int64] = []
    try db.cached("SELECT v FROM t WHERE v <= 1000 ORDER BY v").forEachRow { row in
      read.append(row.int(0))
      if row.int(0) % 100 == 0 { try db.run("INSERT INTO u VALUES (?, ?)", [.integer(row.int(0)), .integer(-row.int(0))]) }
    }
    try db.commit()
    XCTAssertEqual(read, Array(1...1000))
    XCTAssertEqual(try all(db, "SELECT v FROM u ORDER BY v"), Array(stride(from: 100, through: 1000, by: 100)))
    try assertUsable(db, count: 3_000)
  }

  func testAFailurePartWayThrowsAfterTheRowsBeforeIt() throws {
    let schema = try PostgresTestSchema("midfail")
    let db = try numbers(schema, 2_000)
    let failing = "SELECT v, 1 / (v - 500) FROM t ORDER BY v"
    var seen: [Int64] = []
    let e = postgresError { try db.cached(failing).forEachRow { seen.append($0.int(0)) } }
    XCTAssertEqual(e?.sqlState, "22012", "division by zero")
    XCTAssertEqual(seen, Array(1...499), "the rows before the failing one came first, as SQLite's steps give them")
    try assertUsable(db, count: 2_000)

    // Parked before it reached the failure: the rest of the rows, then the failure.
    seen = []
    var lookups = 0
    let parked = postgresError {
      try db.cached(failing).forEachRow { row in
        seen.append(row.int(0))
        if row.int(0) == 10 { lookups += Int(try db.scalar("SELECT count(*) FROM t", [])?.integerValue ?? 0) }
      }
    }
    XCTAssertEqual(parked?.sqlState, "22012")
    XCTAssertEqual(seen, Array(1...499))
    XCTAssertEqual(lookups, 2_000)
    try assertUsable(db, count: 2_000)

    // Inside a transaction: the read fails alone (under a savepoint of its own), and the
    // level keeps its work and commits.
    try db.begin()
    try db.run("INSERT INTO t VALUES (?, 'x')", [.integer(5_000)])
    XCTAssertEqual(postgresError { try db.cached(failing).forEachRow { _ in } }?.sqlState, "22012")
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t WHERE v = 5000", []), .integer(1), "the level lost its work")
    try db.commit()
    try db.run("DELETE FROM t WHERE v = 5000", [])
    try assertUsable(db, count: 2_000)

    // In a level its owner rolls back on failure (`inTransaction`), the failure is the
    // level's, as any failed statement's.
    let inLevel = postgresError {
      try db.inTransaction {
        try db.run("INSERT INTO t VALUES (?, 'x')", [.integer(5_001)])
        try db.cached(failing).forEachRow { _ in }
      }
    }
    XCTAssertEqual(inLevel?.sqlState, "22012")
    XCTAssertEqual(db.transactionDepth, 0)
    try assertUsable(db, count: 2_000)

    // A statement that fails at once.
    XCTAssertNotNil(postgresError { try db.cached("SELECT v, 1 / (v - 1) FROM t ORDER BY v").forEachRow { _ in } })
    try assertUsable(db, count: 2_000)
  }

  func testAFailureOfTheTransactionControlBeforeAStreamIsThrownAndLeavesNothingOpen() throws {
    let schema = try PostgresTestSchema("ctlfail")
    let db = try numbers(schema, 100)
    var options = PostgresConnection.Options()
    options.lockTimeoutMilliseconds = 50
    let waiting = try freshConnection(schema, options: options)
    // The store's write lock is held by another writer until the end of the test: the
    // lock that goes before the stream's statement (in the same round trip) times out.
    try db.begin()
    try db.run("INSERT INTO t VALUES (?, 'held')", [.integer(101)])
    try waiting.begin()
    let e = postgresError {
      try waiting.cached("SELECT v FROM t ORDER BY v").forEachRow { _ in XCTFail("no row: the statement was skipped") }
    }
    XCTAssertEqual(e?.sqlState, "55P03", "the lock's timeout")
    XCTAssertNil(waiting.activeStream)
    waiting.rollback()
    db.rollback()
    try assertUsable(waiting, count: 100)
  }
}

extension SQLValue {
  fileprivate var integerValue: Int64? { if case .integer(let i) = self { return i } else { return nil } }
}
