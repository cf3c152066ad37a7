import TestSupport
import XCTest

@testable import PostgresCore

/// A value checked in the round trip that opens a transaction or read snapshot
/// (`expectAtNextOpening`): when it is what the caller expects, the opening's first
/// statement is answered as usual, in the same round trip; when it is not, that statement
/// (made from what the caller read before) fails instead of giving out its answer, and so
/// does every statement after it until the caller takes note.
final class ExpectationTests: XCTestCase {
  private let versionSQL = "SELECT max(v) FROM version"

  /// A connection on a fresh schema with a one-row `version` table at `v` and a table `t`;
  /// the version's statement prepared.
  private func connection(_ schema: PostgresTestSchema) throws -> PostgresConnection {
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE version (v BIGINT); INSERT INTO version VALUES (1); CREATE TABLE t (x BIGINT)")
    return db
  }

  private func bump(_ schema: PostgresTestSchema) throws {
    let other = try PostgresConnection(url: PostgresURL(schema.storeURL))
    try other.execute("UPDATE version SET v = v + 1")
    other.close()
  }

  func testAnExpectationThatHoldsCostsNoRoundTripOfItsOwn() throws {
    let schema = try PostgresTestSchema("expect")
    defer { schema.drop() }
    let db = try connection(schema)
    // (Prepared before: preparing is a round trip of its own.)
    for sql in ["INSERT INTO t VALUES (?)", "SELECT count(*) FROM t"] { _ = try db.cached(sql) }
    try db.expectAtNextOpening([], versionSQL, [], answer: .integer(1))
    try db.begin()
    XCTAssertEqual(try roundTrips(db) { try db.run("INSERT INTO t VALUES (?)", [.integer(1)]) }, 1, "with the opening")
    XCTAssertTrue(db.expectationAnswered)
    try db.commit()
    // A read snapshot, a lock statement first.
    try db.expectAtNextOpening(["LOCK TABLE version IN ACCESS SHARE MODE"], versionSQL, [], answer: .integer(1))
    let n = try db.readingOneSnapshot {
      try roundTrips(db) { XCTAssertEqual(try db.scalar("SELECT count(*) FROM t"), .integer(1)) }
    }
    XCTAssertEqual(n, 1)
    XCTAssertEqual(db.staleOpenings, 0)
    // An expectation is taken by one opening only.
    try db.begin()
    XCTAssertEqual(try roundTrips(db) { try db.run("INSERT INTO t VALUES (?)", [.integer(2)]) }, 1)
    XCTAssertFalse(db.expectationAnswered)
    db.rollback()
  }

  func testAStatementSentWithAnExpectationThatFailsIsNotAnsweredAndIsUndone() throws {
    let schema = try PostgresTestSchema("expect")
    defer { schema.drop() }
    let db = try connection(schema)
    try bump(schema)
    try db.expectAtNextOpening([], versionSQL, [], answer: .integer(1))
    try db.begin()
    let stale = postgresError { try db.run("INSERT INTO t VALUES (?)", [.integer(1)]) }
    XCTAssertEqual(stale?.sqlState, "40000", "\(String(describing: stale))")
    XCTAssertEqual(db.staleOpenings, 1)
    // Until the caller takes note, every statement fails so.
    XCTAssertEqual(postgresError { try db.scalar("SELECT count(*) FROM t") }?.sqlState, "40000")
    db.acceptStaleOpening()
    XCTAssertEqual(try db.scalar(versionSQL), .integer(2), "the transaction goes on, under its lock")
    db.rollback()
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t"), .integer(0), "the statement sent with it was undone")
  }

  /// A statement that failed by itself, sent with an expectation that failed too: the
  /// expectation's failure is the one given (the statement was made from what changed).
  func testTheExpectationFailsBeforeTheStatementsOwnFailure() throws {
    let schema = try PostgresTestSchema("expect")
    defer { schema.drop() }
    let db = try connection(schema)
    try bump(schema)
    try db.expectAtNextOpening(["LOCK TABLE version IN ACCESS SHARE MODE"], versionSQL, [], answer: .integer(1))
    try db.readingOneSnapshot {
      XCTAssertEqual(postgresError { try db.scalar("SELECT missing FROM t") }?.sqlState, "40000")
      db.acceptStaleOpening()
      // The snapshot is usable again (its failed statement rolled back to its savepoint).
      XCTAssertEqual(try db.scalar(versionSQL), .integer(2))
    }
  }

  /// A transaction whose only statements are held writes sends the expectation before
  /// its COMMIT: nothing is committed when it fails.
  func testACommitOfHeldWritesOnlyChecksTheExpectationFirst() throws {
    let schema = try PostgresTestSchema("expect")
    defer { schema.drop() }
    let db = try connection(schema)
    _ = try db.cached("INSERT INTO t VALUES (?)")
    try bump(schema)
    try db.expectAtNextOpening([], versionSQL, [], answer: .integer(1))
    try db.begin()
    try db.cached("INSERT INTO t VALUES (?)").executeLater([.integer(5)])
    XCTAssertEqual(postgresError { try db.commit() }?.sqlState, "40000")
    db.rollback()
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM t"), .integer(0))
  }

  /// An opening in which no statement ran sends its expectation when asked, alone.
  func testAnExpectationIsSentAloneWhenAsked() throws {
    let schema = try PostgresTestSchema("expect")
    defer { schema.drop() }
    let db = try connection(schema)
    try db.expectAtNextOpening([], versionSQL, [], answer: .integer(1))
    try db.begin()
    XCTAssertTrue(db.expectationIsPending)
    XCTAssertEqual(try roundTrips(db) { try db.sendPendingExpectation() }, 1)
    XCTAssertFalse(db.expectationIsPending)
    XCTAssertEqual(try roundTrips(db) { try db.sendPendingExpectation() }, 0)
    try db.commit()
    try bump(schema)
    try db.expectAtNextOpening([], versionSQL, [], answer: .integer(1))
    try db.readingOneSnapshot {
      XCTAssertEqual(postgresError { try db.sendPendingExpectation() }?.sqlState, "40000")
    }
    XCTAssertEqual(db.staleOpenings, 1)
  }
}
