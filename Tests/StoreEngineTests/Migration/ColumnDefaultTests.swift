import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// A required attribute with a constant default is added as `ADD COLUMN … DEFAULT`: the
/// stored rows read the default without being rewritten, and the column's `DEFAULT` never
/// shows through anywhere else (later defaults, inserts, siblings, re-added attributes).
final class ColumnDefaultTests: XCTestCase {
  static let v1 = schema(entity("Note", [attr("text", "string")]), version: "1")
  static func withRank(_ version: String, _ rank: JSONValue) -> JSONValue {
    schema(entity("Note", [attr("text", "string"), rank]), version: version)
  }

  func notes(_ store: Store, _ n: Int) throws -> [String] { try (0..<n).map { try store.add("Note", ["text": .string("n\($0)")]) } }

  func testAConstantDefaultIsKeptInTheColumnAndNoRowIsRewritten() throws {
    let store = try makeStore(Self.v1)
    let ids = try notes(store, 200)
    let changesBefore = store.connection.totalChanges
    let r = try store.define(Self.withRank("2", attr("rank", "int", default: 5)))
    XCTAssertEqual(r.steps, ["add column Note.rank with its default"])
    // The define writes its bookkeeping rows (schema, versions, history), not 200 objects.
    XCTAssertLessThan(store.connection.totalChanges - changesBefore, 20)
    XCTAssertEqual(try store.columnDefault("Note", "rank"), "5")
    for id in ids { XCTAssertEqual(try store.value(id, "rank"), 5) }
    XCTAssertEqual(try store.idsWhere("Note", "rank == 5").count, 200)
  }

  func testEveryTypeOfDefaultReadsBackExactly() throws {
    let store = try makeStore(Self.v1)
    let id = try store.add("Note", ["text": "a"])
    let defaults: [(String, JSONValue)] = [
      ("string", "it's \"quoted\" ünïcode"), ("int", .int(Int64.min)), ("int64", .int(Int64.max)), ("double", .double(0.1)),
      ("float", .double(-1.5e-7)), ("decimal", "12345678901234567890.125"), ("bool", true), ("date", "2026-01-02T03:04:05.678Z"),
      ("uuid", "0F8FAD5B-D9CB-469F-A165-70867728950E"), ("data", "AP8A/w=="), ("url", "https://example.com/a?b=c'd"),
      ("json", .object(["k": .array([1, "x"])])),
    ]
    let attributes = [attr("text", "string")] + defaults.map { attr("v_\($0.0)", $0.0, default: $0.1) }
    let r = try store.define(schema(entity("Note", attributes), version: "2"))
    XCTAssertFalse(r.steps.contains { $0.hasPrefix("fill") }, "\(r.steps)")
    let fresh = try store.add("Note", ["text": "b"])
    for (type, _) in defaults {
      XCTAssertNotNil(try store.columnDefault("Note", "v_\(type)"), type)
      XCTAssertEqual(try store.value(id, "v_\(type)"), try store.value(fresh, "v_\(type)"), type)
    }
    XCTAssertEqual(try store.value(id, "v_string"), "it's \"quoted\" ünïcode")
    XCTAssertEqual(try store.value(id, "v_int"), .int(Int64.min))
    XCTAssertEqual(try store.value(id, "v_double"), .double(0.1))
  }

  func testALaterDefaultAppliesToNewObjectsOnlyAsInCoreData() throws {
    let store = try makeStore(Self.v1)
    let old = try store.add("Note", ["text": "old"])
    _ = try store.define(Self.withRank("2", attr("rank", "int", default: 5)))
    let middle = try store.add("Note", ["text": "middle"])
    // v3 changes the default: existing objects keep 5, new ones get 9.
    _ = try store.define(Self.withRank("3", attr("rank", "int", default: 9)))
    let new = try store.add("Note", ["text": "new"])
    let given = try store.add("Note", ["text": "given", "rank": 1])
    XCTAssertEqual(try [old, middle, new, given].map { try store.value($0, "rank") }, [5, 5, 9, 1])
    // v4 makes it optional without default: new objects have none, old ones keep theirs.
    _ = try store.define(Self.withRank("4", attr("rank", "int", optional: true)))
    let none = try store.add("Note", ["text": "none"])
    XCTAssertEqual(try [old, middle, new, none].map { try store.value($0, "rank") }, [5, 5, 9, .null])
    XCTAssertEqual(try store.columnDefault("Note", "rank"), "5", "SQLite never changes a column's DEFAULT")
  }

