import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// The SQL the engine generates for a predicate uses the indexes the schema declares.
final class QueryPlanTests: XCTestCase {
  private var lib: Library!

  override func setUpWithError() throws { lib = try Library() }
  override func tearDown() { lib = nil }

  /// EXPLAIN QUERY PLAN details for the engine's compiled WHERE clause of `predicate` over `entity`.
  private func plan(_ entity: String, _ predicate: String, _ args: [JSONValue] = []) throws -> [String] {
    let store = lib.store
    let entityPlan = try XCTUnwrap(store.catalog.plans[entity])
    var builder = SQLBuilder(catalog: store.catalog, base: entityPlan)
    let condition = try builder.compile(try PredicateParser.parse(predicate, args: args))
    let joins = builder.joins.joined(separator: " ")
    let sql = "SELECT t.\"_pk\" FROM \(entityPlan.table) t \(joins) WHERE \(condition)"
    var details: [String] = []
    try store.connection.prepare("EXPLAIN QUERY PLAN " + sql).forEachRow(builder.args) { details.append($0.text(3)) }
    return details
  }

  private func indexNames(on table: String, column: String) throws -> [String] {
    var names: [String] = []
    try lib.store.connection.prepare(
      "SELECT il.name FROM pragma_index_list(?) il JOIN pragma_index_info(il.name) ii WHERE ii.name = ?"
    ).forEachRow([.text(table), .text(column)]) { names.append($0.text(0)) }
    return names
  }

  func testEqualityOnAnIndexedAttributeUsesItsIndex() throws {
    let index = try XCTUnwrap(try indexNames(on: "Book", column: "isbn").first, "isbn is declared indexed")
    let details = try plan("Book", "isbn == %@", ["222"])
    XCTAssertTrue(details.contains { $0.contains("USING INDEX \(index)") || $0.contains("USING COVERING INDEX \(index)") }, "\(details)")
    XCTAssertFalse(details.contains { $0.hasPrefix("SCAN") }, "\(details)")
  }

  func testEqualityOnAUniqueAttributeUsesTheUniqueIndex() throws {
    let index = try XCTUnwrap(try indexNames(on: "Tag", column: "name").first)
    XCTAssertTrue(index.hasPrefix("_ux_"))
    let details = try plan("Tag", "name == 'classic'")
    XCTAssertTrue(details.contains { $0.contains(index) }, "\(details)")
  }

  func testToOneEqualityUsesTheForeignKeyIndex() throws {
    let index = try XCTUnwrap(try indexNames(on: "Book", column: "author").first)
    XCTAssertTrue(index.hasPrefix("_fk_"))
    let details = try plan("Book", "author == 'Author/1'")
    XCTAssertTrue(details.contains { $0.contains(index) }, "\(details)")
  }

  func testUnindexedAttributeScans() throws {
    XCTAssertTrue(try indexNames(on: "Book", column: "pages").isEmpty)
    let details = try plan("Book", "pages == 448")
    XCTAssertTrue(details.contains { $0.hasPrefix("SCAN") }, "\(details)")
  }

  func testTheRealFetchReturnsWhatThePlanFinds() throws {
    XCTAssertEqual(try lib.books("isbn == '222'"), [lib.nana])
  }
}
