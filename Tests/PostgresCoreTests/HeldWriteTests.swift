import TestSupport
import XCTest

@testable import PostgresCore

/// Writes held back (`executeLater`) until the connection's next round trip: they cost
/// none of their own, never outlive their level, and a failure among them fails the
/// call that sent them, naming the held statement, with nothing of the level kept.
final class HeldWriteTests: XCTestCase {
  private let insertSQL = "INSERT INTO t VALUES (?)"

  private func table(_ schema: PostgresTestSchema) throws -> PostgresConnection {
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE t (v BIGINT UNIQUE); CREATE TABLE c (n BIGINT NOT NULL); INSERT INTO c VALUES (0)")
    db.commitPrelude = ["UPDATE c SET n = n + 1"]
    return db
  }

  private func values(_ db: PostgresConnection) throws -> [Int64] {
    var out: [Int64] = []
    try db.cached("SELECT v FROM t ORDER BY v").forEachRow { out.append($0.int(0)) }
    return out
  }

  private func commits(_ db: PostgresConnection) throws -> SQLValue? { try db.scalar("SELECT n FROM c") }


  func testHeldWritesGoWithTheNextStatementOrTheCommit() throws {
    let schema = try PostgresTestSchema("held")
    let db = try table(schema)
    let insert = try db.cached(insertSQL)
    // The transaction's opening with the first statement, the held writes with the
    // prelude and the COMMIT.
    XCTAssertEqual(
      try roundTrips(db) {
        try db.begin()
        try insert.execute([.integer(1)])
        try insert.executeLater([.integer(2)])
        try insert.executeLater([.integer(3)])
        try db.commit()
      }, 2)
    XCTAssertEqual(try values(db), [1, 2, 3])
    // A transaction of held writes alone: one round trip, opening to COMMIT.
    XCTAssertEqual(
      try roundTrips(db) {
        try db.inTransaction { try insert.executeLater([.integer(4)]) }
      }, 1)
    XCTAssertEqual(try commits(db), .integer(2))
    // The next statement sees them (they went first, in its round trip).
    try db.begin()
    try insert.executeLater([.integer(5)])
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try values(db), [1, 2, 3, 4, 5]) }, 1)
    db.rollback()
    XCTAssertEqual(try values(db), [1, 2, 3, 4])
    // Outside a transaction there is nothing to hold them in: they run at once.
    XCTAssertEqual(try roundTrips(db) { try insert.executeLater([.integer(6)]) }, 1)
    XCTAssertEqual(try values(db), [1, 2, 3, 4, 6])
  }

  func testAFailingHeldWriteFailsTheCommitWithItsOwnErrorAndNothingIsKept() throws {
    let schema = try PostgresTestSchema("heldfail")
    let db = try table(schema)
    let insert = try db.cached(insertSQL)
    try insert.execute([.integer(1)])
    try db.begin()
    try insert.execute([.integer(10)])
    try insert.executeLater([.integer(1)])
    try insert.executeLater([.integer(11)])
    let e = postgresError { try db.commit() }
    XCTAssertEqual(e?.isConstraint, true, "\(String(describing: e))")
    XCTAssertEqual(e?.sql, insertSQL, "the error names the held statement")
    XCTAssertEqual(db.transactionDepth, 1, "the transaction stays open for the caller to roll back")
    db.rollback()
    XCTAssertTrue(db.isAutocommit)
    XCTAssertEqual(try values(db), [1], "nothing of the transaction is kept")
    XCTAssertEqual(try commits(db), .integer(0), "the prelude after the failure did not run")
    // Failing in front of the next statement instead: that statement fails with it.
    try db.begin()
    try insert.executeLater([.integer(1)])
    let read = postgresError { try values(db) }
    XCTAssertEqual(read?.isConstraint, true)
    XCTAssertEqual(read?.sql, insertSQL)
    XCTAssertNotNil(postgresError { try db.commit() }, "the level's work was undone: it cannot be committed")
    db.rollback()
    try db.inTransaction { try insert.executeLater([.integer(12)]) }
    XCTAssertEqual(try values(db), [1, 12])
  }

  func testHeldWritesNeverOutliveTheirLevel() throws {
    let schema = try PostgresTestSchema("heldlevel")
    let db = try table(schema)
    let insert = try db.cached(insertSQL)
    try insert.execute([.integer(1)])
    try db.begin()
    try insert.execute([.integer(2)])
    // Closing a level sends what it holds (a request inside a client transaction is
    // answered only once its writes are done).
    try db.begin()
    try insert.executeLater([.integer(3)])
    XCTAssertEqual(try roundTrips(db) { try db.commit() }, 1)
    // Rolling a level back drops what it holds, unsent.
    try db.begin()
    try insert.executeLater([.integer(4)])
    XCTAssertEqual(roundTrips(db) { db.rollback() }, 0)
    // A held write that fails when its level closes: the close is refused, the level stays
    // open, and rolling it back keeps the outer level's work.
    try db.begin()
    try insert.execute([.integer(5)])
    try insert.executeLater([.integer(1)])
    let e = postgresError { try db.commit() }
    XCTAssertEqual(e?.isConstraint, true)
    XCTAssertEqual(db.transactionDepth, 2)
    db.rollback()
    try db.commit()
    XCTAssertEqual(try values(db), [1, 2, 3])
    XCTAssertEqual(try commits(db), .integer(1))
  }
}
