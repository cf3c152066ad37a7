import JSONCore
import XCTest

@testable import StoreEngine

/// The limits of protocol.md's "Limits" table, each at the limit (works) and past it
/// (a precise `predicate` error, nothing crashes): hostile nesting must never exhaust the
/// stack or reach SQLite as a `storage` error.
final class PredicateLimitsTests: XCTestCase {
  private var lib: Library!

  override func setUpWithError() throws { lib = try Library() }
  override func tearDown() { lib = nil }

  private func parseError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> PredicateError? {
    refusal(text, file: file, line: line)
  }

  private func count(_ request: FetchRequest) throws -> Int { try lib.store.count(request) }

  private func decoded(_ json: JSONValue) throws -> FetchRequest {
    let d = try PredicateJSONDecoder.decode(json, path: ErrorPlace(.where))
    var r = FetchRequest(entity: "Book", predicate: d.predicate)
    r.predicateLocations = d.locations
    return r
  }

  // MARK: - Chains are flattened and work at any length

  func testLongRunsOfAndOrWork() throws {
    // SQLite refuses `a AND b AND ...` past 1,000 terms (its expression depth): written in groups.
    XCTAssertEqual(try lib.books(Array(repeating: "pages > 0", count: 10_000).joined(separator: " AND ")).count, 5)
    XCTAssertEqual(
      try lib.books(Array(repeating: "pages < 0", count: 10_000).joined(separator: " OR ") + " OR title == 'Emma'"), [lib.emma])
    let nested = (0..<90).reduce("pages > 0") { p, _ in "(\(p)) AND pages > 0" }
    XCTAssertEqual(try lib.books(nested).count, 5, "(a AND b) AND c is one run")
  }

  func testRunsOfNotAndMinusCollapseByParity() throws {
    XCTAssertEqual(try lib.books(String(repeating: "NOT ", count: 47_508) + "title == 'Emma'"), [lib.emma])
    XCTAssertEqual(try lib.books(String(repeating: "NOT ", count: 47_509) + "title == 'Emma'").count, 4)
    // 2,305 minus operators before -120: an odd number, so 120.
    XCTAssertEqual(try lib.books("pages == " + String(repeating: "-", count: 2306) + "120"), [lib.strasse])
    XCTAssertEqual(stripped(try PredicateParser.parse("pages == - - -x")), stripped(try PredicateParser.parse("pages == -x")))
  }

  func testJSONFormRunsWork() throws {
    let comparison: JSONValue = ["op": "==", "lhs": ["keyPath": "title"], "rhs": ["value": "Emma"]]
    XCTAssertEqual(try count(decoded(["and": .array(Array(repeating: comparison, count: 10_000))])), 1)
    let nots = (0..<1001).reduce(comparison) { p, _ in ["not": p] }
    XCTAssertEqual(try count(decoded(nots)), 4, "an odd run of nots is one not")
    let doubled = (0..<1000).reduce(comparison) { p, _ in ["not": p] }
    XCTAssertEqual(try count(decoded(doubled)), 1)
  }

  // MARK: - Nesting: at the limit and past it

  func testBracketsNestUpToTheLimit() throws {
    let n = PredicateLimits.maxNesting
    XCTAssertNoThrow(try PredicateParser.parse(String(repeating: "(", count: n) + "a == 1" + String(repeating: ")", count: n)))
    let e = parseError(String(repeating: "(", count: n + 1) + "a == 1" + String(repeating: ")", count: n + 1))
    XCTAssertEqual(e?.offset, n, "the first bracket past the limit")
    XCTAssertEqual(e?.message, "the predicate nests deeper than \(n) levels")
    // The 18,668 brackets of the report: refused, not a crash.
    XCTAssertEqual(parseError(String(repeating: "(", count: 18_668) + "a == 1" + String(repeating: ")", count: 18_668))?.offset, n)

    // Each array is a node: 98 of them under the comparison, and the value, make the tree 100 deep.
    XCTAssertNoThrow(try PredicateParser.parse("a IN " + String(repeating: "{", count: n - 2) + "1" + String(repeating: "}", count: n - 2)))
    XCTAssertEqual(parseError("a IN " + String(repeating: "{", count: n - 1) + "1" + String(repeating: "}", count: n - 1))?.offset, 2)
    XCTAssertEqual(parseError("a IN " + String(repeating: "{", count: n + 1) + "1" + String(repeating: "}", count: n + 1))?.offset, 5 + n)
    XCTAssertEqual(
      parseError("a == " + String(repeating: "f(", count: n + 1) + "1" + String(repeating: ")", count: n + 1))?.offset, 5 + 2 * n)
  }

