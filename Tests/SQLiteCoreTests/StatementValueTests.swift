import CSQLite
import XCTest

@testable import SQLiteCore

// Extended result codes (sqlite3.h): Swift does not import these function-like macros.
private let SQLITE_CONSTRAINT_UNIQUE: Int32 = SQLITE_CONSTRAINT | (8 << 8)
private let SQLITE_CONSTRAINT_NOTNULL: Int32 = SQLITE_CONSTRAINT | (5 << 8)

final class StatementValueTests: XCTestCase {
  private func roundTrip(_ value: SQLValue, file: StaticString = #filePath, line: UInt = #line) throws -> (SQLValue, String) {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (v)")
    try db.run("INSERT INTO t (v) VALUES (?)", [value])
    let got = try db.scalar("SELECT v FROM t")
    let type = try db.scalar("SELECT typeof(v) FROM t")
    guard let got, case .text(let t)? = type else {
      XCTFail("no row", file: file, line: line)
      return (.null, "")
    }
    return (got, t)
  }

  func testOpenMemoryDatabase() throws {
    let db = try memoryDB()
    XCTAssertEqual(db.path, ":memory:")
    XCTAssertFalse(db.isReadOnly)
    XCTAssertTrue(db.isAutocommit)
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertEqual(try db.scalar("SELECT 1 + 1"), .integer(2))
    XCTAssertFalse(Connection.libraryVersion.isEmpty)
  }

  func testNull() throws {
    let (v, t) = try roundTrip(.null)
    XCTAssertEqual(v, .null)
    XCTAssertEqual(t, "null")
  }

  func testIntegers() throws {
    for i: Int64 in [0, 1, -1, Int64.max, Int64.min, 1 << 53 + 1] {
      let (v, t) = try roundTrip(.integer(i))
      XCTAssertEqual(v, .integer(i))
      XCTAssertEqual(t, "integer")
    }
  }

  func testReals() throws {
    for d in [0.0, -1.5, 0.1, 1e300, -Double.leastNonzeroMagnitude, Double.infinity, -Double.infinity] {
      let (v, t) = try roundTrip(.real(d))
      XCTAssertEqual(v, .real(d))
      XCTAssertEqual(t, "real")
    }
  }

  func testNaNBindsAsNull() throws {
    // SQLite has no NaN: it stores NULL.
    let (v, _) = try roundTrip(.real(.nan))
    XCTAssertEqual(v, .null)
  }

  func testEmptyStringIsTextNotNull() throws {
    let (v, t) = try roundTrip(.text(""))
    XCTAssertEqual(v, .text(""))
    XCTAssertEqual(t, "text")
    let db = try memoryDB()
    XCTAssertEqual(try db.scalar("SELECT ? IS NULL", [.text("")]), .integer(0))
    XCTAssertEqual(try db.scalar("SELECT length(?)", [.text("")]), .integer(0))
  }

  func testTextWithUnicodeAndEmbeddedNul() throws {
    for s in ["héllo wörld 😀", "a\u{0}b", "ß", String(repeating: "x", count: 100_000)] {
      let (v, t) = try roundTrip(.text(s))
      XCTAssertEqual(v, .text(s))
      XCTAssertEqual(t, "text")
    }
  }

  func testEmptyBlobIsBlobNotNull() throws {
    let (v, t) = try roundTrip(.blob([]))
    XCTAssertEqual(v, .blob([]))
    XCTAssertEqual(t, "blob")
  }

  func testBlobBytes() throws {
    let bytes = (0..<256).map { UInt8($0) }
    let (v, t) = try roundTrip(.blob(bytes))
    XCTAssertEqual(v, .blob(bytes))
    XCTAssertEqual(t, "blob")
  }

