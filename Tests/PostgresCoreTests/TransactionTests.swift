import TestSupport
import XCTest

@testable import PostgresCore

final class TransactionTests: XCTestCase {
  private func table(_ schema: PostgresTestSchema) throws -> PostgresConnection {
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE t (v BIGINT UNIQUE)")
    return db
  }

  private func values(_ db: PostgresConnection) throws -> [Int64] {
    var out: [Int64] = []
    try db.cached("SELECT v FROM t ORDER BY v").forEachRow { out.append($0.int(0)) }
    return out
  }

  func testLevelsNestAsSavepoints() throws {
    let schema = try PostgresTestSchema("levels")
    let db = try table(schema)
    var commits = 0
    var ends = 0
    db.willCommit = { commits += 1 }
    db.didEndTransaction = { ends += 1 }
    XCTAssertTrue(db.isAutocommit)
    try db.begin()
    XCTAssertFalse(db.isAutocommit)
    try db.run("INSERT INTO t VALUES (?)", [.integer(1)])
    try db.begin()
    try db.run("INSERT INTO t VALUES (?)", [.integer(2)])
    db.rollback()
    XCTAssertEqual(db.transactionDepth, 1)
    try db.inTransaction { try db.run("INSERT INTO t VALUES (?)", [.integer(3)]) }
    XCTAssertEqual(commits, 0, "willCommit runs for the outermost level only")
    try db.commit()
    XCTAssertEqual(commits, 1)
    XCTAssertEqual(ends, 1)
    XCTAssertEqual(try values(db), [1, 3])
    try db.begin()
    try db.run("INSERT INTO t VALUES (?)", [.integer(4)])
    db.rollback()
    XCTAssertEqual(ends, 2, "didEndTransaction runs after a rollback too")
    XCTAssertEqual(try values(db), [1, 3])
  }

  func testAFailedStatementLeavesTheTransactionUsableAndItsLevelUncommittable() throws {
    let schema = try PostgresTestSchema("failed")
    let db = try table(schema)
    try db.begin()
    try db.run("INSERT INTO t VALUES (?)", [.integer(1)])
    try db.begin()  // a request inside a client transaction
    try db.run("INSERT INTO t VALUES (?)", [.integer(2)])
    let dup = postgresError { try db.run("INSERT INTO t VALUES (?)", [.integer(1)]) }
    XCTAssertEqual(dup?.isConstraint, true)
    // The engine reads on to report the failure: the statement works (PostgreSQL alone
    // would refuse it in the aborted transaction), and sees the outer level's work.
    XCTAssertEqual(try values(db), [1])
    let refused = postgresError { try db.commit() }
    XCTAssertEqual(refused?.sqlState, "25P02")
    XCTAssertEqual(db.transactionDepth, 2, "the level stays open for the caller to roll back")
    db.rollback()
    try db.run("INSERT INTO t VALUES (?)", [.integer(5)])
    try db.commit()
    XCTAssertEqual(try values(db), [1, 5])
  }

  func testInnerLevelsTravelWithTheNextStatement() throws {
    let schema = try PostgresTestSchema("pipelined")
    let db = try table(schema)
    let oneOff = try db.prepare("SELECT CAST(? AS bigint) + 1")  // holds the server's unnamed statement
    try db.begin()
    try db.begin()
    XCTAssertEqual(db.deferred, ["SAVEPOINT ms_sp1"], "nothing sent yet")
    try db.commit()
    XCTAssertEqual(db.deferred, [], "a level with no statement in it sends nothing")
    try db.begin()
    try db.run("INSERT INTO t VALUES (?)", [.integer(1)])  // in one pipeline with its SAVEPOINT
    try db.commit()
    XCTAssertEqual(db.deferred, ["RELEASE SAVEPOINT ms_sp1"])
    try db.begin()
    // The queued commands use the unnamed statement first: the one-off statement sends its text again.
    XCTAssertEqual(try oneOff.first([.integer(41)]) { $0.int(0) }, 42)
    let dup = postgresError { try db.run("INSERT INTO t VALUES (?)", [.integer(1)]) }
    XCTAssertEqual(dup?.isConstraint, true, "a failure in a pipeline is the statement's")
    db.rollback()
    try db.begin()
    try db.execute("INSERT INTO t VALUES (2)")  // a simple query carries the queue too
    db.rollback()
    try db.inTransaction { try db.run("INSERT INTO t VALUES (?)", [.integer(3)]) }
    try db.commit()
    XCTAssertEqual(db.deferred, [], "the COMMIT carried the last RELEASE")
    XCTAssertEqual(try values(db), [1, 3])
  }

