import XCTest

@testable import SQLiteCore

private struct Refused: Error, CustomStringConvertible {
  var description: String { "refused by Swift" }
}

final class FunctionTests: XCTestCase {
  func testScalarFunctionReceivesAndReturnsValues() throws {
    let db = try memoryDB()
    try db.createFunction("twice", argumentCount: 1) { args in
      switch args[0] {
      case .integer(let i): return .integer(i * 2)
      case .real(let d): return .real(d * 2)
      case .text(let s): return .text(s + s)
      case .blob(let b): return .blob(b + b)
      case .null: return .null
      }
    }
    XCTAssertEqual(try db.scalar("SELECT twice(21)"), .integer(42))
    XCTAssertEqual(try db.scalar("SELECT twice(1.25)"), .real(2.5))
    XCTAssertEqual(try db.scalar("SELECT twice('ab')"), .text("abab"))
    XCTAssertEqual(try db.scalar("SELECT twice(x'01ff')"), .blob([1, 255, 1, 255]))
    XCTAssertEqual(try db.scalar("SELECT twice(NULL)"), .null)
    XCTAssertEqual(try db.scalar("SELECT twice(?)", [.text("é")]), .text("éé"))
  }

  func testEmptyTextAndBlobArguments() throws {
    let db = try memoryDB()
    try db.createFunction("kind", argumentCount: 1) { args in
      switch args[0] {
      case .text(let s): return .text("text:\(s.count)")
      case .blob(let b): return .text("blob:\(b.count)")
      case .null: return .text("null")
      default: return .text("other")
      }
    }
    XCTAssertEqual(try db.scalar("SELECT kind('')"), .text("text:0"))
    XCTAssertEqual(try db.scalar("SELECT kind(x'')"), .text("blob:0"))
    XCTAssertEqual(try db.scalar("SELECT kind(?)", [.blob([])]), .text("blob:0"))
    XCTAssertEqual(try db.scalar("SELECT kind(NULL)"), .text("null"))
  }

  func testReturnsEmptyTextAndBlob() throws {
    let db = try memoryDB()
    try db.createFunction("empty_text", argumentCount: 0) { _ in .text("") }
    try db.createFunction("empty_blob", argumentCount: 0) { _ in .blob([]) }
    XCTAssertEqual(try db.scalar("SELECT typeof(empty_text())"), .text("text"))
    XCTAssertEqual(try db.scalar("SELECT empty_text()"), .text(""))
    XCTAssertEqual(try db.scalar("SELECT typeof(empty_blob())"), .text("blob"))
  }

  func testVariadicArgumentCount() throws {
    let db = try memoryDB()
    try db.createFunction("nargs", argumentCount: -1) { .integer(Int64($0.count)) }
    XCTAssertEqual(try db.scalar("SELECT nargs()"), .integer(0))
    XCTAssertEqual(try db.scalar("SELECT nargs(1, 'a', NULL)"), .integer(3))
  }

  func testWrongArgumentCountIsAnSQLError() throws {
    let db = try memoryDB()
    try db.createFunction("one", argumentCount: 1) { $0[0] }
    XCTAssertNotNil(sqliteError { try db.prepare("SELECT one(1, 2)") })
  }

  func testThrowingFunctionBecomesSQLError() throws {
    let db = try memoryDB()
    try db.createFunction("refuse", argumentCount: 0) { _ in throw Refused() }
    let e = try XCTUnwrap(sqliteError { try db.scalar("SELECT refuse()") })
    XCTAssertTrue(e.message.contains("refused by Swift"), e.message)
    XCTAssertEqual(try db.scalar("SELECT 1"), .integer(1), "the connection keeps working")
  }

  func testFunctionUsableInWhereAndIndexWhenDeterministic() throws {
    let db = try memoryDB()
    try db.createFunction("lower_ascii", argumentCount: 1) { args in
      guard case .text(let s) = args[0] else { return args[0] }
      return .text(s.lowercased())
    }
    try db.execute("CREATE TABLE t (name TEXT)")
    try db.execute("CREATE INDEX t_lower ON t (lower_ascii(name))")
    for n in ["Alpha", "BETA", "gamma"] { try db.run("INSERT INTO t VALUES (?)", [.text(n)]) }
    XCTAssertEqual(try column(db, "SELECT name FROM t WHERE lower_ascii(name) = 'beta'"), [.text("BETA")])
  }

  func testRedefiningReplacesTheFunction() throws {
    let db = try memoryDB()
    try db.createFunction("v", argumentCount: 0) { _ in .integer(1) }
    XCTAssertEqual(try db.scalar("SELECT v()"), .integer(1))
    try db.createFunction("v", argumentCount: 0) { _ in .integer(2) }
    db.clearCache()
    XCTAssertEqual(try db.scalar("SELECT v()"), .integer(2))
  }
}