  func testOperatorChainsUpToTheLimit() throws {
    let n = PredicateLimits.maxChain
    XCTAssertEqual(n, PredicateLimits.maxNesting - 2, "the longest chain under a comparison fits the tree")
    XCTAssertNoThrow(try PredicateParser.parse("a == " + String(repeating: "1 + ", count: n) + "1"))
    let e = parseError("a == " + String(repeating: "1 + ", count: n + 1) + "1")
    XCTAssertEqual(e?.offset, 5 + 4 * n + 2, "the operator past the limit")
    XCTAssertNotNil(parseError("a == " + String(repeating: "1 + ", count: 2305) + "1"), "the report's 2,305 additions")
    XCTAssertNotNil(parseError("a == " + String(repeating: "2 * ", count: n + 1) + "1"))
    XCTAssertNotNil(parseError("a == " + String(repeating: "2 ** ", count: n + 1) + "1"))
  }

  func testTreeDepthIsBoundedWhereBracketsAndChainsAreNot() throws {
    // 60 brackets and 2 operators per level each stay within their limits, but the tree is 122 deep.
    let text = "a == " + String(repeating: "(", count: 60) + "1" + String(repeating: " + 1 + 1)", count: 60)
    XCTAssertEqual(parseError(text)?.message, "the predicate nests deeper than \(PredicateLimits.maxNesting) levels")
    let fits = "a == " + String(repeating: "(", count: 40) + "1" + String(repeating: " + 1 + 1)", count: 40)
    XCTAssertNoThrow(try PredicateParser.parse(fits))
  }

  func testJSONFormNestsUpToTheLimit() throws {
    let n = PredicateLimits.maxNesting
    func nestedArrays(_ depth: Int) -> JSONValue {
      let inner = (0..<depth - 2).reduce(JSONValue.object(["value": 1])) { e, _ in ["array": [e]] }
      return ["op": "IN", "lhs": ["keyPath": "pages"], "rhs": inner]
    }
    XCTAssertNoThrow(try PredicateJSONDecoder.decode(nestedArrays(n), path: ErrorPlace(.where)))
    XCTAssertThrowsError(try PredicateJSONDecoder.decode(nestedArrays(n + 1), path: ErrorPlace(.where))) { error in
      let e = error as? PredicateJSONError
      XCTAssertEqual(e?.message, "the predicate nests deeper than \(n) levels")
      XCTAssertEqual(e?.path.description, "where.rhs" + String(repeating: ".array[0]", count: n - 1))
    }
    // The report's 4,673 nested arrays: refused before any recursion gets deep.
    XCTAssertThrowsError(try PredicateJSONDecoder.decode(nestedArrays(4673), path: ErrorPlace(.where)))
  }

  // MARK: - What SQLite can compile

  private func alternating(_ levels: Int) -> String {
    (0..<levels).reduce("pages > 0") { p, i in i % 2 == 0 ? "(pages > \(i) OR \(p))" : "(pages < \(i) AND \(p))" }
  }

  private func sqlTooDeep(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
    let e = expectStoreError(.predicate, { try lib.books(text) }, file: file, line: line)
    XCTAssertTrue(
      e?.message.contains("its SQL would nest more than \(PredicateLimits.maxSQLNesting) levels") ?? false, "\(e?.message ?? "")",
      file: file, line: line)
    XCTAssertNotNil(e?.details["offset"], file: file, line: line)
  }

  func testGroupsNestUpToTheSQLLimit() throws {
    let n = PredicateLimits.maxSQLNesting
    XCTAssertNoThrow(try lib.books(alternating(n)))
    sqlTooDeep(alternating(n + 1))
    XCTAssertNoThrow(try lib.books("pages == " + String(repeating: "(1 + ", count: n) + "1" + String(repeating: ")", count: n)))
    sqlTooDeep("pages == " + String(repeating: "(1 + ", count: n + 1) + "1" + String(repeating: ")", count: n + 1))
    sqlTooDeep(String(repeating: "NOT (pages > 0 AND ", count: n / 2 + 1) + "pages > 0" + String(repeating: ")", count: n / 2 + 1))
  }

  func testSubqueriesNestUpToTheSQLLimit() throws {
    func nested(_ n: Int) -> String {
      (0..<n).reduce("pages > 0") { p, i in "SUBQUERY(author.books, $b\(i), \(p)).@count > 0" }
    }
    let n = PredicateLimits.maxSQLNesting / PredicateLimits.subqueryWeight
    XCTAssertEqual(try lib.books(nested(n)).count, 4, "books with an author")
    sqlTooDeep(nested(n + 1))
    sqlTooDeep(nested(8))  // a storage error (SQLite's parser stack) before
  }

