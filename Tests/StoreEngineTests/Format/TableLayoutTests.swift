import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Format 2's table layout: `_ent` only in a hierarchy of several entities, `_opt` added by
/// the first update of a table's rows; files of the first format-2 layout (both columns in
/// every table, Tests/Fixtures/Format2) are read and written table by table as they are.
final class TableLayoutTests: XCTestCase {
  private func columns(_ store: Store, _ table: String) throws -> [String] {
    var out: [String] = []
    try store.connection.prepare("SELECT name FROM pragma_table_info(?)").forEachRow([.text(table)]) { out.append($0.text(0)) }
    return out
  }

  private let pets = schema(
    entity("Owner", [attr("name", "string")], relationships: [rel("pets", "Pet", inverse: "owner", toMany: true, deleteRule: "nullify")]),
    entity("Pet", [attr("name", "string")], relationships: [rel("owner", "Owner", inverse: "pets", optional: true)]),
    entity("Dog", parent: "Pet", [attr("barks", "bool", default: true)]))

  func testOneEntityTablesHaveNeitherColumnUntilAnUpdate() throws {
    let store = try makeStore(pets)
    XCTAssertEqual(try columns(store, "Owner"), ["_pk", "name"])
    XCTAssertEqual(try columns(store, "Pet"), ["_pk", "_ent", "name", "owner", "barks"])
    let ann = try store.add("Owner", ["name": "Ann"])
    let bob = try store.add("Owner", ["name": "Bob"])
    let rex = try store.add("Dog", ["name": "Rex", "owner": .string(ann)])
    XCTAssertEqual(try store.get(id: ann, withVersion: true)["_version"], 1)
    XCTAssertEqual(try store.get(id: rex, withVersion: true)["_version"], 1)
    XCTAssertEqual(try store.fetch(FetchRequest(entity: "Owner")).count, 2)
    XCTAssertEqual(try store.value(ann, "pets"), ids(rex))

    // The first update of an Owner gives the table `_opt`; only that row is at 2.
    let updated = try store.update(id: ann, values: ["name": "Anna"], ifVersion: 1)
    XCTAssertEqual(updated["_version"], 2)
    XCTAssertEqual(try columns(store, "Owner"), ["_pk", "name", "_opt"])
    XCTAssertEqual(try store.get(id: bob, withVersion: true)["_version"], 1)
    expectStoreError(.conflict) { _ = try store.update(id: ann, values: ["name": "late"], ifVersion: 1) }
    // Moving the dog changes it (its inverse too): versions go up in both tables.
    _ = try store.update(id: rex, values: ["owner": .string(bob)])
    XCTAssertEqual(try store.get(id: rex, withVersion: true)["_version"], 2)
    XCTAssertEqual(
      try store.get(id: bob, withVersion: true)["_version"], 1, "a to-many read from the inverse's column is no change of its row")
    XCTAssertEqual(try columns(store, "Pet"), ["_pk", "_ent", "name", "owner", "barks", "_opt"])
  }

  func testAnUpdateRolledBackTakesItsColumnWithIt() throws {
    let store = try makeStore(pets)
    let ann = try store.add("Owner", ["name": "Ann"])
    _ = try store.begin()
    _ = try store.update(id: ann, values: ["name": "Anna"])
    XCTAssertEqual(try store.get(id: ann, withVersion: true)["_version"], 2)
    _ = try store.rollback()
    XCTAssertEqual(try columns(store, "Owner"), ["_pk", "name"])
    XCTAssertEqual(try store.get(id: ann, withVersion: true)["_version"], 1)
    // A request that fails after the update inside a client transaction: its savepoint
    // goes, the transaction goes on, and the next update adds the column again.
    _ = try store.begin()
    expectStoreError(.validation) { _ = try store.update(id: ann, values: ["name": "x", "nope": 1]) }
    _ = try store.update(id: ann, values: ["name": "Anna"])
    _ = try store.commit()
    XCTAssertEqual(try store.get(id: ann, withVersion: true)["_version"], 2)
    XCTAssertEqual(try columns(store, "Owner"), ["_pk", "name", "_opt"])
  }