  func testRowAccessors() throws {
    let db = try memoryDB()
    let s = try db.prepare("SELECT 42 AS i, 2.5 AS d, 'txt' AS s, x'0102' AS b, NULL AS n")
    XCTAssertEqual(s.columnCount, 5)
    XCTAssertEqual(s.columnName(0), "i")
    XCTAssertEqual(s.columnName(4), "n")
    XCTAssertTrue(s.isReadOnly)
    let seen = try s.first { row -> Bool in
      XCTAssertEqual(row.count, 5)
      XCTAssertEqual(row.int(0), 42)
      XCTAssertEqual(row.double(1), 2.5)
      XCTAssertEqual(row.text(2), "txt")
      XCTAssertEqual(row.blob(3), [1, 2])
      XCTAssertTrue(row.isNull(4))
      XCTAssertFalse(row.isNull(0))
      XCTAssertEqual(row.text(4), "", "text of NULL is empty")
      XCTAssertEqual(row.blob(4), [])
      XCTAssertEqual(row.value(0), .integer(42))
      XCTAssertEqual(row.value(1), .real(2.5))
      XCTAssertEqual(row.value(2), .text("txt"))
      XCTAssertEqual(row.value(3), .blob([1, 2]))
      XCTAssertEqual(row.value(4), .null)
      return true
    }
    XCTAssertEqual(seen, true)
  }

  func testParameterCountAndBindByIndex() throws {
    let db = try memoryDB()
    let s = try db.prepare("SELECT ?1 || ?2")
    XCTAssertEqual(s.parameterCount, 2)
    try s.bind(.text("b"), at: 2)
    try s.bind(.text("a"), at: 1)
    XCTAssertEqual(try s.step(), true)
    s.reset()
    XCTAssertEqual(try s.first([.text("x"), .text("y")]) { $0.text(0) }, "xy")
  }

  func testBindingOutOfRangeFails() throws {
    let db = try memoryDB()
    let e = sqliteError { try db.prepare("SELECT ?").execute([.integer(1), .integer(2)]) }
    XCTAssertEqual(e?.primaryCode, SQLITE_RANGE)
  }

  func testForEachRowAndResetBetweenUses() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)")
    let s = try db.cached("SELECT n FROM t WHERE n >= ? ORDER BY n")
    var rows: [Int64] = []
    try s.forEachRow([.integer(2)]) { rows.append($0.int(0)) }
    XCTAssertEqual(rows, [2, 3])
    rows = []
    try s.forEachRow([.integer(1)]) { rows.append($0.int(0)) }
    XCTAssertEqual(rows, [1, 2, 3])
    XCTAssertEqual(try s.first([.integer(3)]) { $0.int(0) }, 3)
    XCTAssertNil(try s.first([.integer(9)]) { $0.int(0) })
  }

  func testBindingsAreClearedAfterUse() throws {
    let db = try memoryDB()
    let s = try db.cached("SELECT ?")
    XCTAssertEqual(try s.first([.integer(5)]) { $0.value(0) }, .integer(5))
    XCTAssertEqual(try s.first([]) { $0.value(0) }, .null, "a previous binding must not leak into the next use")
  }

  func testScalarAndLastInsertRowIDAndChanges() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    try db.run("INSERT INTO t (v) VALUES (?)", [.text("a")])
    XCTAssertEqual(db.lastInsertRowID, 1)
    try db.run("INSERT INTO t (v) VALUES (?)", [.text("b")])
    XCTAssertEqual(db.lastInsertRowID, 2)
    try db.run("UPDATE t SET v = 'z'")
    XCTAssertEqual(db.changes, 2)
    XCTAssertGreaterThanOrEqual(db.totalChanges, 4)
    XCTAssertNil(try db.scalar("SELECT v FROM t WHERE id = 99"))
  }

  func testPrepareErrorCarriesSQLAndMessage() throws {
    let db = try memoryDB()
    let e = try XCTUnwrap(sqliteError { try db.prepare("SELEC 1") })
    XCTAssertEqual(e.primaryCode, SQLITE_ERROR)
    XCTAssertEqual(e.sql, "SELEC 1")
    XCTAssertTrue(e.message.contains("syntax error"), e.message)
    XCTAssertTrue(e.description.contains("SELEC 1"))
    XCTAssertFalse(e.codeName.isEmpty)
  }

  func testDoubleQuotedStringLiteralsAreRefused() throws {
    // DQS is off: "x" is an identifier, never a string.
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (a)")
    XCTAssertNotNil(sqliteError { try db.prepare("SELECT \"nosuchcolumn\" FROM t") })
  }

  func testFailedStatementCanBeReused() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (v TEXT UNIQUE NOT NULL)")
    let insert = try db.cached("INSERT INTO t (v) VALUES (?)")
    try insert.execute([.text("a")])
    let dup = try XCTUnwrap(sqliteError { try insert.execute([.text("a")]) })
    XCTAssertTrue(dup.isConstraint)
    XCTAssertEqual(dup.code, SQLITE_CONSTRAINT_UNIQUE, "extended result codes are on")
    let nul = try XCTUnwrap(sqliteError { try insert.execute([.null]) })
    XCTAssertEqual(nul.code, SQLITE_CONSTRAINT_NOTNULL)
    try insert.execute([.text("b")])
    XCTAssertEqual(try column(db, "SELECT v FROM t ORDER BY v"), [.text("a"), .text("b")])
    XCTAssertTrue(db.isAutocommit, "a failed statement leaves no transaction open")
  }

  func testErrorClassification() {
    XCTAssertTrue(SQLiteError(code: SQLITE_BUSY, message: "").isBusy)
    XCTAssertTrue(SQLiteError(code: SQLITE_LOCKED, message: "").isBusy)
    XCTAssertTrue(SQLiteError(code: SQLITE_INTERRUPT, message: "").isInterrupted)
    XCTAssertTrue(SQLiteError(code: SQLITE_CONSTRAINT_UNIQUE, message: "").isConstraint)
    XCTAssertEqual(SQLiteError(code: SQLITE_CONSTRAINT_UNIQUE, message: "").primaryCode, SQLITE_CONSTRAINT)
    XCTAssertTrue(SQLiteError(code: SQLITE_READONLY, message: "").isReadOnly)
    XCTAssertTrue(SQLiteError(code: SQLITE_NOTADB, message: "").isNotADatabase)
    XCTAssertFalse(SQLiteError(code: SQLITE_ERROR, message: "").isBusy)
  }

  func testInterruptCancelsRunningStatement() throws {
    let db = try memoryDB()
    try db.createFunction("stop", argumentCount: 0, deterministic: false) { _ in
      db.interrupt()
      return .null
    }
    let e = sqliteError {
      try db.prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT count(stop()) FROM c")
        .first { $0.int(0) }
    }
    XCTAssertEqual(e?.isInterrupted, true)
  }
}