  func testOptionalAttributesAndGeneratedDefaultsAreNotKeptInTheColumn() throws {
    let store = try makeStore(Self.v1)
    let id = try store.add("Note", ["text": "a"])
    let r = try store.define(
      schema(
        entity(
          "Note",
          [attr("text", "string"), attr("tag", "string", optional: true, default: "x"), attr("key", "uuid", default: ["generate": "uuid"])]),
        version: "2"))
    XCTAssertEqual(r.steps, ["add column Note.tag", "add column Note.key", "fill Note.key with generated values"])
    XCTAssertNil(try store.columnDefault("Note", "tag"))
    XCTAssertNil(try store.columnDefault("Note", "key"))
    XCTAssertEqual(try store.value(id, "tag"), .null, "an optional attribute added later is nil on existing objects")
  }

  func testRenamingKeepsTheColumnsDefault() throws {
    let store = try makeStore(Self.v1)
    let id = try store.add("Note", ["text": "a"])
    _ = try store.define(Self.withRank("2", attr("rank", "int", default: 5)))
    let r = try store.define(Self.withRank("3", attr("level", "int", default: 5, originalName: "rank")))
    XCTAssertEqual(r.steps, ["rename column Note.rank to level"])
    XCTAssertEqual(try store.value(id, "level"), 5)
    XCTAssertEqual(try store.columnDefault("Note", "level"), "5")
  }

  func testRemovingAndAddingAgainStartsFromTheNewDefault() throws {
    let store = try makeStore(Self.v1)
    let id = try store.add("Note", ["text": "a"])
    let v2 = Self.withRank("2", attr("rank", "int", default: 5))
    let v3 = schema(entity("Note", [attr("text", "string")]), version: "3")
    _ = try store.define(v2)
    // The default counts as the objects' value: removing it loses data.
    let e = expectStoreError(.migrationRequired) { try store.define(v3) }
    XCTAssertTrue(e?.message.contains("'rank' is removed with its 1 stored value") ?? false, e?.message ?? "")
    try store.migrate([v2, v3], allowDataLoss: true)
    XCTAssertEqual(try store.columnNames("Note"), ["_pk", "text"])
    _ = try store.define(Self.withRank("4", attr("rank", "int", default: 7)))
    XCTAssertEqual(try store.value(id, "rank"), 7)
    try store.migrate([Self.withRank("4", attr("rank", "int", default: 7)), v3.with(version: "5")], allowDataLoss: true)
    _ = try store.define(Self.withRank("6", attr("rank", "int", optional: true)))
    XCTAssertEqual(try store.value(id, "rank"), .null)
  }

  func testRetypingAColumnWithADefaultConvertsWhatTheRowsRead() throws {
    let store = try makeStore(Self.v1)
    let id = try store.add("Note", ["text": "a"])
    _ = try store.define(Self.withRank("2", attr("rank", "int", default: 5)))
    // Same storage class: converted in place, the DEFAULT still holds for the old rows.
    _ = try store.define(Self.withRank("3", attr("rank", "int16", default: 5)))
    XCTAssertEqual(try store.value(id, "rank"), 5)
    XCTAssertEqual(try store.columnDefault("Note", "rank"), "5")
    // Another storage class: rebuilt through a temporary column, every value written.
    _ = try store.define(Self.withRank("4", attr("rank", "string", default: "x")))
    XCTAssertEqual(try store.value(id, "rank"), "5")
    XCTAssertNil(try store.columnDefault("Note", "rank"))
    XCTAssertEqual(try store.value(try store.add("Note", ["text": "b"]), "rank"), "x")
  }

  func testSiblingsWithoutTheAttributeKeepTheColumnWithoutDefault() throws {
    let v1 = schema(
      entity("Item", abstract: true, [attr("name", "string")]), entity("Book", parent: "Item"), entity("Disc", parent: "Item"))
    let store = try makeStore(v1)
    let book = try store.add("Book", ["name": "b"])
    let disc = try store.add("Disc", ["name": "d"])
    // Only Book gets the attribute: its rows are filled, the column has no DEFAULT.
    let v2 = schema(
      entity("Item", abstract: true, [attr("name", "string")]), entity("Book", parent: "Item", [attr("rank", "int", default: 5)]),
      entity("Disc", parent: "Item"), version: "2")
    let r = try store.define(v2)
    XCTAssertEqual(r.steps, ["add column Item.rank", "fill Book.rank with its default"])
    XCTAssertNil(try store.columnDefault("Item", "rank"))
    XCTAssertEqual(try store.value(book, "rank"), 5)
    // Disc gains it later: its objects read nil, not Book's values.
    let v3 = schema(
      entity("Item", abstract: true, [attr("name", "string")]), entity("Book", parent: "Item", [attr("rank", "int", default: 5)]),
      entity("Disc", parent: "Item", [attr("rank", "int", optional: true)]), version: "3")
    _ = try store.define(v3)
    XCTAssertEqual(try store.value(disc, "rank"), .null)
    XCTAssertEqual(try store.value(book, "rank"), 5)
  }

