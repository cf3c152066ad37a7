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

  func testLevelsCostNoRoundTripOfTheirOwn() throws {
    let schema = try PostgresTestSchema("lazy")
    let db = try table(schema)
    let insert = try db.cached("INSERT INTO t VALUES (?)")
    func trips(_ body: () throws -> Void) rethrows -> Int {
      let before = db.roundTrips
      try body()
      return db.roundTrips - before
    }
    // A transaction in which nothing ran is neither opened nor committed on the server.
    XCTAssertEqual(
      try trips {
        try db.begin()
        try db.begin()
        db.rollback()
        try db.commit()
      }, 0)
    XCTAssertTrue(db.isAutocommit)
    // Levels open and close with the statements they hold, in their round trips: one per
    // statement and one for the COMMIT.
    XCTAssertEqual(
      try trips {
        try db.begin()
        try db.begin()
        try insert.execute([.integer(1)])
        try db.commit()
        try db.begin()
        try insert.execute([.integer(2)])
        db.rollback()
        try db.begin()
        db.rollback()
        try db.commit()
      }, 3)
    XCTAssertEqual(try values(db), [1])
    // A snapshot: none without statements; with them, as many as its statements (its COMMIT
    // is answered in the next round trip).
    XCTAssertEqual(try trips { XCTAssertEqual(try db.readingOneSnapshot { 7 }, 7) }, 0)
    XCTAssertEqual(try trips { _ = try db.readingOneSnapshot { try values(db) } }, 1)
    XCTAssertTrue(db.isAutocommit)
    XCTAssertEqual(try trips { _ = try db.readingOneSnapshot { (try values(db), try values(db)) } }, 2)
    XCTAssertEqual(try values(db), [1], "the next statement reads the COMMIT's answer first")
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
    try first.run("INSERT INTO t VALUES (?)", [.integer(1)])
    // The lock is taken with the transaction's first statement (in its round trip).
    try second.begin()
    let e = postgresError { try second.run("INSERT INTO t VALUES (?)", [.integer(2)]) }
    XCTAssertEqual(e?.isBusy, true, "\(String(describing: e))")
    XCTAssertEqual(e?.sqlState, "55P03")
    second.rollback()
    XCTAssertEqual(second.transactionDepth, 0)
    XCTAssertTrue(second.isAutocommit)
    first.rollback()
    try second.inTransaction { try second.run("INSERT INTO t VALUES (?)", [.integer(2)]) }
    XCTAssertEqual(try values(second), [2])
    // Another schema is another store, with a lock of its own.
    let other = try PostgresTestSchema("busy2")
    let third = try freshConnection(other)
    try third.execute("CREATE TABLE t (v BIGINT UNIQUE)")
    try first.begin()
    try first.run("INSERT INTO t VALUES (?)", [.integer(3)])
    try third.inTransaction { try third.run("INSERT INTO t VALUES (?)", [.integer(3)]) }
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
