import JSONCore
import XCTest

@testable import StoreEngine

/// The JSON form: the same tree as the string form, read back exactly, with errors at
/// JSON paths (protocol.md, "The JSON form").
final class PredicateJSONFormTests: XCTestCase {
  private func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

  private func decode(_ v: JSONValue, args: [JSONValue] = [], variables: JSONObject = [:], template: Bool = false) throws -> Predicate {
    try PredicateJSONDecoder.decode(v, path: ErrorPlace(.where), args: args, variables: variables, template: template).predicate
  }

  private func decodeError(_ text: String, args: [JSONValue] = [], file: StaticString = #filePath, line: UInt = #line)
    -> PredicateJSONError?
  {
    expectError(PredicateJSONError.self, { try decode(try json(text), args: args) }, file: file, line: line)
  }

  /// Predicates covering every node kind, operator, option and quantifier.
  static let corpus = [
    "TRUEPREDICATE", "FALSEPREDICATE", "NOT a == 1", "a == 1 AND (b != 'x' OR c < 2.5)", "a <= 1 || b >= 2 && c > 3",
    "name BEGINSWITH[c] 'x'", "name ENDSWITH[d] 'x'", "name CONTAINS[cd] 'x'", "name LIKE[n] 'a*?'", "name MATCHES[c] '^a.*$'",
    "a IN {1, 2, nil}", "a BETWEEN {1, 10}", "ANY tags.name == 'x'", "SOME tags.name == 'x'", "ALL items.price > 0",
    "NONE items.price < 0", "%@ IN tags.name", "'x' IN tags", "tags CONTAINS %@", "items.@count > 2", "items.@sum.price >= 10.5",
    "tasks.@avg.priority < 3", "items.@min.date < items.@max.date", "SUBQUERY(items, $x, $x.price > 5 AND $x.tag.name == 'a').@count == 0",
    "SUBQUERY(%K, $x, $x.%K >= %lu).@count == %K.@count", "SELF == %@", "SELF IN %@", "NOT (SELF IN %@)", "a == b.c",
    "published > CAST('2024-01-31', 'NSDate')", "d < CAST(700000000, 'NSDate')", "a + 2 * b ** 2 - c / 4 > -1",
    "{1, 2, 3}[SIZE] == 3", "{1, 2}[FIRST] == 1", "{1, 2}[LAST] == 2", "{1, 2}[%d] == 2", "min(a) == 1", "a == $X", "$X.name == 1",
    "%K.%K == %@", "ANY %K.%K <= %lu", "ANY moods.%K == nil", "%@ > 100", "SELF.name == 'x'", "a == YES AND b == NO AND c == nil",
    "a == \"q\\\"\\n\"", "a == 0x1F", "a == -2.5e3", "#in == 1",
  ]

  func testStringToTreeToJSONToTreeIsTheSameTree() throws {
    for text in Self.corpus {
      let parsed = try PredicateParser.parse(text, template: true)
      let encoded = PredicateJSON.encode(parsed)
      // Through text too: what a client sends is serialized JSON.
      let reparsed = try json(encoded.description)
      let decoded = try decode(reparsed, template: true)
      XCTAssertEqual(stripped(decoded), stripped(parsed), "\(text) → \(encoded)")
      XCTAssertEqual(PredicateJSON.encode(decoded), encoded, text)
    }
  }

  func testTheDocumentedShape() throws {
    let p = try PredicateParser.parse(
      "ANY tags.name ==[cd] %@ AND items.@sum.price > 10 AND SUBQUERY(items, $i, $i.qty > 1).@count > 0", template: true)
    XCTAssertEqual(
      PredicateJSON.encode(p),
      try json(
        """
        {"and":[
          {"op":"==","lhs":{"keyPath":"tags.name"},"rhs":{"placeholder":"%@","index":0},"options":"cd","quantifier":"any"},
          {"op":">","lhs":{"aggregate":"@sum","collection":{"keyPath":"items"},"keyPath":"price"},"rhs":{"value":10}},
          {"op":">","lhs":{"aggregate":"@count","collection":{"subquery":{"collection":{"keyPath":"items"},"variable":"i",
            "predicate":{"op":">","lhs":{"path":[{"variable":"i"},{"keyPath":"qty"}]},"rhs":{"value":1}}}}},"rhs":{"value":0}}
        ]}
        """))
    XCTAssertEqual(
      PredicateJSON.encode(try PredicateParser.parse("SELF == %@", template: true)),
      try json(#"{"op":"==","lhs":{"self":true},"rhs":{"placeholder":"%@","index":0}}"#))
    XCTAssertEqual(PredicateJSON.encode(.constant(true)), try json(#"{"const":true}"#))
  }

  func testKeyPathStringsAcceptCollectionOperators() throws {
    let fromString = try decode(try json(#"{"op":">","lhs":{"keyPath":"items.@sum.price"},"rhs":{"value":1}}"#))
    let fromNode = try decode(
      try json(#"{"op":">","lhs":{"aggregate":"@sum","collection":{"keyPath":"items"},"keyPath":"price"},"rhs":{"value":1}}"#))
    XCTAssertEqual(stripped(fromString), stripped(fromNode))
  }

  func testPlaceholdersAndVariablesAreBound() throws {
    let p = try json(
      #"{"and":[{"op":"==","lhs":{"placeholder":"%K","index":0},"rhs":{"placeholder":"%@","index":1}},{"op":"<","lhs":{"keyPath":"a"},"rhs":{"variable":"LIMIT"}}]}"#
    )
    let bound = try decode(p, args: ["author.name", "Zola"], variables: ["LIMIT": 3])
    XCTAssertEqual(stripped(bound), stripped(try PredicateParser.parse("author.name == 'Zola' AND a < 3")))
    XCTAssertEqual(decodeError(p.description, args: [])?.path, ErrorPlace(.where, [.key("and"), .index(0), .key("lhs")]))
    XCTAssertEqual(decodeError(p.description, args: [5, 1])?.message, "argument 1 for %K must be a key path string, got integer")
    let subqueryVariable = try decode(
      try json(
        #"{"op":">","lhs":{"aggregate":"@count","collection":{"subquery":{"collection":{"keyPath":"items"},"variable":"x","predicate":{"op":"==","lhs":{"variable":"x"},"rhs":{"value":"Item/1"}}}}},"rhs":{"value":0}}"#
      ),
      variables: ["x": "shadowed"])
    XCTAssertEqual(stripped(subqueryVariable), stripped(try PredicateParser.parse("SUBQUERY(items, $x, $x == 'Item/1').@count > 0")))
  }

  func testDecoderErrorsNameTheJSONPath() {
    let cases: [(String, String, String)] = [
      ("[]", "where", "expected a predicate object, got array"),
      (#"{"and":[{"const":1}]}"#, "where.and[0].const", "expected true or false, got integer"),
      (#"{"and":[]}"#, "where.and", "expected at least one element"),
      (#"{"not":{"op":"=~","lhs":{"keyPath":"a"},"rhs":{"value":1}}}"#, "where.not.op", "unknown operator '=~'"),
      (#"{"op":"==","lhs":{"keyPath":"a"}}"#, "where.rhs", "missing"),
      (#"{"op":"==","lhs":{"keyPath":"a"},"rhs":{"value":1},"options":"x"}"#, "where.options", "unknown option 'x'"),
      (#"{"op":"==","lhs":{"keyPath":"a"},"rhs":{"value":1},"quantifier":"ANY"}"#, "where.quantifier", "unknown quantifier 'ANY'"),
      (#"{"op":"==","lhs":{"keyPath":"a","value":1},"rhs":{"value":1}}"#, "where.lhs", "has both 'keyPath' and 'value'"),
      (#"{"op":"==","lhs":{"keyPath":"a..b"},"rhs":{"value":1}}"#, "where.lhs", "empty key"),
      (#"{"op":"==","lhs":{"keyPath":"a.@median.b"},"rhs":{"value":1}}"#, "where.lhs", "unknown collection operator '@median'"),
      (#"{"op":"==","lhs":{"array":[{"nope":1}]},"rhs":{"value":1}}"#, "where.lhs.array[0]", "needs one of"),
      (#"{"op":"==","lhs":{"path":[{"value":1}]},"rhs":{"value":1}}"#, "where.lhs.path[0]", "a path segment is"),
      (#"{"op":"==","lhs":{"placeholder":"%x","index":0},"rhs":{"value":1}}"#, "where.lhs.placeholder", "unknown format specifier"),
      (#"{"op":"==","lhs":{"placeholder":"%@","index":-1},"rhs":{"value":1}}"#, "where.lhs.index", "expected the argument's index"),
      (#"{"op":"==","lhs":{"self":false},"rhs":{"value":1}}"#, "where.lhs.self", "expected true"),
      (
        #"{"op":"==","lhs":{"subquery":{"collection":{"keyPath":"a"},"variable":"x"}},"rhs":{"value":1}}"#, "where.lhs.subquery.predicate",
        "missing"
      ),
      (#"{"op":"==","lhs":{"function":"f","arguments":[], "extra":1},"rhs":{"value":1}}"#, "where.lhs", "unknown member 'extra'"),
      (#"{"op":"==","lhs":{"variable":"V"},"rhs":{"value":1}}"#, "where.lhs", "variable $V has no value"),
    ]
    for (text, path, message) in cases {
      let e = decodeError(text)
      XCTAssertEqual(e?.path.description, path, text)
      XCTAssertTrue(e?.message.contains(message) ?? false, "\(text): \(e?.message ?? "no error")")
    }
  }

  func testTheJSONFormQueriesTheStoreLikeTheString() throws {
    let lib = try Library()
    let cases = [
      "ANY tags.name == 'french'", "books.@sum.pages > 1000", "SUBQUERY(books, $b, $b.pages > 400).@count == 2",
      "title MATCHES '[EN].*'", "author.name BEGINSWITH[cd] 'emile'", "SELF IN {'Book/1', 'Book/3'}",
    ]
    for text in cases {
      let entity = text.hasPrefix("books") || text.hasPrefix("SUBQUERY") ? "Author" : "Book"
      let p = try PredicateParser.parse(text)
      let decoded = try PredicateJSONDecoder.decode(try json(PredicateJSON.encode(p).description), path: ErrorPlace(.where))
      var r = FetchRequest(entity: entity, predicate: decoded.predicate)
      r.predicateLocations = decoded.locations
      XCTAssertEqual(try lib.store.ids(r), try lib.store.idsWhere(entity, text), text)
    }
  }

  func testCompileErrorsOfTheJSONFormNameTheNode() throws {
    let lib = try Library()
    let decoded = try PredicateJSONDecoder.decode(
      try json(#"{"or":[{"const":false},{"op":"==","lhs":{"keyPath":"author.nickname"},"rhs":{"value":"x"}}]}"#), path: ErrorPlace(.where))
    var r = FetchRequest(entity: "Book", predicate: decoded.predicate)
    r.predicateLocations = decoded.locations
    let e = expectStoreError(.predicate) { try lib.store.ids(r) }
    XCTAssertEqual(e?.place, ErrorPlace(.where, [.key("or"), .index(1), .key("lhs")]))
    XCTAssertEqual(e?.placeInData, true)
    XCTAssertEqual(e?.body.description, "'nickname' is not an attribute or relationship of 'Author' (reached through 'author')")
    XCTAssertNil(e?.details["offset"])
  }
}
