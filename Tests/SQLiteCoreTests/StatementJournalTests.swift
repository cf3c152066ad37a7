import XCTest

@testable import SQLiteCore

/// A savepoint's journal is kept in memory up to `Connection.savepointJournalInMemory`
/// bytes, then written to a temporary file (journal_vfs.h): a savepoint that changes more
/// than that must work, roll back exactly, and the transaction around it commit (SQLite's
/// unix VFS alone answered the spill of a journal over 128 KiB with SQLITE_FULL).
final class StatementJournalTests: XCTestCase {
  /// Rows of 4,000 bytes: enough for a journal of about twice the in-memory limit.
  private let rows = 2 * Connection.savepointJournalInMemory / 4000

  private func filledStore() throws -> Connection {
    let db = try Connection(path: temporaryPath(self))
    try db.execute("PRAGMA journal_mode = WAL")
    try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, b BLOB)")
    try db.run(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) INSERT INTO t SELECT x, randomblob(4000) FROM c",
      [.integer(Int64(rows))])
    try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db
  }

  /// The table's content in short: each row's key and the first 8 bytes of its blob.
  private func digest(_ db: Connection) throws -> [SQLValue] {
    try column(db, "SELECT group_concat(k || ':' || hex(substr(b, 1, 8)), ',') FROM (SELECT k, b FROM t ORDER BY k)")
  }

  func testASavepointLargerThanTheInMemoryJournalRollsBackExactly() throws {
    let db = try filledStore()
    let before = try digest(db)
    try db.begin()
    try db.begin()
    try db.execute("UPDATE t SET b = zeroblob(4000)")
    XCTAssertNotEqual(try digest(db), before)
    db.rollback()
    XCTAssertEqual(try digest(db), before)
    try db.run("INSERT INTO t (b) VALUES (?)", [.blob([1, 2, 3])])
    try db.commit()
    XCTAssertEqual(try column(db, "SELECT count(*) FROM t"), [.integer(Int64(rows + 1))])
    XCTAssertEqual(try column(db, "PRAGMA integrity_check"), [.text("ok")])
  }

  func testDroppingABigTableInATransactionCommits() throws {
    let db = try filledStore()
    try db.begin()
    try db.execute("ALTER TABLE t RENAME TO aside")
    try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, b BLOB)")
    try db.execute("INSERT INTO t SELECT k, b FROM aside")
    try db.execute("DROP TABLE aside")
    try db.commit()
    XCTAssertEqual(try column(db, "SELECT count(*) FROM t"), [.integer(Int64(rows))])
    XCTAssertEqual(try column(db, "PRAGMA integrity_check"), [.text("ok")])
  }
}
