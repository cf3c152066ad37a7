import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Every lightweight inference rule, applied by `model.define` (one lightweight stage).
final class LightweightMigrationTests: XCTestCase {
  func testSeedScenarioOneAddsAttributesWithDefaults() throws {
    let store = try makeStore(Seeds.taskV1)
    let c = try store.add("Category", ["name": "Home"])
    let t = try store.add("Task", ["title": "Buy milk", "done": true, "category": .string(c)])
    let result = try store.migrate([Seeds.taskV1, Seeds.taskV2])
    XCTAssertEqual(result.from, "1.0.0")
    XCTAssertEqual(result.stages.map(\.status), ["applied"])
    let task = try store.get(id: t)
    XCTAssertEqual(task["title"], "Buy milk")
    XCTAssertEqual(task["done"], true)
    XCTAssertEqual(task["priority"], 0)
    XCTAssertEqual(task["notes"], "")
    XCTAssertEqual(task["category"], .string(c))
    XCTAssertEqual(try store.value(c, "color"), "blue")
    XCTAssertEqual(store.schema?.version, "2.0.0")
    XCTAssertEqual(try store.schemaHistory().map(\.version), ["1.0.0", "2.0.0"])
  }

  func testRenamingAnAttributeKeepsItsValuesWithAnO1Rename() throws {
    let store = try makeStore(Seeds.taskV1)
    let t = try store.add("Task", ["title": "a", "done": true])
    let r = try store.define(Seeds.appV2)
    XCTAssertTrue(r.steps.contains("rename column Task.done to isCompleted"), "\(r.steps)")
    XCTAssertEqual(try store.value(t, "isCompleted"), true)
    XCTAssertEqual(try store.value(t, "priority"), 0)
    XCTAssertEqual(try store.columnNames("Task"), ["_pk", "title", "isCompleted", "category", "priority"])
  }

  func testRenamingAnEntityKeepsObjectsAndLinks() throws {
    let v1 = schema(
      entity("Note", [attr("text", "string")], relationships: [rel("tags", "Tag", inverse: "notes", toMany: true)]),
      entity("Tag", [attr("name", "string")], relationships: [rel("notes", "Note", inverse: "tags", toMany: true)]))
    let v2 = schema(
      entity(
        "Memo", [attr("body", "string", originalName: "text")],
        relationships: [rel("labels", "Label", inverse: "memos", toMany: true, originalName: "tags")], originalName: "Note"),
      entity(
        "Label", [attr("name", "string")], relationships: [rel("memos", "Memo", inverse: "labels", toMany: true, originalName: "notes")],
        originalName: "Tag"),
      version: "2")
    let store = try makeStore(v1)
    let tag = try store.add("Tag", ["name": "x"])
    let note = try store.add("Note", ["text": "hello", "tags": .array([.string(tag)])])
    XCTAssertEqual(note, "Note/1")
    _ = try store.define(v2)
    XCTAssertEqual(try store.value("Memo/1", "body"), "hello")
    XCTAssertEqual(try store.value("Memo/1", "labels"), ids("Label/1"))
    XCTAssertEqual(try store.value("Label/1", "memos"), ids("Memo/1"))
    XCTAssertFalse(try store.tableNames().contains("Note"))
    XCTAssertNoThrow(try store.add("Memo", ["body": "new", "labels": ids("Label/1")]))
    XCTAssertEqual(try store.value("Label/1", "memos"), ids("Memo/1", "Memo/2"))
  }

