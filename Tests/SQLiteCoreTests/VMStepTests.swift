import XCTest

@testable import SQLiteCore

/// `Connection.vmSteps` measures the work inside statements: rows a statement visits cost
/// steps whether or not it returns them, and a statement run again costs the same.
final class VMStepTests: XCTestCase {
  func testStepsGrowWithTheRowsVisitedNotReturned() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (x INTEGER)")
    try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO t SELECT i FROM n")
    func steps(_ sql: String) throws -> Int {
      let before = db.vmSteps
      try db.cached(sql).forEachRow { _ in }
      return db.vmSteps - before
    }
    let constant = try steps("SELECT 1")
    let scan = try steps("SELECT sum(x) FROM t")
    XCTAssertLessThan(constant, 20)
    XCTAssertGreaterThan(scan, 1000, "one row returned, a thousand visited")
    XCTAssertEqual(try steps("SELECT sum(x) FROM t"), scan, "the same work counts the same")
    XCTAssertGreaterThan(try steps("SELECT (SELECT sum(x) FROM t)"), 1000, "subqueries count too")
  }
}
