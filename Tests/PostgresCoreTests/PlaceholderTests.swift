import XCTest

@testable import PostgresCore

final class PlaceholderTests: XCTestCase {
  func testBareAndNumberedParametersFollowSQLiteNumbering() {
    XCTAssertEqual(Placeholders.rewrite("SELECT ?, ?, ?").sql, "SELECT $1, $2, $3")
    XCTAssertEqual(Placeholders.rewrite("SELECT ?, ?, ?").count, 3)
    // `?NNN` keeps its number; a bare `?` is one more than the largest so far.
    let r = Placeholders.rewrite("INSERT INTO t (n) SELECT ?1 WHERE NOT EXISTS (SELECT 1 FROM t WHERE n = ?1) AND ? > 0")
    XCTAssertEqual(r.sql, "INSERT INTO t (n) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM t WHERE n = $1) AND $2 > 0")
    XCTAssertEqual(r.count, 2)
    XCTAssertEqual(Placeholders.rewrite("SELECT ?3, ?").sql, "SELECT $3, $4")
    XCTAssertEqual(Placeholders.rewrite("SELECT 1").count, 0)
  }

  func testQuotedTextAndCommentsKeepTheirQuestionMarks() {
    let cases: [(String, String)] = [
      ("SELECT '?', ?", "SELECT '?', $1"),
      ("SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"),
      ("SELECT \"a?\"\"b\" FROM t WHERE x = ?", "SELECT \"a?\"\"b\" FROM t WHERE x = $1"),
      ("SELECT E'\\'?', ?", "SELECT E'\\'?', $1"),
      ("SELECT 'a\\', ?", "SELECT 'a\\', $1"),  // standard strings: a backslash is a character
      ("SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"),
      ("SELECT /* a /* nested? */ ? */ ?", "SELECT /* a /* nested? */ ? */ $1"),
      ("SELECT $$?$$, $tag$ ? $tag$, ?", "SELECT $$?$$, $tag$ ? $tag$, $1"),
      ("SELECT x$1 FROM t WHERE y = ?", "SELECT x$1 FROM t WHERE y = $1"),
    ]
    for (sql, expected) in cases { XCTAssertEqual(Placeholders.rewrite(sql).sql, expected, sql) }
  }
}
