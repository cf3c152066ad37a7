import XCTest

@testable import SQLiteCore

final class IdentifierTests: XCTestCase {
  func testQuoting() {
    XCTAssertEqual(Identifier.quote("Task"), "\"Task\"")
    XCTAssertEqual(Identifier.quote(""), "\"\"")
    XCTAssertEqual(Identifier.quote("a\"b"), "\"a\"\"b\"")
    XCTAssertEqual(Identifier.quote("\"\""), "\"\"\"\"\"\"")
    XCTAssertEqual(Identifier.quote("héllo wörld"), "\"héllo wörld\"")
    XCTAssertEqual(Identifier.quote("a'b"), "\"a'b\"", "single quotes need no doubling inside double quotes")
  }

  func testInjectedTableNameCannotEscape() throws {
    let db = try memoryDB()
    try db.execute("CREATE TABLE victim (v); INSERT INTO victim VALUES (1)")
    let evil = "x\"; DROP TABLE victim; --"
    try db.execute("CREATE TABLE \(Identifier.quote(evil)) (\(Identifier.quote("col\"umn")) TEXT)")
    try db.run("INSERT INTO \(Identifier.quote(evil)) (\(Identifier.quote("col\"umn"))) VALUES (?)", [.text("ok")])
    XCTAssertEqual(try db.scalar("SELECT count(*) FROM victim"), .integer(1), "the DROP never ran")
    XCTAssertEqual(try db.scalar("SELECT name FROM sqlite_schema WHERE name = ?", [.text(evil)]), .text(evil))
    XCTAssertEqual(try db.scalar("SELECT \(Identifier.quote("col\"umn")) FROM \(Identifier.quote(evil))"), .text("ok"))
    XCTAssertEqual(try column(db, "SELECT name FROM pragma_table_info(?)", [.text(evil)]), [.text("col\"umn")])
  }

  func testQuotedNameIsAlwaysOneToken() throws {
    let db = try memoryDB()
    for name in ["select", "a b", "a\"\"b", "\"", "x\" OR 1=1 --", "t]", "`t`", "a.b"] {
      let q = Identifier.quote(name)
      try db.execute("CREATE TABLE \(q) (v)")
      try db.run("INSERT INTO \(q) VALUES (?)", [.text(name)])
      XCTAssertEqual(try db.scalar("SELECT v FROM \(q)"), .text(name), name)
    }
  }
}