  func testAFailureInTheOutermostLevelIsRecoveredToo() throws {
    let schema = try PostgresTestSchema("outer")
    let db = try table(schema)
    try db.run("INSERT INTO t VALUES (?)", [.integer(1)])
    try db.begin()
    try db.run("INSERT INTO t VALUES (?)", [.integer(2)])
    XCTAssertNotNil(postgresError { try db.run("INSERT INTO t VALUES (?)", [.integer(1)]) })
    XCTAssertEqual(try values(db), [1], "the level's work is undone, the committed rows are read")
    XCTAssertNotNil(postgresError { try db.commit() })
    db.rollback()
    XCTAssertTrue(db.isAutocommit)
    XCTAssertFalse(db.transactionWasLost)
  }

  func testAWriterWaitsForTheStoreLockAndFailsAsBusy() throws {
    let schema = try PostgresTestSchema("busy")
    let first = try table(schema)
    var options = PostgresConnection.Options()
    options.lockTimeoutMilliseconds = 100
    let second = try PostgresConnection(url: PostgresURL(schema.storeURL), options: options)
    try first.begin()
    let e = postgresError { try second.begin() }
    XCTAssertEqual(e?.isBusy, true, "\(String(describing: e))")
    XCTAssertEqual(e?.sqlState, "55P03")
    XCTAssertEqual(second.transactionDepth, 0)
    XCTAssertTrue(second.isAutocommit)
    first.rollback()
    try second.begin()
    try second.commit()
    // Another schema is another store, with a lock of its own.
    let other = try PostgresTestSchema("busy2")
    let third = try freshConnection(other)
    try first.begin()
    try third.begin()
    third.rollback()
    first.rollback()
    XCTAssertNotEqual(PostgresConnection.lockKey(schema: "a"), PostgresConnection.lockKey(schema: "b"))
    XCTAssertTrue(PostgresError(sqlState: "40001", message: "").isBusy)
    XCTAssertTrue(PostgresError(sqlState: "40P01", message: "").isBusy)
  }

  func testAReadSnapshotSeesNoCommitMadeDuringIt() throws {
    let schema = try PostgresTestSchema("snapshot")
    let reader = try table(schema)
    let writer = try PostgresConnection(url: PostgresURL(schema.storeURL))
    try writer.run("INSERT INTO t VALUES (?)", [.integer(1)])
    let seen = try reader.readingOneSnapshot { () -> ([Int64], [Int64]) in
      let before = try values(reader)
      try writer.run("INSERT INTO t VALUES (?)", [.integer(2)])
      return (before, try values(reader))
    }
    XCTAssertEqual(seen.0, [1])
    XCTAssertEqual(seen.1, [1], "one snapshot")
    XCTAssertTrue(reader.isAutocommit)
    XCTAssertEqual(try values(reader), [1, 2])
    // Reads may make temporary tables (an export's closure) inside a snapshot.
    let made = try reader.readingOneSnapshot { () -> SQLValue? in
      try reader.execute("CREATE TEMP TABLE closure (pk BIGINT PRIMARY KEY)")
      try reader.run("INSERT INTO closure SELECT v FROM t")
      defer { try? reader.execute("DROP TABLE IF EXISTS closure") }
      return try reader.scalar("SELECT count(*) FROM closure")
    }
    XCTAssertEqual(made, .integer(2))
    XCTAssertTrue(reader.isAutocommit)
  }
}