  func testRenamingAToOneRelationshipMovesItsColumn() throws {
    let store = try makeStore(Seeds.taskV1)
    let c = try store.add("Category", ["name": "Home"])
    let t = try store.add("Task", ["title": "a", "category": .string(c)])
    let v2 = schema(
      entity(
        "Task", [attr("title", "string"), attr("done", "bool", default: false)],
        relationships: [rel("group", "Category", inverse: "tasks", originalName: "category")]),
      entity("Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "group", toMany: true)]),
      version: "2")
    _ = try store.define(v2)
    XCTAssertEqual(try store.value(t, "group"), .string(c))
    XCTAssertEqual(try store.value(c, "tasks"), ids(t))
  }

  func testRemovingAnAttributeWithValuesNeedsPermission() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string"), attr("extra", "string", optional: true)])))
    try store.add("Note", ["text": "a", "extra": "x"])
    let v2 = schema(entity("Note", [attr("text", "string")]), version: "2")
    let v1 = try XCTUnwrap(store.schema?.json)
    let e = expectStoreError(.migrationRequired) { try store.migrate([v1, v2]) }
    XCTAssertEqual(e?.details["dataLoss"]?.arrayValue?.first?["count"], 1)
    XCTAssertEqual(store.schema?.version, "1")
    let result = try store.migrate([v1, v2], allowDataLoss: true)
    XCTAssertEqual(result.stages[0].report.dataLoss.first?["attribute"], "extra")
    XCTAssertEqual(try store.columnNames("Note"), ["_pk", "text"])
  }

  func testRemovingAnEntityWithObjectsClearsLinksToThem() throws {
    let v1 = schema(
      entity("Task", [attr("title", "string")], relationships: [rel("owner", "Person")]), entity("Person", [attr("name", "string")]))
    let store = try makeStore(v1)
    let p = try store.add("Person", ["name": "Ann"])
    let t = try store.add("Task", ["title": "a", "owner": .string(p)])
    let v2 = schema(entity("Task", [attr("title", "string")]), version: "2")
    expectStoreError(.migrationRequired) { try store.migrate([v1, v2]) }
    XCTAssertEqual(try store.value(t, "owner"), .string(p))
    let r = try store.migrate([v1, v2], allowDataLoss: true)
    XCTAssertEqual(Set(r.stages[0].report.dataLoss.compactMap { $0["entity"]?.stringValue }), ["Person", "Task"])
    XCTAssertFalse(try store.tableNames().contains("Person"))
    XCTAssertEqual(try store.get(id: t)["title"], "a")
  }

  func testRemovingASubentityWithObjectsDeletesOnlyThemWhenAllowed() throws {
    let v1 = schema(entity("Item", [attr("name", "string")]), entity("Special", parent: "Item", [attr("level", "int", optional: true)]))
    let store = try makeStore(v1)
    try store.add("Item", ["name": "plain"])
    try store.add("Special", ["name": "special", "level": 3])
    let v2 = schema(entity("Item", [attr("name", "string")]), version: "2")
    expectStoreError(.migrationRequired) { try store.migrate([v1, v2]) }
    try store.migrate([v1, v2], allowDataLoss: true)
    XCTAssertEqual(try store.all("Item").map { $0["name"] }, ["plain"])
    XCTAssertFalse(try store.columnNames("Item").contains("level"))
  }

  func testOptionalToRequiredFillsTheDefaultOrNamesTheObjects() throws {
    let v1 = schema(entity("Note", [attr("text", "string", optional: true)]))
    let store = try makeStore(v1)
    let a = try store.add("Note", [:])
    let v2 = schema(entity("Note", [attr("text", "string")]), version: "2")
    let e = expectStoreError(.migrationRequired) { try store.migrate([v1, v2]) }
    XCTAssertEqual(e?.details["reasons"]?.arrayValue?.first?["ids"], ids(a))
    let v3 = schema(entity("Note", [attr("text", "string", default: "-")]), version: "3")
    try store.migrate([v1, v3])
    XCTAssertEqual(try store.value(a, "text"), "-")
    // And back to optional: nothing to check.
    try store.migrate([v3, schema(entity("Note", [attr("text", "string", optional: true)]), version: "4")])
  }

  func testWideningsKeepEveryValue() throws {
    let v1 = schema(
      entity("N", [attr("a", "int16"), attr("b", "float"), attr("c", "int"), attr("d", "date"), attr("e", "bool"), attr("f", "int32")]))
    let store = try makeStore(v1)
    let id = try store.add("N", ["a": 7, "b": 1.5, "c": 42, "d": "2026-01-02T03:04:05.678Z", "e": true, "f": -3])
    let v2 = schema(
      entity(
        "N", [attr("a", "int64"), attr("b", "double"), attr("c", "double"), attr("d", "string"), attr("e", "string"), attr("f", "string")]),
      version: "2")
    let r = try store.migrate([v1, v2])
    XCTAssertTrue(r.stages[0].changes.allSatisfy { $0.lightweight && $0.condition == nil }, "\(r.stages[0].changes.map(\.message))")
    let o = try store.get(id: id)
    XCTAssertEqual(o["a"], 7)
    XCTAssertEqual(o["b"], 1.5)
    XCTAssertEqual(o["c"], 42.0)
    XCTAssertEqual(o["d"], "2026-01-02T03:04:05.678Z")
    XCTAssertEqual(o["e"], "true")
    XCTAssertEqual(o["f"], "-3")
    XCTAssertEqual(try store.connection.scalar("SELECT typeof(\"c\") FROM \"N\""), .text("real"), "the column moved to REAL storage")
  }