  func testBoundValuesUpToSQLitesLimit() throws {
    // `IN` arrays of up to `inlineMembers` elements bind each one (longer ones bind one
    // JSON array), so the limit is reached with many short arrays.
    func arrays(_ total: Int) -> (String, [JSONValue]) {
      var args: [JSONValue] = []
      var next: Int64 = 0
      while args.count * SQLBuilder.inlineMembers < total {
        let size = min(SQLBuilder.inlineMembers, total - args.count * SQLBuilder.inlineMembers)
        args.append(
          .array(
            (0..<size).map { _ in
              defer { next += 1 }; return .int(next)
            }))
      }
      return (Array(repeating: "pages IN %@", count: args.count).joined(separator: " OR "), args)
    }
    let n = lib.store.connection.dialect.maxBoundValues
    XCTAssertEqual(n, 32766, "SQLite's SQLITE_MAX_VARIABLE_NUMBER")
    let (atLimit, atArgs) = arrays(n)
    XCTAssertEqual(try lib.books(atLimit, atArgs).count, 5)
    let (past, pastArgs) = arrays(n + 1)
    let e = expectStoreError(.predicate) { try lib.books(past, pastArgs) }
    XCTAssertEqual(e?.details["offset"], .int(Int64(past.count - "IN %@".count)), "at the operator of the comparison past the limit")
    XCTAssertEqual(try lib.books("pages IN %@", [.array((0...Int64(n)).map { .int($0) })]).count, 5, "one long array binds one value")
  }

  // MARK: - MATCHES: bounded work, cancellable

  func testMatchesIsAWholeMatchInICUSyntax() throws {
    XCTAssertEqual(try lib.books("title MATCHES 'E|Em|Emma'"), [lib.emma], "a longer alternative wins when the whole must match")
    XCTAssertEqual(try lib.books("title MATCHES '\\\\QEmma'"), [lib.emma], "a quote left open")
    XCTAssertEqual(try lib.books("title MATCHES '(?x) E m m a # a comment'"), [lib.emma], "a comment to the end")
    XCTAssertEqual(try lib.books("title MATCHES ''"), [])
    XCTAssertEqual(expectStoreError(.predicate) { try lib.books("title MATCHES 'a)(b'") }?.details["offset"], JSONValue.int(6))
  }

  private func catastrophic(_ store: Store, rows: Int) throws {
    try store.add("Tag", ["name": .string(String(repeating: "a", count: 30) + "!")])
    for i in 0..<rows { try store.add("Tag", ["name": .string("t\(i)")]) }
  }

  func testCatastrophicBacktrackingFailsWithTheBudgetError() throws {
    try catastrophic(lib.store, rows: 0)
    let e = expectStoreError(.predicate) { try lib.store.idsWhere("Tag", "name MATCHES '(a+)+$'") }
    XCTAssertEqual(e?.place, ErrorPlace(.where))
    XCTAssertEqual(e?.placeInData, true, "a text-form error found while the statement runs gives its place as data too")
    XCTAssertEqual(
      e?.message,
      "where: MATCHES '(a+)+$' needed more than \(RegexMatching.budget(units: 31)) steps on a value of 31 UTF-16 units (the limit is 100000 plus 100 per unit): the pattern backtracks too much (at character 5)"
    )
    XCTAssertEqual(e?.details["offset"], .int(5))
    // The JSON form names the comparison's path.
    let d = try PredicateJSONDecoder.decode(
      ["or": [["const": false], ["op": "MATCHES", "lhs": ["keyPath": "name"], "rhs": ["value": "(a+)+$"]]]], path: ErrorPlace(.where))
    var r = FetchRequest(entity: "Tag", predicate: d.predicate)
    r.predicateLocations = d.locations
    let j = expectStoreError(.predicate) { try lib.store.ids(r) }
    XCTAssertEqual(j?.place, ErrorPlace(.where, [.key("or"), .index(1)]))
    XCTAssertEqual(j?.placeInData, true)
    XCTAssertNil(j?.details["offset"])
    XCTAssertEqual(try lib.store.idsWhere("Tag", "name MATCHES 'a+!'").count, 1, "the same text, a pattern that does not backtrack")
  }

  func testCancellationStopsARunningMatch() throws {
    try catastrophic(lib.store, rows: 0)
    lib.store.interrupt()
    defer { lib.store.resetInterrupt() }
    expectStoreError(.cancelled) { try lib.store.idsWhere("Tag", "name MATCHES '(a+)+$'") }
  }
}
