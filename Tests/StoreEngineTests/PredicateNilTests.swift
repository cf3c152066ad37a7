import JSONCore
import XCTest

@testable import StoreEngine

/// protocol.md, Predicates, "nil": logic is two-valued as in NSPredicate's in-memory
/// evaluation. Every comparison is true or false for every row (a nil key makes `!=`
/// true and every other operator false), and `NOT p` is true exactly where `p` is not,
/// so `NOT (x == v)` and `x != v` agree. Each operator is pinned plain and under `NOT`,
/// over rows with nil and non-nil values; then the edges of the string operators.
final class PredicateNilTests: XCTestCase {
  private var store: Store!
  /// Item/1 "alpha" 5 alt "ha"; Item/2 "beta" 10 alt ""; Item/3 nil nil alt "x"; Item/4 "" 0 alt nil.
  private let all: Set<String> = ["Item/1", "Item/2", "Item/3", "Item/4"]
  private let nilRow = "Item/3"

  override func setUpWithError() throws {
    store = try makeStore(
      schema(
        entity(
          "Item",
          [attr("name", "string", optional: true), attr("n", "int", optional: true), attr("alt", "string", optional: true)])))
    try store.add("Item", ["name": "alpha", "n": 5, "alt": "ha"])
    try store.add("Item", ["name": "beta", "n": 10, "alt": ""])
    try store.add("Item", ["alt": "x"])
    try store.add("Item", ["name": "", "n": 0])
  }

  override func tearDown() {
    store?.close()
    store = nil
  }

  private func ids(_ predicate: String, _ args: [JSONValue] = []) throws -> Set<String> {
    Set(try store.idsWhere("Item", predicate, args))
  }

  /// `predicate` matches exactly `expected`, and `NOT (predicate)` (also spelled `!`)
  /// exactly the other rows, nil rows included.
  private func pin(_ predicate: String, _ expected: Set<String>, _ args: [JSONValue] = [], file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try ids(predicate, args), expected, predicate, file: file, line: line)
    XCTAssertEqual(try ids("NOT (\(predicate))", args), all.subtracting(expected), "NOT (\(predicate))", file: file, line: line)
    XCTAssertEqual(try ids("!(\(predicate))", args), all.subtracting(expected), "!(\(predicate))", file: file, line: line)
  }

  func testEveryComparisonOperatorPlainAndNegated() throws {
    let cases: [(String, Set<String>)] = [
      ("n == 5", ["Item/1"]),
      ("n != 5", ["Item/2", "Item/3", "Item/4"]),
      ("n < 10", ["Item/1", "Item/4"]),
      ("n <= 5", ["Item/1", "Item/4"]),
      ("n > 0", ["Item/1", "Item/2"]),
      ("n >= 5", ["Item/1", "Item/2"]),
      ("5 < n", ["Item/2"]),
      ("name == 'alpha'", ["Item/1"]),
      ("name != 'alpha'", ["Item/2", "Item/3", "Item/4"]),
      ("name < 'b'", ["Item/1", "Item/4"]),
      ("name BEGINSWITH 'al'", ["Item/1"]),
      ("name BEGINSWITH[c] 'AL'", ["Item/1"]),
      ("name ENDSWITH 'ta'", ["Item/2"]),
      ("name CONTAINS 'l'", ["Item/1"]),
      ("name LIKE '*a'", ["Item/1", "Item/2"]),
      ("name MATCHES '.*e.*'", ["Item/2"]),
      ("n IN {5, 0}", ["Item/1", "Item/4"]),
      ("n IN {5, nil}", ["Item/1", "Item/3"]),
      ("n IN {}", []),
      ("name IN {'beta', ''}", ["Item/2", "Item/4"]),
      ("n BETWEEN {1, 10}", ["Item/1", "Item/2"]),
      ("n == nil", ["Item/3"]),
      ("n != nil", ["Item/1", "Item/2", "Item/4"]),
      // Key path against key path: nil on either side is false, except `==` of two nils.
      ("name == alt", []),
      ("name != alt", all),
      ("name > alt", ["Item/2"]),
      ("name ENDSWITH alt", ["Item/1"]),
      ("alt IN name", ["Item/1"]),
    ]
    for (p, expected) in cases { try pin(p, expected) }
  }

  func testNotEqualAndNotOfEqualAgree() throws {
    for (key, value) in [("n", "5"), ("name", "'alpha'"), ("name", "''"), ("alt", "'x'")] {
      let a = try ids("\(key) != \(value)"), b = try ids("NOT (\(key) == \(value))")
      XCTAssertEqual(a, b, "\(key) != \(value)")
      XCTAssertTrue(a.contains(nilRow) || key == "alt", "\(key) != \(value) includes the nil row")
    }
    // Under AND/OR inside a NOT, unknown parts count as false before the negation.
    XCTAssertEqual(try ids("NOT (n > 0 AND name CONTAINS 'e')"), ["Item/1", "Item/3", "Item/4"])
    XCTAssertEqual(try ids("NOT (n > 7 OR name BEGINSWITH 'a')"), ["Item/3", "Item/4"])
    XCTAssertEqual(try ids("NOT NOT (n > 7)"), ["Item/2"])
  }

  func testAStringOperatorWithNilOnTheRightMatchesNothing() throws {
    for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "BEGINSWITH[cd]"] {
      try pin("name \(op) nil", [])
      try pin("name \(op) %@", [], [.null])
    }
    try pin("nil IN name", [])
    let f = try XCTUnwrap(refusalOfQuery("n BEGINSWITH nil"))
    XCTAssertTrue(f.contains("BEGINSWITH needs a string attribute, but 'n' is int"), f)
  }

  func testAnEmptyStringOnTheRightMatchesNothing() throws {
    for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS", "BEGINSWITH[c]", "ENDSWITH[cd]", "CONTAINS[d]"] {
      try pin("name \(op) ''", [])
    }
    // Empty once folded: [d] removes the lone combining accent.
    try pin("name CONTAINS[d] '\\u0301'", [])
    try pin("'' IN name", [])
    // Key path against key path: an empty right side matches nothing too.
    try pin("name BEGINSWITH alt", [])
    try pin("name CONTAINS alt", ["Item/1"])
    // LIKE and MATCHES match the whole value: '' matches the empty string.
    try pin("name LIKE ''", ["Item/4"])
    try pin("name MATCHES ''", ["Item/4"])
  }

  func testKeyPathInAStringIsSubstringContainment() throws {
    try pin("name IN 'alphabet'", ["Item/1"])
    try pin("name IN 'the alphabeta'", ["Item/1", "Item/2"])
    try pin("name IN[c] 'ALPHA'", ["Item/1"])
    try pin("name IN %@", ["Item/2"], ["abeta"])
    try pin("'al' IN name", ["Item/1"])
    let f = try XCTUnwrap(refusalOfQuery("n IN 'text'"))
    XCTAssertTrue(f.contains("IN needs an array on the right ({a, b} or an array argument), got string"), f)
  }

  /// The message the query of `predicate` is refused with.
  private func refusalOfQuery(_ predicate: String) -> String? {
    do {
      _ = try store.idsWhere("Item", predicate)
      XCTFail("expected '\(predicate)' to be refused")
      return nil
    } catch {
      return "\(error)"
    }
  }
}