  func testNarrowingNeedsValuesThatFitOrACustomRule() throws {
    let v1 = schema(entity("N", [attr("x", "double")]))
    let store = try makeStore(v1)
    let a = try store.add("N", ["x": 2.0])
    let b = try store.add("N", ["x": 2.6])
    let v2 = schema(entity("N", [attr("x", "int16")]), version: "2")
    let e = expectStoreError(.migrationRequired) { try store.migrate([v1, v2]) }
    XCTAssertEqual(e?.details["reasons"]?.arrayValue?.first?["ids"], ids(b))
    XCTAssertEqual(try store.value(b, "x"), 2.6, "nothing changed")
    try store.migrate(
      [v1, v2], stages: .array([custom("1", "2", transforms: [["convert": ["entity": "N", "attribute": "x", "rule": "round"]]])]))
    XCTAssertEqual(try store.value(a, "x"), 2)
    XCTAssertEqual(try store.value(b, "x"), 3)
  }

  func testANewUniquenessIsCheckedAndConflictsNamed() throws {
    let v1 = schema(entity("Tag", [attr("name", "string")]))
    let store = try makeStore(v1)
    let a = try store.add("Tag", ["name": "x"])
    let b = try store.add("Tag", ["name": "x"])
    try store.add("Tag", ["name": "y"])
    let v2 = schema(entity("Tag", [attr("name", "string", unique: true)]), version: "2")
    let e = expectStoreError(.constraint) { try store.migrate([v1, v2]) }
    XCTAssertEqual(e?.details["conflicts"], .array([ids(a, b)]))
    _ = try store.delete(id: b)
    try store.migrate([v1, v2])
    expectStoreError(.constraint) { try store.add("Tag", ["name": "x"]) }
  }

  func testIndexesFollowTheSchema() throws {
    let v1 = schema(entity("T", [attr("a", "string"), attr("b", "int")]))
    let store = try makeStore(v1)
    try store.migrate([
      v1, schema(entity("T", [attr("a", "string", indexed: true), attr("b", "int")], indexes: [["a", "b"]]), version: "2"),
    ])
    XCTAssertTrue(try store.indexColumns().contains(["a"]))
    XCTAssertTrue(try store.indexColumns().contains(["a", "b"]))
    _ = try store.define(schema(entity("T", [attr("a", "string"), attr("b", "int")]), version: "3"))
    XCTAssertFalse(try store.indexColumns().contains(["a"]))
  }

  func testAddingAnInverseMovesLinksToTheForeignKey() throws {
    // Without an inverse a to-many lives in a join table; with a to-one inverse, in its column.
    let v1 = schema(
      entity("List", [attr("name", "string")], relationships: [rel("items", "Item", toMany: true)]),
      entity("Item", [attr("name", "string")]))
    let store = try makeStore(v1)
    let i1 = try store.add("Item", ["name": "a"])
    let i2 = try store.add("Item", ["name": "b"])
    let l = try store.add("List", ["name": "L", "items": ids(i1, i2)])
    let v2 = schema(
      entity("List", [attr("name", "string")], relationships: [rel("items", "Item", inverse: "list", toMany: true)]),
      entity("Item", [attr("name", "string")], relationships: [rel("list", "List", inverse: "items")]), version: "2")
    let r = try store.migrate([v1, v2])
    XCTAssertTrue(r.stages[0].report.steps.contains { $0.action == "move the links of List.items to their new storage" && $0.rows == 2 })
    XCTAssertEqual(try store.value(i1, "list"), .string(l))
    XCTAssertEqual(Set(strings(try store.value(l, "items"))), [i1, i2])
    XCTAssertFalse(try store.tableNames().contains("_J_List.items"))
  }

