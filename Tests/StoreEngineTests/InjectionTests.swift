import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// Names and values never become SQL text: every injection attempt is refused or inert.
final class InjectionTests: XCTestCase {
  private var lib: Library!

  override func setUpWithError() throws { lib = try Library() }
  override func tearDown() { lib = nil }

  private func tablesIntact(file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try lib.store.count(FetchRequest(entity: "Book")), 5, file: file, line: line)
    XCTAssertEqual(try lib.store.count(FetchRequest(entity: "Author")), 4, file: file, line: line)
    XCTAssertEqual(try lib.store.check()["ok"], true, file: file, line: line)
  }

  func testEntityAndAttributeNamesInSchemasAreRefused() throws {
    let evil = [
      schema(entity("Book\"; DROP TABLE \"Author\"; --", [attr("x", "int")])),
      schema(entity("X", [attr("x\" INTEGER); DROP TABLE \"Book\"; --", "int")])),
      schema(entity("X", relationships: [rel("r); DROP TABLE Book; --", "X")])),
      schema(entity("X", [attr("a", "int")], indexes: [["a\"); DROP TABLE \"Book\"; --"]])),
      schema(entity("X", parent: "Book'); DROP TABLE Book; --")),
    ]
    for s in evil {
      expectStoreError(.invalidModel) { try lib.store.define(s) }
    }
    try tablesIntact()
  }

  func testEntityNamesInRequestsAreRefused() throws {
    expectStoreError(.notFound) { try lib.store.fetch(FetchRequest(entity: "Book\" t; DROP TABLE \"Author\"; --")) }
    expectStoreError(.notFound) { try lib.store.insert(entity: "Book; DELETE FROM Book", values: [:]) }
    expectStoreError(.notFound) { try lib.store.get(id: "Book\"; DROP TABLE Book; --/1") }
    expectStoreError(.validation) { try lib.store.get(id: "Book/1 OR 1=1") }
    expectStoreError(.validation) { try lib.store.delete(id: "Book/1; DROP TABLE Book") }
    try tablesIntact()
  }

  func testValueKeysAreRefused() throws {
    expectStoreError(.validation) { try lib.store.insert(entity: "Tag", values: ["name": "x", "name\") VALUES ('y'); --": "z"]) }
    expectStoreError(.validation) { try lib.store.update(id: lib.emma, values: ["pages\" = 0, \"title": "x"]) }
    try tablesIntact()
  }

  func testPredicateValuesAreBound() throws {
    XCTAssertEqual(try lib.books("title == %@", ["x' OR '1'='1"]), [])
    XCTAssertEqual(try lib.books("title == \"x\\\" OR 1=1 --\""), [])
    XCTAssertThrowsError(try lib.books("title == 'Emma''; DROP TABLE Book; --'"), "a second string after the predicate is a syntax error")
    XCTAssertEqual(try lib.books("title == 'Emma\\'; DROP TABLE Book; --'"), [], "an escaped quote is data")
    XCTAssertEqual(try lib.books("title CONTAINS %@", ["'); DROP TABLE Book; --"]), [])
    XCTAssertEqual(try lib.books("title IN %@", [["Emma", "') OR 1=1 --"]]), [lib.emma])
    try tablesIntact()
  }

  func testPredicateKeyPathsAreRefused() throws {
    XCTAssertThrowsError(try lib.books("title; DROP TABLE Book == 1"))
    XCTAssertThrowsError(try lib.books("title\" OR 1=1 -- == 'x'"))
    expectStoreError(.predicate) { try lib.books("%K == 'x'", ["title\" OR \"1\"=\"1"]) }
    expectStoreError(.predicate) { try lib.books("%K == 1", ["pages) OR (1=1"]) }
    expectStoreError(.predicate) { try lib.books("%K == 1", ["_pk"]) }
    try tablesIntact()
  }

  func testSortSelectAndIncludeKeysAreRefused() throws {
    var r = FetchRequest(entity: "Book")
    r.sort = [SortKey(keyPath: "title; DROP TABLE Book")]
    expectStoreError(.validation) { try lib.store.fetch(r) }
    r.sort = [SortKey(keyPath: "(SELECT 1)")]
    expectStoreError(.validation) { try lib.store.fetch(r) }
    r.sort = [SortKey(keyPath: "_pk")]
    expectStoreError(.validation) { try lib.store.fetch(r) }
    r.sort = []
    r.select = ["title\", \"pages"]
    expectStoreError(.validation) { try lib.store.fetch(r) }
    r.select = nil
    r.include = ["author\" --"]
    expectStoreError(.validation) { try lib.store.fetch(r) }
    try tablesIntact()
  }

  func testHostileStringValuesAreStoredVerbatim() throws {
    let hostile = "Robert'); DROP TABLE \"Book\"; --\u{0}\"''"
    let id = try lib.store.add("Tag", ["name": .string(hostile)])
    XCTAssertEqual(try lib.store.value(id, "name"), .string(hostile))
    XCTAssertEqual(try lib.store.idsWhere("Tag", "name == %@", [.string(hostile)]), [id])
    try tablesIntact()
  }
}
