import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

final class SchemaDefineTests: XCTestCase {
  private func columns(_ store: Store, _ table: String) throws -> [String] {
    var out: [String] = []
    try store.connection.prepare("SELECT name FROM pragma_table_info(?)").forEachRow([.text(table)]) { out.append($0.text(0)) }
    return out
  }

  private func tables(_ store: Store) throws -> [String] {
    var out: [String] = []
    try store.connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").forEachRow { out.append($0.text(0)) }
    return out
  }

  func testNewStoreHasNoSchema() throws {
    let store = try Store(path: nil)
    XCTAssertNil(store.schema)
    expectStoreError(.noSchema) { try store.insert(entity: "Task", values: [:]) }
    expectStoreError(.noSchema) { try store.fetch(FetchRequest(entity: "Task")) }
  }

  func testFirstDefineCreatesTables() throws {
    let store = try Store(path: nil)
    let r = try store.define(taskCategorySchema)
    XCTAssertTrue(r.changed)
    XCTAssertEqual(r.steps, ["create table Task", "create table Category"])
    XCTAssertEqual(store.schema?.entities.map(\.name), ["Task", "Category"])
    XCTAssertEqual(
      try columns(store, "Task"), ["_pk", "title", "isCompleted", "priority", "notes", "due", "category"])
    XCTAssertEqual(try store.schemaHistory().count, 1)
    XCTAssertEqual(
      try tables(store).filter { !$0.hasPrefix("sqlite_") && !$0.hasPrefix("_ms_history") },
      ["Category", "Task", "_ms_entities", "_ms_keys", "_ms_meta", "_ms_schema_versions"])
    var codes: [String] = []
    try store.connection.prepare("SELECT \"code\" || ' ' || \"name\" FROM \"_ms_entities\" ORDER BY \"code\"").forEachRow {
      codes.append($0.text(0))
    }
    XCTAssertEqual(codes, ["1 Task", "2 Category"])
  }

  func testSameSchemaIsANoOp() throws {
    let store = try makeStore(taskCategorySchema)
    let r = try store.define(taskCategorySchema)
    XCTAssertFalse(r.changed)
    XCTAssertEqual(r.steps, [])
    XCTAssertEqual(try store.schemaHistory().count, 1)
  }

  func testInvalidSchemaIsRefusedWithIssues() throws {
    let store = try makeStore(taskCategorySchema)
    let e = expectStoreError(.invalidModel) {
      try store.define(schema(entity("task", [attr("x", "nope")]), entity("B", relationships: [rel("r", "Ghost")])))
    }
    let issues = e?.details["issues"]?.arrayValue ?? []
    XCTAssertEqual(issues.compactMap { $0["code"]?.stringValue }.sorted(), ["invalidName", "unknownDestination", "unknownType"])
    XCTAssertTrue(e?.message.hasPrefix("the schema has 3 problems; first: ") ?? false, e?.message ?? "")
    XCTAssertEqual(store.schema?.entities.map(\.name), ["Task", "Category"], "nothing changed")
  }