  func testAnEntityRegainingASharedColumnDoesNotReadItsDefault() throws {
    let both = schema(
      entity("Item", abstract: true, [attr("name", "string"), attr("rank", "int", default: 5)]), entity("Book", parent: "Item"),
      entity("Disc", parent: "Item"), version: "2")
    let store = try makeStore(
      schema(entity("Item", abstract: true, [attr("name", "string")]), entity("Book", parent: "Item"), entity("Disc", parent: "Item")))
    let oldDisc = try store.add("Disc", ["name": "d"])
    _ = try store.define(both)
    XCTAssertEqual(try store.columnDefault("Item", "rank"), "5")
    XCTAssertEqual(try store.value(oldDisc, "rank"), 5)
    // Disc loses rank (the column stays for Book); its new rows leave the column out.
    _ = try store.define(
      schema(
        entity("Item", abstract: true, [attr("name", "string")]), entity("Book", parent: "Item", [attr("rank", "int", default: 5)]),
        entity("Disc", parent: "Item"), version: "3"))
    let newDisc = try store.add("Disc", ["name": "e"])
    let book = try store.add("Book", ["name": "b"])
    // Disc gains an optional rank: a new attribute for it, nil on all its objects.
    let r = try store.define(
      schema(
        entity("Item", abstract: true, [attr("name", "string")]), entity("Book", parent: "Item", [attr("rank", "int", default: 5)]),
        entity("Disc", parent: "Item", [attr("rank", "int", optional: true)]), version: "4"))
    XCTAssertTrue(r.steps.contains("clear Item.rank for Disc, which gain it"), "\(r.steps)")
    XCTAssertEqual(try store.value(oldDisc, "rank"), .null)
    XCTAssertEqual(try store.value(newDisc, "rank"), .null)
    XCTAssertEqual(try store.value(book, "rank"), 5)
  }

