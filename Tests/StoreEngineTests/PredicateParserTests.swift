import JSONCore
import XCTest

@testable import StoreEngine

final class PredicateParserTests: XCTestCase {
  private func parse(_ s: String, _ args: [JSONValue] = [], variables: JSONObject = [:], template: Bool = false) throws -> Predicate {
    try PredicateParser.parse(s, args: args, variables: variables, template: template)
  }

  private func comparison(_ s: String, _ args: [JSONValue] = [], file: StaticString = #filePath, line: UInt = #line) throws -> Comparison {
    guard case .comparison(let c) = try parse(s, args) else {
      XCTFail("not a comparison: \(s)", file: file, line: line)
      throw PredicateError("not a comparison", offset: 0)
    }
    return c
  }

  private func parseError(_ s: String, _ args: [JSONValue] = [], file: StaticString = #filePath, line: UInt = #line) -> PredicateError? {
    refusal(s, args, file: file, line: line)
  }

  /// The tree without source offsets, for comparing structure.
  private func shape(_ p: Predicate) -> String {
    func expr(_ e: Expression) -> String {
      switch e {
      case .keyPath(let parts, _): return parts.joined(separator: ".")
      case .constant(let v): return v.description
      case .array(let items): return "{" + items.map(expr).joined(separator: ",") + "}"
      case .variable(let n, _): return "$" + n
      case .placeholder(let f, let i, _): return "\(f)#\(i)"
      case .evaluatedObject: return "SELF"
      default: return PredicateJSON.encode(e).description
      }
    }
    switch p {
    case .constant(let b): return b ? "TRUE" : "FALSE"
    case .not(let inner): return "NOT(\(shape(inner)))"
    case .and(let items): return "AND(" + items.map { shape($0) }.joined(separator: ", ") + ")"
    case .or(let items): return "OR(" + items.map { shape($0) }.joined(separator: ", ") + ")"
    case .comparison(let c):
      var flags = ""
      if c.caseInsensitive { flags += "c" }
      if c.diacriticInsensitive { flags += "d" }
      return (c.quantifier.map { $0.rawValue + " " } ?? "") + "\(expr(c.lhs)) \(c.op.rawValue)\(flags.isEmpty ? "" : "[\(flags)]") \(expr(c.rhs))"
    }
  }

  private func shape(_ s: String, _ args: [JSONValue] = [], variables: JSONObject = [:]) throws -> String {
    shape(try parse(s, args, variables: variables))
  }

  func testSimpleComparison() throws {
    let c = try comparison("title == 'x'")
    XCTAssertEqual(c.lhs, .keyPath(["title"], offset: 0))
    XCTAssertEqual(c.op, .equal)
    XCTAssertEqual(c.rhs, .constant("x"))
    XCTAssertEqual(c.offset, 6)
    XCTAssertFalse(c.caseInsensitive)
  }

  func testOperatorsAndSpellings() throws {
    let table: [(String, Comparison.Operator)] = [
      ("a == 1", .equal), ("a = 1", .equal), ("a != 1", .notEqual), ("a <> 1", .notEqual), ("a < 1", .less), ("a <= 1", .lessOrEqual),
      ("a =< 1", .lessOrEqual), ("a > 1", .greater), ("a >= 1", .greaterOrEqual), ("a => 1", .greaterOrEqual),
      ("a BEGINSWITH 'x'", .beginsWith), ("a endswith 'x'", .endsWith), ("a Contains 'x'", .contains), ("a LIKE 'x'", .like),
      ("a MATCHES 'x'", .matches), ("a IN {1}", .in), ("a BETWEEN {1, 2}", .between),
    ]
    for (text, op) in table { XCTAssertEqual(try comparison(text).op, op, text) }
  }

  func testOptions() throws {
    let c = try comparison("name ==[cd] 'x'")
    XCTAssertTrue(c.caseInsensitive)
    XCTAssertTrue(c.diacriticInsensitive)
    XCTAssertFalse(c.normalized)
    XCTAssertTrue(try comparison("name CONTAINS[c] 'x'").caseInsensitive)
    XCTAssertTrue(try comparison("name LIKE[n] 'x'").normalized)
    XCTAssertFalse(try comparison("name ==[d] 'x'").caseInsensitive)
    XCTAssertEqual(parseError("name ==[q] 'x'")?.message, "unknown comparison option 'q' (expected c, d or n)")
    XCTAssertNotNil(parseError("name ==[c 'x'"))
  }

