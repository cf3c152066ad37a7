import DatabaseKit
import JSONCore
import TestSupport
import XCTest

@testable import StoreEngine

/// Text the engine writes into SQL itself (literals of defaults, wildcard patterns) is
/// escaped by code point: a quote, `*` or `[` followed by a combining mark is one Swift
/// Character, which an escape comparing Characters missed (a default `x'́)` broke the
/// `ALTER TABLE` it was written into; `LIKE 'E*́m*le'` kept its first `*` literal on
/// PostgreSQL, found by PostgresEngineDifferentialTests). On SQLite, and on PostgreSQL
/// when `MODELSTORE_TEST_PG` is set.
final class CombiningMarkQuotingTests: XCTestCase {
  private var schemas: [PostgresTestSchema] = []
  override func tearDown() { schemas.forEach { $0.drop() } }

  /// A store in memory, and one on PostgreSQL when the test cluster is there.
  private func stores() throws -> [Store] {
    var out = [try Store(path: nil)]
    if PostgresTestCluster.url != nil {
      let s = try PostgresTestSchema("marks")
      schemas.append(s)
      out.append(try Store(path: s.storeURL))
    }
    return out
  }

  func testStringLiteralsDoubleEveryQuoteCodePoint() {
    XCTAssertEqual(StringLiteral.quote("x'\u{301}) y"), "'x''\u{301}) y'")
    XCTAssertEqual(Identifier.quote("a\"\u{301}b"), "\"a\"\"\u{301}b\"")
  }

  func testADefaultWithAQuoteAndACombiningMarkIsWrittenIntoTheTable() throws {
    let tricky = "x'\u{301}) ; y"
    for store in try stores() {
      _ = try store.define(schema(entity("T", [attr("a", "string", default: "q")]), version: "1"))
      let id = try store.add("T")
      // Adding a column with a default writes the default into the table's DDL.
      _ = try store.define(
        schema(entity("T", [attr("a", "string", default: "q"), attr("b", "string", default: .string(tricky))]), version: "2"))
      XCTAssertEqual(try store.value(id, "b"), .string(tricky), "\(store.connection.dialect.name)")
    }
  }

  func testWildcardsFollowedByACombiningMarkStayWildcards() throws {
    for store in try stores() {
      _ = try store.define(schema(entity("T", [attr("s", "string")])))
      let emile = try store.add("T", ["s": "E\u{301}mile"])
      let bracket = try store.add("T", ["s": "[\u{301}x"])
      XCTAssertEqual(try store.idsWhere("T", "s LIKE[d] %@", ["E*\u{301}m*le"]), [emile], "\(store.connection.dialect.name)")
      XCTAssertEqual(try store.idsWhere("T", "s LIKE %@", ["E\u{301}m?le"]), [emile], "\(store.connection.dialect.name)")
      // A `[` with a mark is a character to match, not a GLOB set.
      XCTAssertEqual(try store.idsWhere("T", "s LIKE %@", ["[\u{301}*"]), [bracket], "\(store.connection.dialect.name)")
    }
  }
}
