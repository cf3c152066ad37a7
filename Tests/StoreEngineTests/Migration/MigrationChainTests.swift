import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Chains of versions, custom stages, dry runs and the refusals of `migrate`.
final class MigrationChainTests: XCTestCase {
  static let v3 = Seeds.appV3

  func testSeedScenarioTwoWithADeclarativeTransform() throws {
    let store = try makeStore(Seeds.taskV1)
    let a = try store.add("Task", ["title": "urgent: call", "done": true])
    let b = try store.add("Task", ["title": "later", "done": false])
    let stage = custom(
      "1.0.0", "2.0.0",
      transforms: [["compute": ["entity": "Task", "attribute": "priority", "where": "title BEGINSWITH 'urgent'", "value": 5]]])
    let r = try store.migrate([Seeds.taskV1, Seeds.appV2], stages: .array([stage]))
    XCTAssertEqual(r.stages[0].stage.kind, .custom)
    XCTAssertEqual(try store.get(id: a)["isCompleted"], true)
    XCTAssertEqual(try store.get(id: a)["priority"], 5)
    XCTAssertEqual(try store.get(id: b)["priority"], 0)
    XCTAssertTrue(r.stages[0].report.steps.contains { $0.action == "compute Task.priority" && $0.rows == 1 })
  }

  func testSeedScenarioTwoWithDidMigrateDoneThroughOrdinaryCalls() throws {
    let store = try makeStore(Seeds.taskV1)
    let a = try store.add("Task", ["title": "urgent: call", "done": true])
    var hooks = MigrationHooks()
    var sawOldSchema = false
    hooks.willMigrate = { _ in sawOldSchema = store.schema?.entity(named: "Task")?.attributes.contains { $0.name == "done" } ?? false }
    hooks.didMigrate = { _ in
      for id in try store.idsWhere("Task", "title BEGINSWITH 'urgent'") { _ = try store.update(id: id, values: ["priority": 9]) }
    }
    try store.migrate(
      [Seeds.taskV1, Seeds.appV2], stages: .array([custom("1.0.0", "2.0.0", willMigrate: true, didMigrate: true)]), hooks: hooks)
    XCTAssertTrue(sawOldSchema)
    XCTAssertEqual(try store.get(id: a)["priority"], 9)
    XCTAssertEqual(try store.get(id: a)["isCompleted"], true)
  }

  func testAFailingHookRollsTheStageBack() throws {
    let store = try makeStore(Seeds.taskV1)
    let a = try store.add("Task", ["title": "x", "done": true])
    var hooks = MigrationHooks()
    hooks.didMigrate = { _ in
      _ = try store.update(id: a, values: ["priority": 3])
      throw StoreError(.validation, "the client refused")
    }
    let e = expectStoreError(.validation) {
      try store.migrate([Seeds.taskV1, Seeds.appV2], stages: .array([custom("1.0.0", "2.0.0", didMigrate: true)]), hooks: hooks)
    }
    XCTAssertTrue(e?.message.contains("rolled back; the store is at version '1.0.0'") ?? false, e?.message ?? "")
    XCTAssertEqual(store.schema?.version, "1.0.0")
    XCTAssertEqual(try store.get(id: a)["done"], true)
    XCTAssertEqual(try store.columnNames("Task"), ["_pk", "title", "done", "category"])
  }

  func testAThreeVersionChainRunsFromWhereTheStoreIs() throws {
    let store = try makeStore(Seeds.taskV1)
    let t = try store.add("Task", ["title": "a", "done": true])
    let stages: JSONValue = .array([
      lightweight("1.0.0", "2.0.0"),
      custom(
        "2.0.0", "3.0.0",
        transforms: [["compute": ["entity": "Task", "attribute": "status", "where": "isCompleted == YES", "value": "done"]]]),
    ])
    let r = try store.migrate([Seeds.taskV1, Seeds.appV2, Self.v3], stages: stages)
    XCTAssertEqual(r.stages.map { "\($0.stage.from)→\($0.stage.to)" }, ["1.0.0→2.0.0", "2.0.0→3.0.0"])
    XCTAssertEqual(try store.get(id: t)["status"], "done")
    XCTAssertEqual(try store.schemaHistory().map(\.version), ["1.0.0", "2.0.0", "3.0.0"])
    // Already at the end: nothing to do.
    XCTAssertTrue(try store.migrate([Seeds.taskV1, Seeds.appV2, Self.v3], stages: stages).stages.isEmpty)
  }