  func testLiterals() throws {
    XCTAssertEqual(try comparison("a == 42").rhs, .constant(42))
    XCTAssertEqual(try comparison("a == -42").rhs, .constant(-42))
    XCTAssertEqual(try comparison("a == 1.5").rhs, .constant(1.5))
    XCTAssertEqual(try comparison("a == -0.5").rhs, .constant(-0.5))
    XCTAssertEqual(try comparison("a == 1e3").rhs, .constant(1000.0))
    XCTAssertEqual(try comparison("a == 0x1F").rhs, .constant(31))
    XCTAssertEqual(try comparison("a == YES").rhs, .constant(true))
    XCTAssertEqual(try comparison("a == false").rhs, .constant(false))
    XCTAssertEqual(try comparison("a == nil").rhs, .constant(.null))
    XCTAssertEqual(try comparison("a == NULL").rhs, .constant(.null))
    XCTAssertEqual(try comparison("a == \"q\\\"\\n\\u00e9\"").rhs, .constant("q\"\né"))
    XCTAssertEqual(try comparison("a IN {1, 'b', nil}").rhs, .array([.constant(1), .constant("b"), .constant(.null)]))
    XCTAssertEqual(try comparison("a IN {}").rhs, .array([]))
    XCTAssertEqual(try comparison("a == 9223372036854775807").rhs, .constant(.int(Int64.max)))
  }

  func testKeyPathsAndEscapes() throws {
    XCTAssertEqual(try comparison("author.name == 'x'").lhs, .keyPath(["author", "name"], offset: 0))
    XCTAssertEqual(try comparison("books.@count > 1").lhs, .aggregate(.count, .keyPath(["books"], offset: 0), keyPath: [], offset: 6))
    XCTAssertEqual(try comparison("#order == 1").lhs, .keyPath(["order"], offset: 0))
    XCTAssertEqual(try comparison("  über == 1").lhs, .keyPath(["über"], offset: 2))
    XCTAssertEqual(try comparison("SELF == 'x'").lhs, .evaluatedObject)
  }

  func testHashEscapesReservedWordsAsKeys() throws {
    // protocol.md: "A reserved word used as a key is written `#word`"; the parser's own
    // error message suggests it ("write #in for a key named so").
    XCTAssertNotNil(parseError("in == 1"), "unescaped, it is the keyword")
    XCTAssertEqual(try comparison("#in == 1").lhs, .keyPath(["in"], offset: 0))
    XCTAssertEqual(try comparison("#contains BEGINSWITH 'x'").lhs, .keyPath(["contains"], offset: 0))
    XCTAssertEqual(try comparison("#yes == 1").lhs, .keyPath(["yes"], offset: 0), "not the literal YES")
    XCTAssertEqual(try comparison("owner.#like == 1").lhs, .keyPath(["owner", "like"], offset: 0))
    XCTAssertEqual(try comparison("a == #self").rhs, .keyPath(["self"], offset: 5))
  }

  func testLogicalStructureAndPrecedence() throws {
    XCTAssertEqual(try shape("a == 1 OR b == 2 AND NOT c == 3"), "OR(a == 1, AND(b == 2, NOT(c == 3)))", "AND binds tighter than OR")
    XCTAssertEqual(try shape("(a == 1 || b == 2) && c == 3"), "AND(OR(a == 1, b == 2), c == 3)")
    XCTAssertEqual(try shape("(a == 1 OR b == 2) AND c == 3"), try shape("(a == 1 || b == 2) && c == 3"))
    XCTAssertEqual(try parse("TRUEPREDICATE"), .constant(true))
    XCTAssertEqual(try parse("falsepredicate"), .constant(false))
    XCTAssertEqual(try shape("!(a == 1)"), "NOT(a == 1)")
    XCTAssertEqual(try shape("NOT NOT a == 1"), "a == 1", "a run of NOTs collapses by parity")
    XCTAssertEqual(try shape("NOT !NOT a == 1"), "NOT(a == 1)")
    XCTAssertEqual(try shape("a == 1 AND b == 2 AND c == 3"), "AND(a == 1, b == 2, c == 3)", "flat, not nested")
    XCTAssertEqual(try shape("ANY tags.name ==[cd] %@", ["x"]), "ANY tags.name ==[cd] \"x\"")
  }