  func testToOneBecomingToManyKeepsTheLink() throws {
    let v1 = schema(entity("Task", [attr("t", "string")], relationships: [rel("owner", "Person")]), entity("Person", [attr("n", "string")]))
    let store = try makeStore(v1)
    let p = try store.add("Person", ["n": "Ann"])
    let t = try store.add("Task", ["t": "a", "owner": .string(p)])
    let v2 = schema(
      entity("Task", [attr("t", "string")], relationships: [rel("owner", "Person", toMany: true)]), entity("Person", [attr("n", "string")]),
      version: "2")
    try store.migrate([v1, v2])
    XCTAssertEqual(try store.value(t, "owner"), ids(p))
    // And back: fine while every task has at most one owner.
    let p2 = try store.add("Person", ["n": "Bob"])
    _ = try store.update(id: t, values: ["owner": ids(p, p2)])
    let v3 = schema(
      entity("Task", [attr("t", "string")], relationships: [rel("owner", "Person")]), entity("Person", [attr("n", "string")]), version: "3")
    let e = expectStoreError(.migrationRequired) { try store.migrate([v2, v3]) }
    XCTAssertEqual(e?.details["reasons"]?.arrayValue?.first?["relationship"], "owner")
    _ = try store.update(id: t, values: ["owner": ids(p2)])
    try store.migrate([v2, v3])
    XCTAssertEqual(try store.value(t, "owner"), .string(p2))
  }

  func testDeleteRuleChangeTakesEffect() throws {
    let v1 = schema(
      entity("List", [attr("n", "string")], relationships: [rel("items", "Item", inverse: "list", toMany: true)]),
      entity("Item", [attr("n", "string")], relationships: [rel("list", "List", inverse: "items")]))
    let store = try makeStore(v1)
    let l = try store.add("List", ["n": "L"])
    let i = try store.add("Item", ["n": "a", "list": .string(l)])
    let v2 = schema(
      entity("List", [attr("n", "string")], relationships: [rel("items", "Item", inverse: "list", toMany: true, deleteRule: "cascade")]),
      entity("Item", [attr("n", "string")], relationships: [rel("list", "List", inverse: "items")]), version: "2")
    let r = try store.migrate([v1, v2])
    XCTAssertEqual(r.stages[0].changes.map(\.kind), [.changeDeleteRule])
    _ = try store.delete(id: l)
    XCTAssertFalse(store.exists(i))
  }

  func testParentChangeWithinTheTableIsLightweightAcrossTablesNeedsNoObjects() throws {
    let v1 = schema(
      entity("A", [attr("x", "int")]), entity("B", parent: "A", [attr("y", "int", optional: true)]), entity("C", parent: "A"),
      entity("Z", [attr("z", "int")]))
    let store = try makeStore(v1)
    let c = try store.add("C", ["x": 1])
    // C moves under B: same table.
    let v2 = schema(
      entity("A", [attr("x", "int")]), entity("B", parent: "A", [attr("y", "int", optional: true)]), entity("C", parent: "B"),
      entity("Z", [attr("z", "int")]), version: "2")
    try store.migrate([v1, v2])
    XCTAssertEqual(try store.value(c, "x"), 1)
    XCTAssertEqual(try store.idsWhere("B"), [c])
    // C moves to Z's hierarchy: refused while C has objects.
    let v3 = schema(
      entity("A", [attr("x", "int")]), entity("B", parent: "A", [attr("y", "int", optional: true)]),
      entity("Z", [attr("z", "int"), attr("x", "int", optional: true)]), entity("C", parent: "Z"), version: "3")
    let e = expectStoreError(.migrationRequired) { try store.migrate([v2, v3]) }
    XCTAssertTrue(e?.message.contains("moves from hierarchy") ?? false, e?.message ?? "")
    XCTAssertEqual(e?.details["reasons"]?.arrayValue?.first?["entity"], "C")
  }