  /// Two processes' connections on one file: the one that did not add `_opt` sees it in the
  /// snapshot that sees the updated row, so `ifVersion` stays exact.
  func testAnotherConnectionsFirstUpdateIsSeenExactly() throws {
    let path = temporaryPath(self)
    let a = try Store(path: path)
    _ = try a.define(pets)
    let ann = try a.add("Owner", ["name": "Ann"])
    XCTAssertEqual(try a.get(id: ann, withVersion: true)["_version"], 1)
    let b = try Store(path: path)
    _ = try b.update(id: ann, values: ["name": "B's"], ifVersion: 1)
    try a.followSchemaChanges()
    XCTAssertEqual(try a.get(id: ann, withVersion: true)["_version"], 2)
    expectStoreError(.conflict) { _ = try a.update(id: ann, values: ["name": "A's"], ifVersion: 1) }
    XCTAssertEqual(try a.update(id: ann, values: ["name": "A's"], ifVersion: 2)["_version"], 3)
    XCTAssertEqual(try b.get(id: ann, withVersion: true)["_version"], 3)
    a.close()
    b.close()
  }

  func testAHierarchyThatGainsASubEntityGetsEntColumnWithoutRewritingRows() throws {
    let v1 = schema(entity("Owner", [attr("name", "string")]), version: "1")
    let store = try makeStore(v1)
    let ann = try store.add("Owner", ["name": "Ann"])
    XCTAssertEqual(try columns(store, "Owner"), ["_pk", "name"])
    let v2 = schema(
      entity("Owner", [attr("name", "string")]), entity("Breeder", parent: "Owner", [attr("kennel", "string", optional: true)]),
      version: "2")
    _ = try store.define(v2)
    XCTAssertEqual(try columns(store, "Owner"), ["_pk", "name", "_ent", "kennel"])
    let code = try XCTUnwrap(store.entityCodes.code("Owner"))
    XCTAssertEqual(try store.connection.scalar("SELECT \"_ent\" FROM \"Owner\""), .integer(code))
    let kim = try store.add("Breeder", ["name": "Kim", "kennel": "K"])
    XCTAssertEqual(Set(try store.fetch(FetchRequest(entity: "Owner")).compactMap { $0["_id"]?.stringValue }), [ann, kim])
    XCTAssertEqual(try store.fetch(FetchRequest(entity: "Breeder")).compactMap { $0["_id"]?.stringValue }, [kim])
    XCTAssertEqual(try store.get(id: ann)["_entity"], "Owner")
    // Removing the sub-entity again keeps the column (documented).
    _ = try store.delete(id: kim)
    _ = try store.define(schema(entity("Owner", [attr("name", "string")]), version: "3"))
    XCTAssertTrue(try columns(store, "Owner").contains("_ent"))
    XCTAssertEqual(try store.get(id: ann)["name"], "Ann")
  }

  // MARK: - Files of the first format-2 layout

  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/Format2/everything.store").path

  private func firstLayoutCopy() throws -> String {
    guard fileExists(Self.fixture) else { throw XCTSkip("fixture \(Self.fixture) is missing") }
    let path = temporaryPath(self)
    try Data(contentsOf: URL(fileURLWithPath: Self.fixture)).write(to: URL(fileURLWithPath: path))
    return path
  }

