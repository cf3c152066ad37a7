import XCTest

@testable import SQLiteCore

final class StatementCacheTests: XCTestCase {
  func testHitsAndMisses() throws {
    let db = try memoryDB()
    let (h0, m0) = (db.cacheHits, db.cacheMisses)
    let a = try db.cached("SELECT 1")
    XCTAssertEqual(db.cacheMisses, m0 + 1)
    XCTAssertEqual(db.cacheHits, h0)
    let b = try db.cached("SELECT 1")
    XCTAssertTrue(a === b, "the same prepared statement comes back")
    XCTAssertEqual(db.cacheHits, h0 + 1)
    XCTAssertEqual(db.cacheMisses, m0 + 1)
    _ = try db.cached("SELECT 2")
    XCTAssertEqual(db.cacheMisses, m0 + 2)
  }

  func testRunAndScalarUseTheCache() throws {
    let db = try memoryDB()
    _ = try db.scalar("SELECT 7")
    let misses = db.cacheMisses
    let hits = db.cacheHits
    for _ in 0..<5 { XCTAssertEqual(try db.scalar("SELECT 7"), .integer(7)) }
    XCTAssertEqual(db.cacheMisses, misses)
    XCTAssertEqual(db.cacheHits, hits + 5)
  }

  func testPrepareDoesNotCache() throws {
    let db = try memoryDB()
    let (h, m) = (db.cacheHits, db.cacheMisses)
    let a = try db.prepare("SELECT 3")
    let b = try db.prepare("SELECT 3")
    XCTAssertFalse(a === b)
    XCTAssertEqual(db.cacheHits, h)
    XCTAssertEqual(db.cacheMisses, m)
  }

  func testClearCacheForcesAMiss() throws {
    let db = try memoryDB()
    let a = try db.cached("SELECT 1")
    db.clearCache()
    let misses = db.cacheMisses
    let b = try db.cached("SELECT 1")
    XCTAssertFalse(a === b)
    XCTAssertEqual(db.cacheMisses, misses + 1)
  }

  func testLimitClearsTheCache() throws {
    let db = try memoryDB()
    db.cacheLimit = 2
    let first = try db.cached("SELECT 1")
    _ = try db.cached("SELECT 2")
    _ = try db.cached("SELECT 3")  // reaching the limit empties the cache first
    let misses = db.cacheMisses
    let again = try db.cached("SELECT 1")
    XCTAssertEqual(db.cacheMisses, misses + 1, "evicted by the limit")
    XCTAssertFalse(first === again)
    XCTAssertEqual(try first.first { $0.int(0) }, 1, "an evicted statement that is still referenced keeps working")
  }

  func testFailedPrepareIsNotCached() throws {
    let db = try memoryDB()
    XCTAssertNotNil(sqliteError { try db.cached("SELECT * FROM missing") })
    try db.execute("CREATE TABLE missing (x)")
    XCTAssertNil(try db.cached("SELECT * FROM missing").first { $0.int(0) })
  }

  func testCachedStatementSeesSchemaChangeAfterClear() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (a)")
    try db.run("INSERT INTO t VALUES (1)")
    XCTAssertEqual(try db.cached("SELECT * FROM t").columnCount, 1)
    try db.execute("ALTER TABLE t ADD COLUMN b")
    db.clearCache()
    XCTAssertEqual(try db.cached("SELECT * FROM t").first { $0.count }, 2)
  }
}
