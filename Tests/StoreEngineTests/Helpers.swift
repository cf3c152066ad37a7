import JSONCore
import SQLiteCore
import SchemaModel
@_exported import TestSupport
import XCTest

@testable import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// Foundation (re-exported by XCTest) has types with these names too; the engine's win here.
typealias Predicate = StoreEngine.Predicate
typealias PredicateError = StoreEngine.PredicateError
typealias Expression = StoreEngine.Expression

/// Task / Category: the seed scenario's schema.
let taskCategorySchema = schema(
  entity(
    "Task",
    [
      attr("title", "string"), attr("isCompleted", "bool", default: false), attr("priority", "int16", default: 0),
      attr("notes", "string", optional: true), attr("due", "date", optional: true),
    ],
    relationships: [rel("category", "Category", inverse: "tasks")]),
  entity(
    "Category", [attr("name", "string", unique: true), attr("color", "string", default: "blue")],
    relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: "cascade")]))

// MARK: - Stores

/// A fresh in-memory store with `schema` defined.
func makeStore(_ schema: JSONValue, file: StaticString = #filePath, line: UInt = #line) throws -> Store {
  let store = try Store(path: nil)
  _ = try store.define(schema)
  return store
}

/// A unique file path in a fresh temporary directory, removed after the test.
func temporaryPath(_ test: XCTestCase, _ name: String = "store.modelstore") -> String {
  temporaryFile(name, label: "storeengine-test", removedAfter: test)
}

func fileExists(_ path: String) -> Bool {
  var st = stat()
  return stat(path, &st) == 0
}

// MARK: - Objects

extension Store {
  /// Inserts and returns the new object's id.
  @discardableResult
  func add(_ entity: String, _ values: JSONObject = [:], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let o = try insert(entity: entity, values: values)
    guard case .string(let id)? = o["_id"] else {
      XCTFail("insert returned no _id", file: file, line: line)
      return ""
    }
    return id
  }

  /// A member of an existing object (to-many relationships as ids).
  func value(_ id: String, _ key: String) throws -> JSONValue? { try get(id: id, toMany: .ids)[key] }

  /// Ids of `entity` matching `predicate` in `sort` order.
  func idsWhere(
    _ entity: String, _ predicate: String? = nil, _ args: [JSONValue] = [], sort: [SortKey] = [], subentities: Bool = true
  ) throws -> [String] {
    var r = FetchRequest(entity: entity, predicate: try predicate.map { try PredicateParser.parse($0, args: args) })
    r.sort = sort
    r.includeSubentities = subentities
    return try ids(r)
  }

  func exists(_ id: String) -> Bool { (try? get(id: id)) != nil }
}

func ids(_ values: String...) -> JSONValue { .array(values.map { .string($0) }) }

func strings(_ v: JSONValue?) -> [String] { v?.arrayValue?.compactMap(\.stringValue) ?? [] }

// MARK: - Errors

/// Expects `body` to fail with a StoreError of `kind` and returns it.
@discardableResult
func expectStoreError<T>(
  _ kind: StoreError.Kind, _ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line
) -> StoreError? {
  let e = expectError(StoreError.self, body, file: file, line: line)
  if let e { XCTAssertEqual(e.kind, kind, "message: \(e.message)", file: file, line: line) }
  return e
}

// MARK: - The library fixture shared by the query tests

let librarySchema = schema(
  entity(
    "Author", [attr("name", "string"), attr("country", "string", optional: true), attr("born", "date", optional: true)],
    relationships: [rel("books", "Book", inverse: "author", toMany: true)]),
  entity(
    "Book",
    [
      attr("title", "string"), attr("pages", "int"), attr("price", "decimal", optional: true), attr("rating", "double", optional: true),
      attr("published", "date", optional: true), attr("available", "bool", default: true),
      attr("isbn", "string", optional: true, indexed: true), attr("meta", "json", optional: true),
    ],
    relationships: [rel("author", "Author", inverse: "books"), rel("tags", "Tag", inverse: "books", toMany: true)]),
  entity("Tag", [attr("name", "string", unique: true)], relationships: [rel("books", "Book", inverse: "tags", toMany: true)]))

/// Ids of the library fixture's objects, by a short name.
struct Library {
  let store: Store
  let zola = "Author/1", austen = "Author/2", oe = "Author/3", anon = "Author/4"
  let germinal = "Book/1", nana = "Book/2", emma = "Book/3", persuasion = "Book/4", strasse = "Book/5"
  let classic = "Tag/1", french = "Tag/2", unused = "Tag/3"

  init() throws {
    store = try makeStore(librarySchema)
    try store.add("Author", ["name": "Émile Zola", "country": "France", "born": "1840-04-02"])
    try store.add("Author", ["name": "Jane Austen", "country": "UK", "born": "1775-12-16"])
    try store.add("Author", ["name": "Ōe Kenzaburō", "country": "Japan"])
    try store.add("Author", ["name": "anonymous"])
    try store.add("Tag", ["name": "classic"])
    try store.add("Tag", ["name": "french"])
    try store.add("Tag", ["name": "unused"])
    try store.add(
      "Book",
      [
        "title": "Germinal", "pages": 592, "price": "12.50", "rating": 4.5, "published": "1885-03-01", "isbn": "111",
        "author": "Author/1", "tags": ["Tag/1", "Tag/2"],
      ])
    try store.add(
      "Book",
      [
        "title": "Nana", "pages": 448, "price": "9.99", "rating": 3.9, "published": "1880-01-01", "available": false, "isbn": "222",
        "author": "Author/1", "tags": ["Tag/2"],
      ])
    try store.add(
      "Book",
      [
        "title": "Emma", "pages": 474, "price": "10.00", "rating": 4.1, "published": "1815-12-23", "isbn": "333", "author": "Author/2",
        "tags": ["Tag/1"],
      ])
    try store.add("Book", ["title": "Persuasion", "pages": 249, "author": "Author/2"])
    try store.add("Book", ["title": "straße", "pages": 120, "price": "100"])
  }

  func books(_ predicate: String, _ args: [JSONValue] = []) throws -> [String] {
    try store.idsWhere("Book", predicate, args)
  }

  func authors(_ predicate: String, _ args: [JSONValue] = []) throws -> [String] {
    try store.idsWhere("Author", predicate, args)
  }
}

extension AggregateRequest {
  /// A request with predicates written as text.
  static func parsed(
    _ entity: String, _ aggregates: [Aggregate], groupBy: [GroupingKey] = [], where predicate: String? = nil, having: String? = nil,
    sort: [AggregateSortKey] = [], limit: Int? = nil, offset: Int? = nil
  ) throws -> AggregateRequest {
    var r = AggregateRequest(entity: entity, predicate: try predicate.map { try PredicateParser.parse($0) })
    r.aggregates = aggregates
    r.groupBy = groupBy
    r.having = try having.map { try PredicateParser.parse($0) }
    r.sort = sort
    r.limit = limit
    r.offset = offset
    return r
  }
}
