import TestSupport
import XCTest

@testable import PostgresCore

/// Reads asked in a write transaction's opening round trip (`prefetchInWriteTransactions`):
/// they answer the transaction's own run of them only while it has written nothing, and a
/// prefetch that fails (its table gone) costs the transaction nothing but a round trip.
final class PrefetchTests: XCTestCase {
  private let countSQL = "SELECT count(*) FROM t WHERE v > ?"

  private func table(_ schema: PostgresTestSchema) throws -> PostgresConnection {
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE t (v BIGINT UNIQUE); CREATE TABLE other (w BIGINT)")
    return db
  }

  private func count(_ db: PostgresConnection) throws -> Int64? { try db.cached(countSQL).first([.integer(0)]) { $0.int(0) } }


  func testARegisteredReadIsAnsweredFromTheOpeningUntilTheTransactionWrites() throws {
    let schema = try PostgresTestSchema("prefetch")
    let db = try table(schema)
    let writer = try PostgresConnection(url: PostgresURL(schema.storeURL))
    try db.run("INSERT INTO t VALUES (?)", [.integer(1)])
    XCTAssertEqual(try count(db), 1)
    db.prefetchInWriteTransactions(countSQL, [.integer(0)])
    // Another connection commits before the transaction: the opening, after the lock, sees it.
    try writer.run("INSERT INTO t VALUES (?)", [.integer(2)])
    try db.begin()
    try db.run("INSERT INTO other VALUES (?)", [.integer(0)])  // opens the transaction (a write: the answer is dropped)
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try count(db), 2) }, 1, "asked again after a write")
    try db.commit()
    try db.begin()
    XCTAssertEqual(try db.scalar("SELECT 1"), .integer(1))  // opens the transaction and asks the prefetch
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try count(db), 2) }, 0, "answered from the opening")
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try count(db), 2) }, 1, "an answer serves once")
    try db.run("INSERT INTO t VALUES (?)", [.integer(3)])
    XCTAssertEqual(try count(db), 3)
    try db.commit()
    // Other values are another read.
    try db.begin()
    _ = try db.scalar("SELECT 1")
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try db.cached(countSQL).first([.integer(2)]) { $0.int(0) }, 1) }, 1)
    db.rollback()
    // A write held back in the opening's round trip, after the prefetch, makes it stale.
    try db.begin()
    try db.cached("INSERT INTO t VALUES (?)").executeLater([.integer(4)])
    _ = try db.scalar("SELECT 1")
    XCTAssertEqual(try count(db), 4)
    db.rollback()
    // Rolling a level back drops the answers.
    try db.begin()
    _ = try db.scalar("SELECT 1")
    try db.begin()
    db.rollback()
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try count(db), 3) }, 1)
    db.rollback()
  }

  func testAFailingPrefetchIsDroppedAndTheTransactionGoesOn() throws {
    let schema = try PostgresTestSchema("prefetchgone")
    let db = try table(schema)
    let other = try PostgresConnection(url: PostgresURL(schema.storeURL))
    let sql = "SELECT count(*) FROM other"
    XCTAssertEqual(try db.scalar(sql), .integer(0))
    db.prefetchInWriteTransactions(sql, [])
    try other.execute("DROP TABLE other")
    try db.begin()
    try db.run("INSERT INTO t VALUES (?)", [.integer(7)])
    try db.commit()
    XCTAssertEqual(try count(db), 1, "the insert went through, in a transaction opened again without the prefetch")
    XCTAssertEqual(db.prefetches.count, 0)
    try db.inTransaction { try db.run("INSERT INTO t VALUES (?)", [.integer(8)]) }
    XCTAssertEqual(try count(db), 2)
  }
}
