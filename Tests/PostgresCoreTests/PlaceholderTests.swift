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

  /// A quoted identifier longer than 63 bytes is written in its short form: a prefix, `_`
  /// and 16 hex digits of its hash; two names alike in their first 63 bytes stay two, a
  /// name of 63 bytes or fewer and quoted text stay as they are, with or without parameters.
  func testLongIdentifiersAreWrittenInTheirShortForm() {
    let long = String(repeating: "n", count: 63)
    let (a, b) = (long + "A", long + "B")
    let (fa, fb) = (Identifier.fitted(a, limit: 63), Identifier.fitted(b, limit: 63))
    XCTAssertEqual(fa.utf8.count, 63)
    XCTAssertNotEqual(fa, fb)
    XCTAssertEqual(fa, Identifier.fitted(a, limit: 63), "the same every time")
    XCTAssertTrue(fa.hasPrefix(String(repeating: "n", count: 46) + "_"), fa)
    XCTAssertEqual(Identifier.fitted(long, limit: 63), long)
    // A multi-byte character is never cut in half.
    let wide = String(repeating: "é", count: 40)
    XCTAssertEqual(Identifier.fitted(wide, limit: 63).utf8.count, 23 * 2 + 17)
    XCTAssertEqual(
      Placeholders.rewrite("SELECT \"\(a)\", \"\(b)\", '\(a)', \"\(long)\" FROM t WHERE x = ?").sql,
      "SELECT \"\(fa)\", \"\(fb)\", '\(a)', \"\(long)\" FROM t WHERE x = $1")
    XCTAssertEqual(Placeholders.rewrite("CREATE TABLE \"\(a)\" (x int)").sql, "CREATE TABLE \"\(fa)\" (x int)")
    // A doubled quote inside the name is part of the name.
    let quoted = long + "\"q"
    XCTAssertEqual(
      Placeholders.rewrite("DROP TABLE \"\(long)\"\"q\"", parameters: false).sql,
      "DROP TABLE \(Identifier.quote(Identifier.fitted(quoted, limit: 63)))")
    XCTAssertEqual(PostgresDialect().storedName(a), fa)
  }
}
