import XCTest

@testable import SQLiteCore

private struct Boom: Error {}

final class TransactionTests: XCTestCase {
  private func db() throws -> Connection {
    let db = try memoryDB()
    try db.execute("CREATE TABLE t (v INTEGER)")
    return db
  }

  private func values(_ db: Connection) throws -> [SQLValue] { try column(db, "SELECT v FROM t ORDER BY v") }

  func testBeginCommit() throws {
    let db = try db()
    try db.begin()
    XCTAssertEqual(db.transactionDepth, 1)
    XCTAssertFalse(db.isAutocommit)
    try db.run("INSERT INTO t VALUES (1)")
    try db.commit()
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertTrue(db.isAutocommit)
    XCTAssertEqual(try values(db), [.integer(1)])
  }

  func testOuterRollbackUndoesEverything() throws {
    let db = try db()
    try db.begin()
    try db.run("INSERT INTO t VALUES (1)")
    try db.begin()
    try db.run("INSERT INTO t VALUES (2)")
    try db.commit()
    db.rollback()
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertTrue(db.isAutocommit)
    XCTAssertEqual(try values(db), [])
  }

  func testInnerRollbackUndoesOnlyTheInnerLevel() throws {
    let db = try db()
    try db.begin()
    try db.run("INSERT INTO t VALUES (1)")
    try db.begin()
    XCTAssertEqual(db.transactionDepth, 2)
    try db.run("INSERT INTO t VALUES (2)")
    db.rollback()
    XCTAssertEqual(db.transactionDepth, 1)
    XCTAssertFalse(db.isAutocommit, "the outer transaction is still open")
    XCTAssertEqual(try values(db), [.integer(1)])
    try db.run("INSERT INTO t VALUES (3)")
    try db.commit()
    XCTAssertEqual(try values(db), [.integer(1), .integer(3)])
  }

  func testThreeLevelsMiddleRollback() throws {
    let db = try db()
    try db.begin()
    try db.run("INSERT INTO t VALUES (1)")
    try db.begin()
    try db.run("INSERT INTO t VALUES (2)")
    try db.begin()
    try db.run("INSERT INTO t VALUES (3)")
    try db.commit()  // level 3 folds into level 2
    XCTAssertEqual(db.transactionDepth, 2)
    db.rollback()  // level 2 (with 3's work) undone
    XCTAssertEqual(try values(db), [.integer(1)])
    try db.begin()
    try db.run("INSERT INTO t VALUES (4)")
    try db.commit()
    try db.commit()
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertEqual(try values(db), [.integer(1), .integer(4)])
  }

  func testRepeatedInnerLevelsReuseSavepointNames() throws {
    let db = try db()
    try db.begin()
    for i in 0..<5 {
      try db.begin()
      try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(i))])
      if i % 2 == 0 { try db.commit() } else { db.rollback() }
    }
    try db.commit()
    XCTAssertEqual(try values(db), [.integer(0), .integer(2), .integer(4)])
  }

  func testInTransactionCommitsOnSuccess() throws {
    let db = try db()
    let r = try db.inTransaction { () -> Int in
      try db.run("INSERT INTO t VALUES (5)")
      return 42
    }
    XCTAssertEqual(r, 42)
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertEqual(try values(db), [.integer(5)])
  }

  func testInTransactionRollsBackOnThrow() throws {
    let db = try db()
    XCTAssertThrowsError(
      try db.inTransaction {
        try db.run("INSERT INTO t VALUES (1)")
        throw Boom()
      }
    ) { XCTAssertTrue($0 is Boom) }
    XCTAssertEqual(db.transactionDepth, 0)
    XCTAssertTrue(db.isAutocommit)
    XCTAssertEqual(try values(db), [])
  }

  func testNestedInTransactionFailureKeepsOuterWork() throws {
    let db = try db()
    try db.inTransaction {
      try db.run("INSERT INTO t VALUES (1)")
      XCTAssertThrowsError(
        try db.inTransaction {
          try db.run("INSERT INTO t VALUES (2)")
          throw Boom()
        })
      XCTAssertEqual(db.transactionDepth, 1)
      try db.run("INSERT INTO t VALUES (3)")
    }
    XCTAssertEqual(try values(db), [.integer(1), .integer(3)])
  }

  func testRollbackWhileAStatementIsStepping() throws {
    let db = try db()
    try db.execute("INSERT INTO t VALUES (1), (2)")
    try db.begin()
    try db.run("INSERT INTO t VALUES (3)")
    let s = try db.cached("SELECT v FROM t")
    XCTAssertEqual(try s.step(), true)  // left mid-step on purpose
    db.rollback()
    XCTAssertTrue(db.isAutocommit)
    XCTAssertEqual(try values(db), [.integer(1), .integer(2)])
  }

  func testConstraintErrorInsideTransactionKeepsItOpen() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE u (v UNIQUE)")
    try db.begin()
    try db.run("INSERT INTO u VALUES (1)")
    XCTAssertNotNil(sqliteError { try db.run("INSERT INTO u VALUES (1)") })
    XCTAssertEqual(db.transactionDepth, 1)
    try db.run("INSERT INTO u VALUES (2)")
    try db.commit()
    XCTAssertEqual(try column(db, "SELECT v FROM u ORDER BY v"), [.integer(1), .integer(2)])
  }

  func testReadOnlyConnectionRefusesWrites() throws {
    let path = temporaryPath(self)
    do {
      let rw = try Connection(path: path)
      try rw.execute("CREATE TABLE t (v); INSERT INTO t VALUES (1)")
    }
    let ro = try Connection(path: path, options: .init(readOnly: true))
    XCTAssertTrue(ro.isReadOnly)
    XCTAssertEqual(try ro.scalar("SELECT v FROM t"), .integer(1))
    let e = sqliteError { try ro.execute("INSERT INTO t VALUES (2)") }
    XCTAssertEqual(e?.isReadOnly, true)
    try ro.begin()  // deferred for readers
    XCTAssertEqual(try ro.scalar("SELECT count(*) FROM t"), .integer(1))
    try ro.commit()
  }

  func testOpenWithoutCreateFailsForMissingFile() throws {
    let path = temporaryPath(self, "missing.sqlite")
    let e = sqliteError { try Connection(path: path, options: .init(create: false)) }
    XCTAssertEqual(e?.primaryCode, 14, "SQLITE_CANTOPEN")
  }
}