  func testAdditiveChangeNewOptionalAttributeAppliesInPlace() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    let id = try store.add("Note", ["text": "keep me"])
    let r = try store.define(schema(entity("Note", [attr("text", "string"), attr("pinned", "bool", optional: true)]), version: "2"))
    XCTAssertTrue(r.changed)
    XCTAssertEqual(r.steps, ["add column Note.pinned"])
    XCTAssertEqual(store.schema?.version, "2")
    let o = try store.get(id: id)
    XCTAssertEqual(o["text"], "keep me")
    XCTAssertEqual(o["pinned"], .null)
    _ = try store.update(id: id, values: ["pinned": true])
    XCTAssertEqual(try store.value(id, "pinned"), .bool(true))
    XCTAssertEqual(try store.schemaHistory().map(\.version), ["1", "2"])
    // Each version's schema is kept: the first without `pinned`, the second with it.
    XCTAssertEqual(
      try store.heldSchemas().map { $0.entities[0].attributes.map(\.name) }, [["text"], ["text", "pinned"]])
    XCTAssertEqual(try store.heldSchemas().last, store.schema)
  }

  func testAdditiveChangeNewEntityAppliesInPlace() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    let id = try store.add("Note", ["text": "a"])
    let r = try store.define(schema(entity("Note", [attr("text", "string")]), entity("Tag", [attr("name", "string")])))
    XCTAssertEqual(r.steps, ["create table Tag"])
    XCTAssertEqual(try store.value(id, "text"), "a")
    XCTAssertNoThrow(try store.add("Tag", ["name": "t"]))
  }

  func testAddingARelationshipAppliesInPlace() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")]), entity("Tag", [attr("name", "string")])))
    let note = try store.add("Note", ["text": "a"])
    let r = try store.define(
      schema(
        entity("Note", [attr("text", "string")], relationships: [rel("tags", "Tag", inverse: "notes", toMany: true)]),
        entity("Tag", [attr("name", "string")], relationships: [rel("notes", "Note", inverse: "tags", toMany: true)])))
    XCTAssertEqual(r.steps, ["create join table _J_Note.tags"])
    let tag = try store.add("Tag", ["name": "t", "notes": ids(note)])
    XCTAssertEqual(strings(try store.value(note, "tags")), [tag])
  }

  func testRequiredAttributeWithDefaultFillsExistingRows() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    let a = try store.add("Note", ["text": "a"])
    let b = try store.add("Note", ["text": "b"])
    let r = try store.define(
      schema(
        entity(
          "Note",
          [
            attr("text", "string"), attr("rank", "int", default: 5), attr("key", "uuid", default: ["generate": "uuid"]),
            attr("stamp", "date", default: ["generate": "now"]),
          ])))
    // A constant default goes into the column's definition: no row is rewritten.
    XCTAssertTrue(r.steps.contains("add column Note.rank with its default"), "\(r.steps)")
    XCTAssertFalse(r.steps.contains("fill Note.rank with its default"), "\(r.steps)")
    XCTAssertTrue(r.steps.contains("fill Note.key with generated values"), "\(r.steps)")
    XCTAssertEqual(try store.value(a, "rank"), .int(5))
    XCTAssertEqual(try store.value(b, "rank"), .int(5))
    let ka = try XCTUnwrap(try store.value(a, "key")?.stringValue)
    let kb = try XCTUnwrap(try store.value(b, "key")?.stringValue)
    XCTAssertNotEqual(ka, kb, "each row gets its own generated value")
    XCTAssertEqual(UUIDText.canonical(ka), ka)
    let stamp = try XCTUnwrap(try store.value(a, "stamp")?.stringValue)
    XCTAssertNotNil(ISODate.parse(stamp))
  }

  func testRequiredAttributeWithoutDefaultNeedsMigration() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    let id = try store.add("Note", ["text": "a"])
    let e = expectStoreError(.migrationRequired) {
      try store.define(schema(entity("Note", [attr("text", "string"), attr("rank", "int")])))
    }
    let reasons = e?.details["reasons"]?.arrayValue ?? []
    XCTAssertEqual(reasons.count, 1)
    XCTAssertEqual(reasons.first?["attribute"], "rank")
    XCTAssertEqual(reasons.first?["entity"], "Note")
    XCTAssertEqual(reasons.first?["ids"], ids(id))
    XCTAssertEqual(try columns(store, "Note"), ["_pk", "text"], "the added column was rolled back")
    XCTAssertNil(store.schema?.entities[0].attributes.first { $0.name == "rank" })
  }

  func testRequiredAttributeWithoutDefaultOnEmptyTableIsFine() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    XCTAssertNoThrow(try store.define(schema(entity("Note", [attr("text", "string"), attr("rank", "int")]))))
  }

  func testIncompatibleTypeChangeWithDataChangesNothing() throws {
    let store = try makeStore(taskCategorySchema)
    let t = try store.add("Task", ["title": "Buy milk"])
    let hash = store.schema?.versionHash
    var changed = taskCategorySchema
    if case .object(var root) = changed, case .array(var ents)? = root["entities"], case .object(var task) = ents[0],
      case .array(var attrs)? = task["attributes"]
    {
      attrs[0] = attr("title", "int")
      task["attributes"] = .array(attrs)
      ents[0] = .object(task)
      root["entities"] = .array(ents)
      changed = .object(root)
    }
    let e = expectStoreError(.migrationRequired) { try store.define(changed) }
    let reasons = e?.details["reasons"]?.arrayValue ?? []
    XCTAssertEqual(reasons.first?["attribute"], "title")
    XCTAssertTrue(
      reasons.first?["message"]?.stringValue?.contains("changes type from string to int, and 1 stored value does not convert exactly")
        ?? false)
    XCTAssertEqual(reasons.first?["ids"], ids(t))
    XCTAssertEqual(store.schema?.versionHash, hash)
    XCTAssertEqual(try store.value(t, "title"), "Buy milk")
    XCTAssertEqual(try store.schemaHistory().count, 1)
    XCTAssertNoThrow(try store.add("Task", ["title": "still a string"]))
  }

  func testTypeChangeWithinAStorageClassThatStoredValuesDoNotFitNeedsMigration() throws {
    // string -> uuid and int64 -> int16 keep the TEXT / INTEGER column, but the stored
    // values are not valid for the new type: applying in place would hand them out as such.
    let store = try makeStore(schema(entity("Item", [attr("code", "string"), attr("n", "int64")])))
    let id = try store.add("Item", ["code": "not-a-uuid", "n": 100_000])
    let e = expectStoreError(.migrationRequired) {
      try store.define(schema(entity("Item", [attr("code", "uuid"), attr("n", "int16")])))
    }
    let attributes = Set((e?.details["reasons"]?.arrayValue ?? []).compactMap { $0["attribute"]?.stringValue })
    XCTAssertEqual(attributes, ["code", "n"])
    XCTAssertEqual(store.schema?.entities[0].attributes.map(\.type), [.string, .int64], "nothing changed")
    XCTAssertEqual(try store.value(id, "code"), "not-a-uuid")
  }

  func testTypeChangeWithinAStorageClassWhereValuesFitIsApplied() throws {
    let store = try makeStore(schema(entity("Item", [attr("n", "int64")])))
    let id = try store.add("Item", ["n": 7])
    XCTAssertTrue(try store.define(schema(entity("Item", [attr("n", "int16")]))).changed)
    XCTAssertEqual(try store.value(id, "n"), 7)
  }

  func testRemovingAnAttributeWithDataNeedsMigration() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string"), attr("extra", "string", optional: true)])))
    let id = try store.add("Note", ["text": "a", "extra": "keep"])
    let e = expectStoreError(.migrationRequired) { try store.define(schema(entity("Note", [attr("text", "string")]))) }
    XCTAssertEqual(e?.details["reasons"]?.arrayValue?.first?["attribute"], "extra")
    XCTAssertEqual(try store.value(id, "extra"), "keep")
    XCTAssertTrue(try columns(store, "Note").contains("extra"))
  }

  func testRemovingAnEmptyAttributeOrEntityDropsIt() throws {
    let store = try makeStore(
      schema(entity("Note", [attr("text", "string"), attr("extra", "string", optional: true)]), entity("Old", [attr("x", "int")])))
    let id = try store.add("Note", ["text": "a"])
    let r = try store.define(schema(entity("Note", [attr("text", "string")])))
    XCTAssertEqual(Set(r.steps), ["drop empty column Note.extra", "drop empty table Old"])
    XCTAssertEqual(try columns(store, "Note"), ["_pk", "text"])
    XCTAssertFalse(try tables(store).contains("Old"))
    XCTAssertEqual(try store.value(id, "text"), "a")
  }

  func testRemovingAnEntityWithObjectsNeedsMigration() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")]), entity("Old", [attr("x", "int")])))
    try store.add("Old", ["x": 1])
    let e = expectStoreError(.migrationRequired) { try store.define(schema(entity("Note", [attr("text", "string")]))) }
    XCTAssertEqual(e?.details["reasons"]?.arrayValue?.first?["entity"], "Old")
    XCTAssertTrue(try tables(store).contains("Old"))
    XCTAssertEqual(try store.count(FetchRequest(entity: "Old")), 1)
  }

  func testMakingAnAttributeRequiredWithNullsNeedsMigration() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string", optional: true)])))
    try store.add("Note", [:])
    expectStoreError(.migrationRequired) { try store.define(schema(entity("Note", [attr("text", "string")]))) }
    // With a default it is filled in place.
    let r = try store.define(schema(entity("Note", [attr("text", "string", default: "empty")])))
    XCTAssertTrue(r.steps.contains("fill Note.text with its default"))
    XCTAssertEqual(try store.fetch(FetchRequest(entity: "Note")).first?["text"], "empty")
  }

  func testNewUniquenessThatDoesNotHoldIsRefused() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    try store.add("Note", ["text": "same"])
    try store.add("Note", ["text": "same"])
    let e = expectStoreError(.constraint) { try store.define(schema(entity("Note", [attr("text", "string", unique: true)]))) }
    XCTAssertEqual(e?.details["entity"], "Note")
    XCTAssertEqual(store.schema?.entities[0].attributes[0].unique, false)
    XCTAssertNoThrow(try store.add("Note", ["text": "same"]), "the old schema is still in force")
  }

  func testSchemaPersistsInTheFile() throws {
    let path = temporaryPath(self)
    var id = ""
    do {
      let store = try Store(path: path)
      _ = try store.define(taskCategorySchema)
      id = try store.add("Task", ["title": "persisted"])
    }
    let reopened = try Store(path: path)
    XCTAssertEqual(reopened.schema?.versionHash, SchemaValidator.check(taskCategorySchema).0.versionHash)
    XCTAssertEqual(try reopened.value(id, "title"), "persisted")
    XCTAssertFalse(try reopened.define(taskCategorySchema).changed)
  }

  func testOpeningSomethingElseIsRefused() throws {
    let plain = temporaryPath(self, "plain.sqlite")
    do {
      let c = try Connection(path: plain)
      try c.execute("CREATE TABLE t (x)")
    }
    expectStoreError(.notAStore) { try Store(path: plain) }

    let garbage = temporaryPath(self, "garbage.bin")
    let fd = open(garbage, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let junk = [UInt8](repeating: 0x41, count: 8192)
    _ = junk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    expectStoreError(.notAStore) { try Store(path: garbage) }

    expectStoreError(.notFound) { try Store(path: temporaryPath(self, "missing.modelstore"), options: .init(create: false)) }
  }

  func testReadOnlyStoreRefusesWrites() throws {
    let path = temporaryPath(self)
    do {
      let store = try Store(path: path)
      _ = try store.define(taskCategorySchema)
      try store.add("Task", ["title": "a"])
    }
    let ro = try Store(path: path, options: .init(readOnly: true))
    XCTAssertEqual(try ro.count(FetchRequest(entity: "Task")), 1)
    expectStoreError(.readOnly) { try ro.add("Task", ["title": "b"]) }
    expectStoreError(.readOnly) { try ro.define(schema(entity("X"))) }
    expectStoreError(.readOnly) { try ro.begin() }
    // A dry run writes inside the transaction it rolls back: refused too (it failed with
    // SQLite's "attempt to write a readonly database", an internal error, before); a chain
    // the store is already at the end of needs no stage and is answered.
    let e = expectStoreError(.readOnly) {
      try ro.migrate([taskCategorySchema, schema(entity("Task", [attr("title", "string")]), version: "2")], dryRun: true)
    }
    XCTAssertEqual(e?.message, "the store was opened read-only")
    XCTAssertEqual(try ro.migrate([taskCategorySchema], dryRun: true).stages.count, 0)
  }
}