/// `interrupt()` called while a write statement runs inside a transaction (from the
/// cancellation probe, as the server's reading of a `$/cancelRequest` does): SQLite would
/// roll the whole transaction back if the statement were interrupted, so the statement
/// runs to its end, the transaction stays open with everything in it, and the flag that
/// loops check between statements is raised.
final class WriteInterruptTests: XCTestCase {
  func testInterruptDuringAWriteStatementKeepsTheTransaction() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (v INTEGER)")
    try db.begin()
    try db.execute("INSERT INTO t VALUES (-1)")
    var probes = 0
    db.cancellationProbe = {
      probes += 1
      db.interrupt()
    }
    try db.execute(
      "INSERT INTO t SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x FROM c)")
    db.cancellationProbe = nil
    XCTAssertGreaterThan(probes, 0, "the probe never ran while the statement stepped")
    XCTAssertTrue(db.isInterruptRequested)
    XCTAssertFalse(db.isAutocommit, "the interrupt ended the transaction")
    // While the flag stays raised a read does not start; the transaction is not touched.
    XCTAssertEqual(sqliteError { try db.scalar("SELECT count(*) FROM t", []) }?.isInterrupted, true)
    XCTAssertFalse(db.isAutocommit, "the refused read ended the transaction")
    db.clearInterrupt()
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t", []), .integer(100_001))
    try db.commit()
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t", []), .integer(100_001))
  }

  /// The same probe during a statement that only reads stops it at once.
  func testInterruptDuringAReadingStatementStopsIt() throws {
    let db = try memoryDB()
    db.cancellationProbe = { db.interrupt() }
    let e = sqliteError {
      try db.prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT count(*) FROM c").first {
        $0.int(0)
      }
    }
    XCTAssertEqual(e?.isInterrupted, true)
  }
}
