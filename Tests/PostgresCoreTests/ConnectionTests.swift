import Foundation
import TestSupport
import XCTest

@testable import PostgresCore

final class ConnectionTests: XCTestCase {
  func testStatementsRunInTheStoreSchemaAndAreCached() throws {
    let schema = try PostgresTestSchema("conn")
    let db = try freshConnection(schema)
    XCTAssertFalse(try db.hasTable("t"))
    try db.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT)")
    XCTAssertTrue(try db.hasTable("t"))
    XCTAssertEqual(try schema.psql("SELECT count(*) FROM pg_tables WHERE schemaname = '\(schema.name)' AND tablename = 't'").stdout, "1")
    let cached = db.cache.count
    try db.run("INSERT INTO t (id, v) VALUES (?, ?)", [.integer(1), .text("one")])
    try db.run("INSERT INTO t (id, v) VALUES (?, ?)", [.integer(2), .text("two")])
    XCTAssertEqual(db.changes, 1)
    XCTAssertEqual(db.totalChanges, 2, "rows read are not changes")
    XCTAssertEqual(db.cache.count, cached + 1, "one prepared statement for both inserts")
    XCTAssertEqual(try db.scalar("SELECT v FROM t WHERE id = ?", [.integer(2)]), .text("two"))
    XCTAssertNil(try db.scalar("SELECT v FROM t WHERE id = ?", [.integer(3)]))
    var rows: [SQLValue] = []
    try db.prepare("SELECT id FROM t ORDER BY id").forEachRow { rows.append($0.value(0)) }
    XCTAssertEqual(rows, [.integer(1), .integer(2)])
    let s = try db.prepare("SELECT id, v AS label FROM t WHERE id > ?")
    XCTAssertEqual(s.parameterCount, 1)
    XCTAssertEqual((0..<s.columnCount).map(s.columnName), ["id", "label"])
    XCTAssertTrue(s.isReadOnly)
    XCTAssertFalse(try db.prepare("UPDATE t SET v = ?").isReadOnly)
    try db.run("UPDATE t SET v = ?", [.text("x")])
    XCTAssertEqual(db.changes, 2)
  }

  func testTwoOneOffStatementsUsedInTurnEachRunTheirOwnText() throws {
    let schema = try PostgresTestSchema("oneoff")
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT)")
    let insert = try db.prepare("INSERT INTO t (id, v) VALUES (?, ?)")
    let count = try db.prepare("SELECT count(*) FROM t WHERE id <= ?")
    for i in 1...3 {
      try insert.execute([.integer(Int64(i)), .text("v\(i)")])
      XCTAssertEqual(try count.first([.integer(Int64(i))]) { $0.int(0) }, Int64(i))
    }
  }

  func testStatementErrorsCarryTheSQLStateAndTheSQL() throws {
    let schema = try PostgresTestSchema("errors")
    let db = try freshConnection(schema)
    let missing = postgresError { try db.scalar("SELECT * FROM nowhere") }
    XCTAssertEqual(missing?.sqlState, "42P01")
    XCTAssertEqual(missing?.sql, "SELECT * FROM nowhere")
    XCTAssertEqual(missing?.codeName, "42P01")
    XCTAssertTrue(missing?.description.contains("PostgreSQL error 42P01") ?? false)
    try db.execute("CREATE TABLE u (k TEXT UNIQUE)")
    try db.run("INSERT INTO u VALUES (?)", [.text("a")])
    let dup = postgresError { try db.run("INSERT INTO u VALUES (?)", [.text("a")]) }
    XCTAssertEqual(dup?.isConstraint, true)
    XCTAssertEqual(dup?.constraint, "u_k_key")
    // Arithmetic beyond 64 bits fails the statement (22003); only an integer sum beyond
    // them, through the store's ms_integer_sum, is the engine's integerOverflow.
    let overflow = postgresError { try db.scalar("SELECT ? + 1", [.integer(.max)]) }
    XCTAssertEqual(overflow?.sqlState, "22003")
    XCTAssertEqual(overflow?.isIntegerOverflow, false)
    try db.execute(PostgresDialect.integerSumFunction)
    let sumOverflow = postgresError {
      try db.scalar(
        "SELECT \(db.dialect.total("x", integers: true)) FROM (VALUES (?::bigint), (?::bigint)) v(x)", [.integer(.max), .integer(1)])
    }
    XCTAssertEqual(sumOverflow?.sqlState, "22003")
    XCTAssertEqual(sumOverflow?.isIntegerOverflow, true)
    XCTAssertEqual(
      try db.scalar(
        "SELECT \(db.dialect.total("x", integers: true)) FROM (VALUES (?::bigint), (?::bigint)) v(x)", [.integer(.max), .integer(-1)]),
      .integer(.max - 1))
    // The numeric form of the SQLSTATE is PostgreSQL's own (MAKE_SQLSTATE).
    XCTAssertEqual(PostgresError(sqlState: "23505", message: "").code, 2 | 3 << 6 | 5 << 12 | 0 << 18 | 5 << 24)
    XCTAssertEqual(postgresError { try db.bindTooMany() }?.sqlState, "22023")
  }

  func testSwiftFunctionsAndFileBackupsAreRefusedPrecisely() throws {
    let schema = try PostgresTestSchema("refusals")
    let db = try freshConnection(schema)
    let f = postgresError { try db.createFunction("ms_fold", argumentCount: 2) { $0[0] } }
    XCTAssertEqual(f?.sqlState, "0A000")
    XCTAssertTrue(f?.message.contains("ms_fold() is a Swift function") ?? false, f?.message ?? "")
    let b = postgresError { try db.backup(to: "/tmp/x") }
    XCTAssertTrue(b?.message.contains("pg_dump --schema=\"\(schema.name)\"") ?? false, b?.message ?? "")
    XCTAssertNil(db.commitMarker())
  }

  func testAReadOnlyConnectionTakesNoWriteLockAndReadOnlyRefusalsAreRecognized() throws {
    let schema = try PostgresTestSchema("readonly")
    let writer = try freshConnection(schema)
    try writer.execute("CREATE TABLE t (v BIGINT)")
    let reader = try PostgresConnection(url: PostgresURL(schema.storeURL), options: .init(readOnly: true))
    // A read-only connection takes no write lock: it reads while a writer holds it.
    try writer.begin()
    try reader.begin()
    XCTAssertEqual(try reader.scalar("SELECT count(*) FROM t"), .integer(0))
    reader.rollback()
    writer.rollback()
    // A server, database or role that makes transactions read-only refuses as read-only.
    try reader.execute("SET default_transaction_read_only = on")
    let e = postgresError { try reader.run("INSERT INTO t VALUES (?)", [.integer(1)]) }
    XCTAssertEqual(e?.isReadOnly, true)
  }

  func testALostConnectionFailsTheStatementAndIsMadeAgainOutsideATransaction() throws {
    let schema = try PostgresTestSchema("lost")
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE t (v BIGINT)")
    let insert = try db.cached("INSERT INTO t VALUES (?)")
    try db.begin()
    try insert.execute([.integer(1)])
    try terminate(db)
    let e = postgresError { try insert.execute([.integer(2)]) }
    XCTAssertEqual(e?.isConnectionFailure, true, "\(String(describing: e))")
    XCTAssertTrue(e?.message.contains("the connection to the PostgreSQL server was lost") ?? false)
    XCTAssertTrue(db.isAutocommit, "the server rolled the transaction back")
    // Nothing runs outside the transaction the engine believes open: not a statement...
    XCTAssertEqual(postgresError { try insert.execute([.integer(4)]) }?.isConnectionFailure, true)
    db.rollback()
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertFalse(db.transactionWasLost, "only its outermost level was open")
    // The next statement connects again; the cached statement is prepared again.
    try insert.execute([.integer(3)])
    XCTAssertEqual(try db.scalar("SELECT string_agg(v::text, ',') FROM t"), .text("3"), "nothing of the lost transaction was kept")
    // ...nor a savepoint: a level opened in a transaction the server has ended fails at its
    // first statement, and rolling it back finds the whole transaction gone.
    var ended = 0
    db.didEndTransaction = { ended += 1 }
    try db.begin()
    try insert.execute([.integer(5)])
    try terminate(db)
    try db.begin()
    XCTAssertEqual(postgresError { try insert.execute([.integer(7)]) }?.isConnectionFailure, true)
    db.rollback()
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertTrue(db.transactionWasLost)
    XCTAssertEqual(ended, 1)
    db.transactionWasLost = false
    // Once the loss is known, opening a level fails at once and forgets the transaction.
    try db.begin()
    try insert.execute([.integer(8)])
    try terminate(db)
    XCTAssertEqual(postgresError { try insert.execute([.integer(9)]) }?.isConnectionFailure, true)
    XCTAssertEqual(postgresError { try db.begin() }?.isConnectionFailure, true)
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertTrue(db.transactionWasLost)
    XCTAssertEqual(ended, 2)
    db.transactionWasLost = false
    try insert.execute([.integer(6)])
    XCTAssertEqual(try db.scalar("SELECT string_agg(v::text, ',' ORDER BY v) FROM t"), .text("3,6"))
  }

  func testTheCancellationProbeRunsWhileAStatementWaitsAndCancelsIt() throws {
    let schema = try PostgresTestSchema("probe")
    let db = try freshConnection(schema)
    // The server's probe reads its input while a request runs and interrupts on a cancel.
    db.cancellationProbe = { db.interrupt() }
    let e = postgresError { try db.scalar("SELECT pg_sleep(30)") }
    XCTAssertEqual(e?.isInterrupted, true, "\(String(describing: e))")
    db.cancellationProbe = nil
    XCTAssertTrue(db.pollInterrupt())
    db.clearInterrupt()
    XCTAssertEqual(try db.scalar("SELECT 1"), .integer(1), "the connection goes on after a cancel")
  }

  func testALongReadIsCancelledFromAnotherThread() throws {
    let schema = try PostgresTestSchema("cancel")
    let db = try freshConnection(schema)
    /// Hands the connection to the cancelling thread, which calls only `interrupt()`
    /// (documented as safe from any thread; it takes the connection's lock).
    final class Handle: @unchecked Sendable {
      let db: PostgresConnection
      init(_ db: PostgresConnection) { self.db = db }
    }
    let handle = Handle(db)
    let waiting = DispatchSemaphore(value: 0)
    // The probe runs only while the statement waits for the server: then it is underway.
    db.cancellationProbe = { waiting.signal() }
    let canceller = Thread {
      waiting.wait()
      handle.db.interrupt()
    }
    canceller.start()
    let e = postgresError { try db.scalar("SELECT pg_sleep(30)") }
    XCTAssertEqual(e?.isInterrupted, true, "\(String(describing: e))")
    db.cancellationProbe = nil
    db.clearInterrupt()
    try db.begin()
    XCTAssertEqual(try db.scalar("SELECT 2"), .integer(2))
    try db.commit()
  }

  /// Ends `db`'s server process from another connection.
  private func terminate(_ db: PostgresConnection) throws {
    guard case .integer(let pid)? = try db.scalar("SELECT pg_backend_pid()") else { return XCTFail("no pid") }
    let admin = try PostgresConnection(url: db.url)
    XCTAssertEqual(try admin.scalar("SELECT pg_terminate_backend(?::integer)", [.integer(pid)]), .integer(1))
    admin.close()
  }
}

extension PostgresConnection {
  fileprivate func bindTooMany() throws { try run("SELECT ?::bigint", [.integer(1), .integer(2)]) }
}
