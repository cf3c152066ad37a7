import TestSupport
import XCTest

@testable import PostgresCore

/// Streams (`forEachRow`) beside what the connection holds back: held writes and
/// prefetches go first in a stream's round trip, a held write's failure fails the stream,
/// a prefetched answer serves a stream, and a statement run inside a stream's body parks
/// the stream before it sends what is held.
final class StreamingWithQueueTests: XCTestCase {
  private let insertSQL = "INSERT INTO t VALUES (?)"
  private let readSQL = "SELECT v FROM t WHERE v > ? ORDER BY v"

  private func table(_ schema: PostgresTestSchema) throws -> PostgresConnection {
    let db = try freshConnection(schema)
    try db.execute("CREATE TABLE t (v BIGINT UNIQUE); CREATE TABLE other (w BIGINT); INSERT INTO t SELECT generate_series(1, 500)")
    return db
  }

  private func rows(_ db: PostgresConnection, after v: Int64 = 0) throws -> [Int64] {
    var out: [Int64] = []
    try db.cached(readSQL).forEachRow([.integer(v)]) { out.append($0.int(0)) }
    return out
  }

  func testHeldWritesGoInTheStreamsRoundTripAndTheirFailureFailsIt() throws {
    let schema = try PostgresTestSchema("streamheld")
    let db = try table(schema)
    let insert = try db.cached(insertSQL)
    XCTAssertEqual(try rows(db, after: 499), [500])  // prepares the read
    try db.begin()
    try insert.executeLater([.integer(1001)])
    try insert.executeLater([.integer(1002)])
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try rows(db, after: 499), [500, 1001, 1002]) }, 1)
    // A held write that fails in front of a stream: the stream throws its error, naming it.
    try insert.executeLater([.integer(1)])
    var seen = 0
    let e = postgresError { try db.cached(readSQL).forEachRow([.integer(0)]) { _ in seen += 1 } }
    XCTAssertEqual(e?.isConstraint, true, "\(String(describing: e))")
    XCTAssertEqual(e?.sql, insertSQL)
    XCTAssertEqual(seen, 0, "the stream's statement was skipped")
    XCTAssertNil(db.activeStream)
    XCTAssertNotNil(postgresError { try db.commit() }, "the transaction failed: it cannot be committed")
    db.rollback()
    XCTAssertEqual(try rows(db, after: 499), [500], "nothing of the transaction is kept")
  }

  func testAStatementInsideAStreamsBodyParksItBeforeSendingWhatIsHeld() throws {
    let schema = try PostgresTestSchema("streamnested")
    let db = try table(schema)
    let insert = try db.cached(insertSQL)
    try db.begin()
    var read: [Int64] = []
    var counts: [SQLValue?] = []
    try db.cached(readSQL).forEachRow([.integer(0)]) { row in
      read.append(row.int(0))
      if row.int(0) % 100 == 0 {
        try insert.executeLater([.integer(1000 + row.int(0))])
        counts.append(try db.scalar("SELECT count(*) FROM t WHERE v > 1000"))
      }
    }
    try db.commit()
    XCTAssertEqual(read, Array(1...500), "the parked rest of the stream, whole and in order")
    XCTAssertEqual(counts, (1...5).map { .integer(Int64($0)) }, "each held write went before the next statement")
    XCTAssertEqual(db.streamsParked, 1)
    XCTAssertEqual(try rows(db, after: 1000), [1100, 1200, 1300, 1400, 1500])
  }

  func testAPrefetchedAnswerServesAStreamAndAFailingPrefetchInFrontOfAStreamIsDropped() throws {
    let schema = try PostgresTestSchema("streamprefetch")
    let db = try table(schema)
    XCTAssertEqual(try rows(db, after: 497), [498, 499, 500])
    db.prefetchInWriteTransactions(readSQL, [.integer(497)])
    try db.begin()
    XCTAssertEqual(try db.scalar("SELECT 1"), .integer(1))  // opens the transaction and asks the prefetch
    XCTAssertEqual(try roundTrips(db) { XCTAssertEqual(try rows(db, after: 497), [498, 499, 500]) }, 0, "answered from the opening")
    XCTAssertNil(db.activeStream)
    db.rollback()
    // The prefetch fails (its table is gone) in the round trip of a stream that opens the
    // transaction: the transaction is opened again without it and the stream answers.
    let other = try PostgresConnection(url: PostgresURL(schema.storeURL))
    let gone = "SELECT count(*) FROM other"
    XCTAssertEqual(try db.scalar(gone), .integer(0))
    db.prefetchInWriteTransactions(gone, [])
    try other.execute("DROP TABLE other")
    try db.begin()
    XCTAssertEqual(try rows(db, after: 498), [499, 500])
    try db.commit()
    XCTAssertFalse(db.prefetches.contains { $0.sql == gone })
  }
}