  func testBecomingAbstractWithObjectsIsRefused() throws {
    let v1 = schema(entity("A", [attr("x", "int")]), entity("B", parent: "A"))
    let store = try makeStore(v1)
    let a = try store.add("A", ["x": 1])
    let e = expectStoreError(.migrationRequired) {
      try store.migrate([v1, schema(entity("A", abstract: true, [attr("x", "int")]), entity("B", parent: "A"), version: "2")])
    }
    XCTAssertEqual(e?.details["reasons"]?.arrayValue?.first?["ids"], ids(a))
  }

  func testAChangedDestinationNeedsACustomStage() throws {
    let v1 = schema(entity("T", relationships: [rel("o", "P")]), entity("P", [attr("n", "string")]), entity("Q", [attr("n", "string")]))
    let store = try makeStore(v1)
    let v2 = schema(
      entity("T", relationships: [rel("o", "Q")]), entity("P", [attr("n", "string")]), entity("Q", [attr("n", "string")]), version: "2")
    let e = expectStoreError(.migrationRequired) { try store.migrate([v1, v2]) }
    XCTAssertTrue(e?.message.contains("needs a custom stage") ?? false, e?.message ?? "")
    XCTAssertNoThrow(try store.migrate([v1, v2], stages: .array([custom("1", "2")])))
  }

  func testUnchangedIndexesAreKeptNotRebuilt() throws {
    let v1 = schema(entity("T", [attr("a", "string", unique: true), attr("b", "int", indexed: true)]))
    let store = try makeStore(v1)
    for i in 0..<100 { try store.add("T", ["a": .string("k\(i)"), "b": .int(Int64(i))]) }
    func pages() throws -> [String: Int64] {
      var out: [String: Int64] = [:]
      try store.connection.prepare("SELECT name, rootpage FROM sqlite_schema WHERE type = 'index' AND name LIKE '\\_%' ESCAPE '\\'")
        .forEachRow {
          out[$0.text(0)] = $0.int(1)
        }
      return out
    }
    let before = try pages()
    XCTAssertEqual(before.count, 2)
    let r = try store.migrate([
      v1,
      schema(
        entity("T", [attr("a", "string", unique: true), attr("b", "int", indexed: true), attr("c", "string", optional: true)]), version: "2"
      ),
    ])
    XCTAssertEqual(r.stages[0].report.steps.map(\.action), ["add column T.c"])
    XCTAssertEqual(try pages(), before, "the same index b-trees: nothing was rebuilt")
    // A retyped indexed column gets its index rebuilt on the new column.
    try store.migrate([
      schema(
        entity("T", [attr("a", "string", unique: true), attr("b", "int", indexed: true), attr("c", "string", optional: true)]), version: "2"
      ),
      schema(
        entity("T", [attr("a", "string", unique: true), attr("b", "double", indexed: true), attr("c", "string", optional: true)]),
        version: "3"),
    ])
    XCTAssertTrue(try store.indexColumns().contains(["b"]))
    XCTAssertEqual(try store.idsWhere("T", "b == 5.0").count, 1)
  }

  func testAnOlderJoinTableIndexIsUpgradedByTheNextSchemaChange() throws {
    let v1 = schema(
      entity("Task", [attr("t", "string")], relationships: [rel("tags", "Tag", inverse: "tasks", toMany: true)]),
      entity("Tag", [attr("n", "string")], relationships: [rel("tasks", "Task", inverse: "tags", toMany: true)]))
    let store = try makeStore(v1)
    // The destination index as files written before it covered the position had it.
    try store.connection.execute(
      "DROP INDEX \"_J_Tag.tasks_dst\"; CREATE INDEX \"_J_Tag.tasks_dst\" ON \"_J_Tag.tasks\" (\"dst\", \"src\")")
    let v2 = schema(
      entity(
        "Task", [attr("t", "string"), attr("note", "string", optional: true)],
        relationships: [rel("tags", "Tag", inverse: "tasks", toMany: true)]),
      entity("Tag", [attr("n", "string")], relationships: [rel("tasks", "Task", inverse: "tags", toMany: true)]), version: "2")
    _ = try store.define(v2)
    XCTAssertEqual(
      try store.connection.scalar("SELECT sql FROM sqlite_schema WHERE name = '_J_Tag.tasks_dst'"),
      .text(StorageLayout.destinationIndexSQL("_J_Tag.tasks")))
  }
}
