import JSONCore
import XCTest

@testable import StoreEngine

final class FetchSortPagingTests: XCTestCase {
  private var lib: Library!

  override func setUpWithError() throws { lib = try Library() }
  override func tearDown() { lib = nil }

  private func bookIDs(sort: [SortKey], limit: Int? = nil, offset: Int? = nil, predicate: String? = nil) throws -> [String] {
    var r = FetchRequest(entity: "Book", predicate: try predicate.map { try PredicateParser.parse($0) })
    r.sort = sort
    r.limit = limit
    r.offset = offset
    let fetched = try lib.store.fetch(r).compactMap { $0["_id"]?.stringValue }
    XCTAssertEqual(try lib.store.ids(r), fetched, "query.ids agrees with query.fetch")
    return fetched
  }

  func testDefaultOrderIsInsertionOrder() throws {
    XCTAssertEqual(try bookIDs(sort: []), [lib.germinal, lib.nana, lib.emma, lib.persuasion, lib.strasse])
  }

  func testSortAscendingAndDescending() throws {
    XCTAssertEqual(try bookIDs(sort: [SortKey(keyPath: "pages")]), [lib.strasse, lib.persuasion, lib.nana, lib.emma, lib.germinal])
    XCTAssertEqual(
      try bookIDs(sort: [SortKey(keyPath: "pages", ascending: false)]), [lib.germinal, lib.emma, lib.nana, lib.persuasion, lib.strasse])
  }

  func testSortBySeveralKeys() throws {
    XCTAssertEqual(
      try bookIDs(sort: [SortKey(keyPath: "available"), SortKey(keyPath: "pages", ascending: false)]),
      [lib.nana, lib.germinal, lib.emma, lib.persuasion, lib.strasse])
  }

  func testNilsSortFirstAscending() throws {
    XCTAssertEqual(try bookIDs(sort: [SortKey(keyPath: "rating")]), [lib.persuasion, lib.strasse, lib.nana, lib.emma, lib.germinal])
  }

  func testSortByToOneKeyPath() throws {
    // Authors: Jane Austen < Émile Zola (É sorts after ASCII); no author (nil) first.
    XCTAssertEqual(
      try bookIDs(sort: [SortKey(keyPath: "author.name"), SortKey(keyPath: "pages", ascending: false)]),
      [lib.strasse, lib.emma, lib.persuasion, lib.germinal, lib.nana])
  }

  func testSortByToOneKeyPathAlsoUsedInThePredicate() throws {
    XCTAssertEqual(
      try bookIDs(
        sort: [SortKey(keyPath: "author.name", ascending: false), SortKey(keyPath: "pages")], predicate: "author.country != nil"),
      [lib.nana, lib.germinal, lib.persuasion, lib.emma])
  }

  func testSortByToOneRelationshipAndCount() throws {
    XCTAssertEqual(try bookIDs(sort: [SortKey(keyPath: "author", ascending: false), SortKey(keyPath: "pages")]).first, lib.persuasion)
    var r = FetchRequest(entity: "Author")
    r.sort = [SortKey(keyPath: "books.@count", ascending: false), SortKey(keyPath: "name")]
    XCTAssertEqual(try lib.store.ids(r), [lib.austen, lib.zola, lib.anon, lib.oe])
  }

  func testCaseInsensitiveSort() throws {
    let store = try makeStore(schema(entity("Word", [attr("text", "string")])))
    for w in ["banana", "Cherry", "apple", "Éclair", "date"] { try store.add("Word", ["text": .string(w)]) }
    func sorted(_ ci: Bool) throws -> [String] {
      var r = FetchRequest(entity: "Word")
      r.sort = [SortKey(keyPath: "text", caseInsensitive: ci)]
      return try store.fetch(r).compactMap { $0["text"]?.stringValue }
    }
    XCTAssertEqual(try sorted(false), ["Cherry", "apple", "banana", "date", "Éclair"])
    XCTAssertEqual(try sorted(true), ["apple", "banana", "Cherry", "date", "Éclair"], "folded: é sorts as e")
  }

  func testLimitAndOffset() throws {
    let byPages = [SortKey(keyPath: "pages")]
    XCTAssertEqual(try bookIDs(sort: byPages, limit: 2), [lib.strasse, lib.persuasion])
    XCTAssertEqual(try bookIDs(sort: byPages, limit: 2, offset: 1), [lib.persuasion, lib.nana])
    XCTAssertEqual(try bookIDs(sort: byPages, offset: 3), [lib.emma, lib.germinal], "offset without limit")
    XCTAssertEqual(try bookIDs(sort: byPages, limit: 0), [])
    XCTAssertEqual(try bookIDs(sort: byPages, limit: 10, offset: 10), [])
    XCTAssertEqual(try bookIDs(sort: byPages, limit: 1, predicate: "pages > 300"), [lib.nana])
  }