  func testQuantifiers() throws {
    XCTAssertEqual(try comparison("ANY tags.name == 'x'").quantifier, .any)
    XCTAssertEqual(try comparison("SOME tags.name == 'x'").quantifier, .any)
    XCTAssertEqual(try comparison("ALL tags.name == 'x'").quantifier, .all)
    XCTAssertEqual(try comparison("NONE tags.name == 'x'").quantifier, Comparison.Quantifier.none)
  }

  func testFormatArguments() throws {
    XCTAssertEqual(try comparison("a == %@", ["x"]).rhs, .constant("x"))
    XCTAssertEqual(try comparison("%K == %@", ["author.name", 3]).lhs, .keyPath(["author", "name"], offset: 0))
    XCTAssertEqual(try comparison("a > %d", [5]).rhs, .constant(5))
    XCTAssertEqual(try comparison("a > %ld", [5]).rhs, .constant(5))
    XCTAssertEqual(try comparison("a > %f", [5]).rhs, .constant(5.0), "%f makes a double")
    XCTAssertEqual(try comparison("a == %s", ["s"]).rhs, .constant("s"))
    XCTAssertEqual(parseError("a > %d", ["5"])?.message, "argument 1 for %d must be an integer, got string")
    XCTAssertEqual(parseError("a == %@")?.message, "format argument 1 (%@) has no value in 'args'")
    XCTAssertEqual(parseError("a == %@", [1, 2])?.message, "2 arguments given but the format uses 1")
    XCTAssertNotNil(parseError("%K == 1", [5]))
    XCTAssertNotNil(parseError("%K == 1", [""]))
    XCTAssertEqual(parseError("a == %x")?.message, "unknown format specifier '%x'")
  }

  func testVariablesAndTemplates() throws {
    XCTAssertEqual(try shape("a == $X", variables: ["X": 3]), "a == 3")
    XCTAssertEqual(parseError("a == $X")?.message, "variable $X has no value in 'variables'")
    guard case .and(let items) = try parse("a == $X AND b == %@", template: true), case .comparison(let first) = items[0],
      case .comparison(let second) = items[1]
    else { return XCTFail("expected two comparisons") }
    XCTAssertEqual(first.rhs, .variable("X", offset: 5))
    XCTAssertEqual(second.rhs, .placeholder("%@", index: 0, offset: 17))
  }

  func testSyntaxErrorsWithOffsets() {
    XCTAssertEqual(parseError("title ==")?.offset, 8)
    XCTAssertEqual(parseError("title 'x'")?.message, "expected a comparison operator but found string \"x\"")
    XCTAssertEqual(parseError("(a == 1")?.message, "expected ')' but found end of input")
    XCTAssertEqual(parseError("a == 1 b == 2")?.offset, 7)
    XCTAssertEqual(parseError("a == 'open")?.message, "unterminated string")
    XCTAssertEqual(parseError("a == 'open")?.offset, 5)
    XCTAssertEqual(parseError("a ; b")?.message, "unexpected character ';'")
    XCTAssertEqual(parseError("a ; b")?.offset, 2)
    XCTAssertNotNil(parseError(""))
    XCTAssertNotNil(parseError("a == AND"))
    XCTAssertNotNil(parseError("a BETWEEN 3"))
    XCTAssertNotNil(parseError("a IN {1, 2"))
    XCTAssertNotNil(parseError("a == 'x' 'y'"))
    XCTAssertNotNil(parseError("a == #"))
    XCTAssertNotNil(parseError("a == '\\u12'"))
    XCTAssertEqual(parseError("é. == 1")?.offset, 3, "offsets count Unicode scalars")
  }

  func testErrorDescription() {
    XCTAssertEqual(PredicateError("bad", offset: 4).description, "bad (at character 4)")
  }
}