  func testAFileOfTheFirstLayoutIsReadWrittenAndMigratedAsItIs() throws {
    let path = try firstLayoutCopy()
    let store = try Store(path: path)
    let tables = ["Thing", "Pet", "Person", "Step"]
    var before: [String: [String]] = [:]
    for t in tables {
      before[t] = try columns(store, t)
      XCTAssertEqual(Array(before[t]!.prefix(3)), ["_pk", "_ent", "_opt"], t)
    }
    XCTAssertNil(store.formatUpgrade)
    XCTAssertEqual(try store.meta("formatVersion"), "2")
    XCTAssertEqual(try store.check()["ok"], true)

    // Reads: values, versions, entities of a shared table.
    XCTAssertEqual(try store.get(id: "Thing/1", withVersion: true)["_version"], 2)
    XCTAssertEqual(try store.get(id: "Thing/1")["s"], "updated twice")
    XCTAssertEqual(try store.get(id: "Thing/2", withVersion: true)["_version"], 1)
    XCTAssertEqual(try store.get(id: "Thing/1", toMany: .ids)["friends"], ids("Thing/2"))
    XCTAssertEqual(Set(try store.fetch(FetchRequest(entity: "Pet")).compactMap { $0["_entity"]?.stringValue }), ["Dog", "Cat", "Pet"])
    XCTAssertEqual(try store.fetch(FetchRequest(entity: "Person", predicate: try PredicateParser.parse("name == 'Ann'"))).count, 1)

    // Writes: inserts carry `_ent` where the table has it, updates raise `_opt`.
    let thing = try store.add("Thing", ["s": "new"])
    XCTAssertEqual(
      try store.connection.scalar("SELECT \"_ent\" FROM \"Thing\" WHERE \"_pk\" = 4"), .integer(store.entityCodes.code("Thing")!))
    XCTAssertEqual(try store.update(id: thing, values: ["s": "newer"], ifVersion: 1)["_version"], 2)
    XCTAssertEqual(try store.update(id: "Step/1", values: ["text": "first"], ifVersion: 2)["_version"], 3)
    let dog = try store.add("Dog", ["name": "Fido"])
    XCTAssertEqual(try store.get(id: dog)["barks"], true)
    _ = try store.delete(id: "Person/2")
    for t in tables { XCTAssertEqual(try columns(store, t), before[t], "\(t) keeps its layout") }

    // A migration: a new attribute, a new sub-entity of a one-entity table that has `_ent`.
    let current = try XCTUnwrap(store.schema)
    var json = try XCTUnwrap(current.json.objectValue)
    var entities = try XCTUnwrap(json["entities"]?.arrayValue)
    for i in entities.indices where entities[i]["name"] == "Thing" {
      var e = entities[i].objectValue!
      var attributes = e["attributes"]!.arrayValue!
      attributes.append(attr("extra", "string", optional: true))
      e["attributes"] = .array(attributes)
      entities[i] = .object(e)
    }
    entities.append(entity("Gadget", parent: "Thing", [attr("volts", "int32", optional: true)]))
    json["entities"] = .array(entities)
    json["version"] = "4"
    _ = try store.define(.object(json))
    XCTAssertEqual(try store.meta("schemaVersion"), "4")
    XCTAssertNotNil(store.entityCodes.code("Gadget"))
    XCTAssertEqual(Array(try columns(store, "Thing").prefix(3)), ["_pk", "_ent", "_opt"])
    let gadget = try store.add("Gadget", ["volts": 12, "s": "g"])
    XCTAssertEqual(try store.fetch(FetchRequest(entity: "Thing")).count, 5)
    XCTAssertEqual(try store.fetch(FetchRequest(entity: "Gadget")).compactMap { $0["_id"]?.stringValue }, [gadget])
    XCTAssertEqual(try store.get(id: "Thing/1")["s"], "updated twice")
    XCTAssertEqual(try store.check()["ok"], true)
    store.close()

    // Opened again: the same answers.
    let again = try Store(path: path)
    XCTAssertEqual(try again.get(id: "Thing/1", withVersion: true)["_version"], 2)
    XCTAssertEqual(try again.get(id: "Step/1", withVersion: true)["_version"], 3)
    again.close()
  }
}