  func testSortErrors() throws {
    let unknown = expectStoreError(.validation) { try bookIDs(sort: [SortKey(keyPath: "colour")]) }
    XCTAssertEqual(unknown?.details["key"], "colour")
    XCTAssertTrue(unknown?.message.hasPrefix("sort[0].key:") ?? false)
    expectStoreError(.validation) { try bookIDs(sort: [SortKey(keyPath: "meta")]) }
    expectStoreError(.validation) { try bookIDs(sort: [SortKey(keyPath: "pages", caseInsensitive: true)]) }
    expectStoreError(.validation) { try bookIDs(sort: [SortKey(keyPath: "tags")]) }
    expectStoreError(.validation) { try bookIDs(sort: [SortKey(keyPath: "")]) }
    expectStoreError(.validation) { try bookIDs(sort: [SortKey(keyPath: "author.")]) }
  }

  func testSelect() throws {
    var r = FetchRequest(entity: "Book", predicate: try PredicateParser.parse("title == 'Emma'"))
    r.select = ["pages", "author"]
    let o = try XCTUnwrap(try lib.store.fetch(r).first)
    XCTAssertEqual(o.keys, ["_id", "_entity", "pages", "author"])
    XCTAssertEqual(o["author"], .string(lib.austen))
    r.select = []
    XCTAssertEqual(try lib.store.fetch(r).first?.keys, ["_id", "_entity"])
    r.select = ["title", "colour"]
    let e = expectStoreError(.validation) { try lib.store.fetch(r) }
    XCTAssertEqual(e?.details["attribute"], "colour")
    XCTAssertTrue(e?.message.hasPrefix("select[1]") ?? false)
  }

  func testIncludeToOne() throws {
    var r = FetchRequest(entity: "Book", predicate: try PredicateParser.parse("pages < 300"))
    r.include = ["author"]
    r.toMany = .ids
    let list = try lib.store.fetch(r)
    XCTAssertEqual(list.count, 2)
    let author = try XCTUnwrap(list[0]["author"]?.objectValue)
    XCTAssertEqual(author["_id"], .string(lib.austen))
    XCTAssertEqual(author["name"], "Jane Austen")
    XCTAssertEqual(strings(author["books"]), [lib.emma, lib.persuasion], "nested relationships stay ids, as toMany asks")
    XCTAssertEqual(list[1]["author"], .null, "a nil to-one stays nil")
  }

  func testIncludeToMany() throws {
    let o = try lib.store.get(id: lib.germinal, include: ["tags"])
    let tags = try XCTUnwrap(o["tags"]?.arrayValue)
    XCTAssertEqual(tags.map { $0["name"] }, ["classic", "french"])
    XCTAssertEqual(try lib.store.get(id: lib.persuasion, include: ["tags"])["tags"], .array([]))
  }

  func testIncludeNestedKeyPaths() throws {
    let o = try lib.store.get(id: lib.emma, include: ["author.books", "tags"])
    let author = try XCTUnwrap(o["author"]?.objectValue)
    let books = try XCTUnwrap(author["books"]?.arrayValue)
    XCTAssertEqual(books.map { $0["title"] }, ["Emma", "Persuasion"])
    XCTAssertEqual(o["tags"]?.arrayValue?.first?["name"], "classic")

    var r = FetchRequest(entity: "Tag", predicate: try PredicateParser.parse("name == 'french'"))
    r.include = ["books.author"]
    let tag = try XCTUnwrap(try lib.store.fetch(r).first)
    let nested = try XCTUnwrap(tag["books"]?.arrayValue)
    XCTAssertEqual(nested.map { $0["author"]?["name"] }, ["Émile Zola", "Émile Zola"])
  }

  func testIncludeBothLevelsSeparately() throws {
    let o = try lib.store.get(id: lib.nana, include: ["author", "author.books"])
    let books = try XCTUnwrap(o["author"]?["books"]?.arrayValue)
    XCTAssertEqual(books.compactMap { $0["_id"]?.stringValue }, [lib.germinal, lib.nana], "an expanded object expands further")
  }

  func testIncludeErrors() throws {
    let e = expectStoreError(.validation) { try lib.store.get(id: lib.emma, include: ["title"]) }
    XCTAssertEqual(e?.details["relationship"], "title")
    expectStoreError(.validation) { try lib.store.get(id: lib.emma, include: ["author.nothing"]) }
    expectStoreError(.validation) { try lib.store.get(id: lib.emma, include: [""]) }
  }

  func testIncludeWithGetMany() throws {
    let list = try lib.store.get(ids: [lib.nana, lib.germinal], include: ["author"])
    XCTAssertEqual(list.map { $0["author"]?["name"] }, ["Émile Zola", "Émile Zola"])
  }
}