  func testAToOneReplacedByAnAttributeOfTheSameNameLosesItsLinks() throws {
    let v1 = schema(
      entity("Task", [attr("title", "string")], relationships: [rel("owner", "Person", inverse: "tasks")]),
      entity("Person", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "owner", toMany: true)]))
    let v2 = schema(
      entity("Task", [attr("title", "string"), attr("owner", "int", optional: true)]), entity("Person", [attr("name", "string")]),
      version: "2")
    let store = try makeStore(v1)
    let p = try store.add("Person", ["name": "p"])
    let t = try store.add("Task", ["title": "t", "owner": .string(p)])
    let e = expectStoreError(.migrationRequired) { try store.define(v2) }
    XCTAssertEqual(e?.details["dataLoss"]?.arrayValue?.first?["relationship"], "owner")
    XCTAssertEqual(try store.value(t, "owner"), .string(p))
    try store.migrate([v1, v2], allowDataLoss: true)
    XCTAssertEqual(try store.value(t, "owner"), .null, "a link is not read as the new attribute's value")
  }

  func testTheChecksStillRunWhereAStageCanLeaveSomethingToFind() throws {
    let v1 = schema(
      entity("Item", [attr("name", "string"), attr("tag", "string", optional: true)]), entity("Book", parent: "Item"),
      entity("Disc", parent: "Item"))
    let store = try makeStore(v1)
    let untagged = try store.add("Book", ["name": "a"])
    let tagged = try store.add("Book", ["name": "b", "tag": "x"])
    try store.add("Disc", ["name": "d"])
    // Optional becomes required: the objects without a value get the default.
    let v2 = schema(
      entity("Item", [attr("name", "string"), attr("tag", "string", default: "none")]), entity("Book", parent: "Item"),
      entity("Disc", parent: "Item"), version: "2")
    let r = try store.define(v2)
    XCTAssertEqual(r.steps, ["fill Item.tag with its default"])
    XCTAssertEqual(try store.value(untagged, "tag"), "none")
    XCTAssertEqual(try store.value(tagged, "tag"), "x")
    // A sub-entity removed while it has objects: found and refused.
    let v3 = schema(
      entity("Item", [attr("name", "string"), attr("tag", "string", default: "none")]), entity("Book", parent: "Item"), version: "3")
    let e = expectStoreError(.migrationRequired) { try store.define(v3) }
    XCTAssertEqual(e?.details["dataLoss"]?.arrayValue?.first?["entity"], "Disc")
  }

  func testAFailingDefineChangesNothing() throws {
    let store = try makeStore(Self.v1)
    let id = try store.add("Note", ["text": "a"])
    try store.add("Note", ["text": "a"])
    // The default goes in, then the new uniqueness fails: all of it is rolled back.
    let v2 = schema(entity("Note", [attr("text", "string", unique: true), attr("rank", "int", default: 5)]), version: "2")
    expectStoreError(.constraint) { try store.define(v2) }
    XCTAssertEqual(try store.columnNames("Note"), ["_pk", "text"])
    XCTAssertEqual(store.schema?.version, "1")
    XCTAssertNil(try store.value(id, "rank"))
  }

  func testExportAndImportCarryTheDefaultAsAValue() throws {
    let store = try makeStore(Self.v1)
    try store.add("Note", ["text": "a"])
    _ = try store.define(Self.withRank("2", attr("rank", "int", default: 5)))
    let sink = MemorySink(limit: 1 << 20)
    _ = try store.export(ExportOptions(entities: nil, layout: .ndjson), to: sink)
    let text = String(decoding: sink.bytes, as: UTF8.self)
    XCTAssertTrue(text.contains("\"rank\":5"), text)
    let copy = try Store(path: nil)
    _ = try copy.importObjects(.bytes(Array(text.utf8)), mode: .replace)
    XCTAssertEqual(try copy.value("Note/1", "rank"), 5)
    XCTAssertNil(try copy.columnDefault("Note", "rank"), "a new table holds values, not defaults")
  }

  func testCustomStagesReadTheDefaultAndSplitRowsGetTheCurrentOne() throws {
    let v1 = schema(
      entity("Person", [attr("name", "string"), attr("street", "string", optional: true)]),
      entity("Address", [attr("line", "string", optional: true)]))
    let store = try makeStore(v1)
    let p = try store.add("Person", ["name": "Ann", "street": "Main St"])
    try store.add("Address", ["line": "old"])
    let v2 = schema(
      entity("Person", [attr("name", "string"), attr("street", "string", optional: true), attr("rank", "int", default: 5)]),
      entity("Address", [attr("line", "string", optional: true), attr("country", "string", default: "NL")]), version: "2")
    _ = try store.define(v2)
    XCTAssertEqual(try store.columnDefault("Address", "country"), "'NL'")
    // v3: rank is copied into a string and dropped; the street moves to a new Address,
    // which gets the current default BE, not the column's NL.
    let v3 = schema(
      entity(
        "Person", [attr("name", "string"), attr("label", "string", optional: true)],
        relationships: [rel("address", "Address", inverse: "person")]),
      entity(
        "Address", [attr("line", "string", optional: true), attr("country", "string", default: "BE")],
        relationships: [rel("person", "Person", inverse: "address")]),
      version: "3")
    let stages: JSONValue = .array([
      custom(
        "2", "3",
        transforms: [
          ["rename": ["entity": "Person", "from": "rank", "to": "label"]],
          ["split": ["entity": "Person", "relationship": "address", "to": "Address", "keys": ["street": "line"]]],
        ])
    ])
    let dry = try store.migrate([v2, v3], stages: stages, dryRun: true)
    XCTAssertEqual(dry.stages.map(\.status), ["planned"])
    XCTAssertEqual(store.schema?.version, "2")
    XCTAssertEqual(try store.columnDefault("Address", "country"), "'NL'")
    try store.migrate([v2, v3], stages: stages)
    XCTAssertEqual(try store.value(p, "label"), "5")
    let address = try XCTUnwrap(try store.value(p, "address")?.stringValue)
    XCTAssertEqual(try store.value(address, "line"), "Main St")
    XCTAssertEqual(try store.value(address, "country"), "BE")
    XCTAssertEqual(try store.value("Address/1", "country"), "NL", "the object that existed keeps its value")
  }
}

extension Store {
  /// The `DEFAULT` of a column as SQLite keeps it (`dflt_value`), or nil.
  func columnDefault(_ table: String, _ column: String) throws -> String? {
    try connection.prepare("SELECT dflt_value FROM pragma_table_info(?) WHERE name = ?").first([.text(table), .text(column)]) {
      $0.isNull(0) ? nil : $0.text(0)
    } ?? nil
  }
}

extension JSONValue {
  /// The schema with another `version`.
  func with(version: String) -> JSONValue {
    var o = objectValue ?? [:]
    o["version"] = .string(version)
    return .object(o)
  }
}