  func testAFailingSecondStageLeavesTheStoreAtTheFirstStagesVersion() throws {
    let store = try makeStore(Seeds.taskV1)
    let t = try store.add("Task", ["title": "a"])
    let v3 = schema(
      entity(
        "Task",
        [
          attr("title", "string"), attr("isCompleted", "bool", default: false), attr("priority", "int", default: 0),
          attr("owner", "string"),
        ],
        relationships: [rel("category", "Category", inverse: "tasks")]),
      entity("Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
      version: "3.0.0")
    let e = expectStoreError(.migrationRequired) { try store.migrate([Seeds.taskV1, Seeds.appV2, v3]) }
    XCTAssertEqual(e?.details["storeVersion"], "2.0.0")
    XCTAssertEqual(store.schema?.version, "2.0.0")
    XCTAssertEqual(try store.get(id: t)["isCompleted"], false)
  }

  func testANewerStoreIsRefusedAndLeftAlone() throws {
    let store = try makeStore(Seeds.taskV1)
    try store.migrate([Seeds.taskV1, Seeds.taskV2])
    let e = expectStoreError(.schemaMismatch) { try store.migrate([Seeds.taskV1]) }
    XCTAssertEqual(e?.details["newer"], true)
    XCTAssertEqual(store.schema?.version, "2.0.0")
    expectStoreError(.schemaMismatch) { try store.migrate([Seeds.appV2, Self.v3]) }
  }

  func testADryRunMeasuresEverythingAndChangesNothing() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string"), attr("extra", "string", optional: true)]), version: "1"))
    for i in 0..<5 { try store.add("Note", ["text": .string("n\(i)"), "extra": i < 3 ? "x" : .null]) }
    let v1 = try XCTUnwrap(store.schema?.json)
    let v2 = schema(entity("Note", [attr("body", "string", originalName: "text"), attr("rank", "int", default: 1)]), version: "2")
    let v3 = schema(entity("Note", [attr("body", "string"), attr("rank", "int16", default: 1)]), version: "3")
    let before = try store.all("Note", sortedBy: "text")
    let r = try store.migrate([v1, v2, v3], dryRun: true)
    XCTAssertEqual(r.stages.map(\.status), ["blocked", "notReached"])
    XCTAssertEqual(r.stages[0].report.dataLoss.first?["count"], 3)
    let allowed = try store.migrate([v1, v2, v3], allowDataLoss: true, dryRun: true)
    XCTAssertEqual(allowed.stages.map(\.status), ["planned", "planned"])
    XCTAssertTrue(allowed.stages[0].report.steps.contains { $0.action == "add column Note.rank with its default" })
    XCTAssertTrue(allowed.stages[1].report.steps.contains { $0.action == "convert Note.rank from int to int16" })
    XCTAssertEqual(store.schema?.version, "1")
    XCTAssertEqual(try store.all("Note", sortedBy: "text"), before)
    XCTAssertEqual(try store.columnNames("Note"), ["_pk", "text", "extra"])
  }

  func testTransformsCopySplitAndMerge() throws {
    let v1 = schema(
      entity("Person", [attr("name", "string"), attr("street", "string", optional: true), attr("age", "string", optional: true)]))
    let store = try makeStore(v1)
    let p = try store.add("Person", ["name": "Ann", "street": "Main St", "age": "41"])
    // Split the address out, copy age into an int.
    let v2 = schema(
      entity(
        "Person", [attr("name", "string"), attr("years", "int", optional: true)],
        relationships: [rel("address", "Address", inverse: "person")]),
      entity("Address", [attr("line", "string", optional: true)], relationships: [rel("person", "Person", inverse: "address")]),
      version: "2")
    try store.migrate(
      [v1, v2],
      stages: .array([
        custom(
          "1", "2",
          transforms: [
            ["split": ["entity": "Person", "relationship": "address", "to": "Address", "keys": ["street": "line"]]],
            ["rename": ["entity": "Person", "from": "age", "to": "years"]],
          ])
      ]))
    let address = try XCTUnwrap(try store.value(p, "address")?.stringValue)
    XCTAssertEqual(try store.value(address, "line"), "Main St")
    XCTAssertEqual(try store.value(address, "person"), .string(p))
    XCTAssertEqual(try store.value(p, "years"), 41)
    XCTAssertEqual(address, "Address/1", "the split's objects take keys like any insert")
    XCTAssertEqual(try store.connection.scalar("SELECT \"max\" FROM \"_ms_keys\" WHERE \"name\" = 'Address'"), .integer(1))
    XCTAssertEqual(try store.add("Address", ["line": "Side St"]), "Address/2")
    // Merge it back.
    let v3 = schema(
      entity("Person", [attr("name", "string"), attr("years", "int", optional: true), attr("street", "string", optional: true)]),
      version: "3")
    try store.migrate(
      [v2, v3],
      stages: .array([
        custom(
          "2", "3", transforms: [["merge": ["entity": "Person", "relationship": "address", "keys": ["line": "street"], "removes": true]]])
      ]))
    XCTAssertEqual(try store.value(p, "street"), "Main St")
    XCTAssertFalse(try store.tableNames().contains("Address"))
  }

  func testBadStagesAreNamedByPath() throws {
    let store = try makeStore(Seeds.taskV1)
    let e = expectStoreError(.invalidArgument) {
      try store.migrate(
        [Seeds.taskV1, Seeds.appV2], stages: .array([custom("1.0.0", "2.0.0", transforms: [["copy": ["entity": "Task"]]])]))
    }
    XCTAssertEqual(e?.place, ErrorPlace(.stages, [.index(0), .key("custom"), .key("transforms"), .index(0), .key("copy"), .key("from")]))
    XCTAssertEqual(e?.placeInData, true)
    let f = expectStoreError(.invalidArgument) {
      try store.migrate([Seeds.taskV1, Seeds.appV2], stages: .array([lightweight("1.0.0", "9")]))
    }
    XCTAssertTrue(f?.message.contains("'9' is not in the chain") ?? false)
    XCTAssertEqual(f?.place, ErrorPlace(.stages).index(0))
  }
}
