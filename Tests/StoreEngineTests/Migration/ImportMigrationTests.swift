import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// import.json of a file written by an older schema: a lightweight stage's changes are
/// applied to the records on the way in; anything else is refused with its position.
final class ImportMigrationTests: XCTestCase {
  private func exported(_ s: Store) throws -> [UInt8] {
    let sink = MemorySink(limit: 1 << 24)
    _ = try s.export(ExportOptions(entities: nil, layout: .ndjson), to: sink)
    return sink.bytes
  }

  private func v1Export() throws -> [UInt8] {
    let old = try makeStore(Seeds.taskV1)
    let c = try old.add("Category", ["name": "Home"])
    try old.add("Task", ["title": "urgent: taxes", "done": true, "category": .string(c)])
    try old.add("Task", ["title": "laundry", "category": .string(c)])
    return try exported(old)
  }

  func testAnOlderFileIsMigratedOnTheWayIn() throws {
    let store = try makeStore(Seeds.appV2)
    let summary = try store.importObjects(.bytes(try v1Export()), mode: .insert)
    XCTAssertEqual(summary.inserted, 3)
    XCTAssertEqual(summary.migrated.map(\.kind), [.renameAttribute, .addAttribute])
    let tasks = try store.all("Task", sortedBy: "title")
    XCTAssertEqual(tasks.map { $0["isCompleted"] }, [false, true])
    XCTAssertEqual(tasks.map { $0["priority"] }, [0, 0])
    XCTAssertEqual(tasks.map { $0["category"] }, ["Category/1", "Category/1"])
    XCTAssertEqual(try store.value("Category/1", "tasks")?.arrayValue?.count, 2)
  }

  func testRenamedEntitiesWidenedValuesAndToManyChanges() throws {
    let v1 = schema(
      entity("Note", [attr("text", "string"), attr("n", "int16")], relationships: [rel("owner", "Person")]), entity("Person", [attr("name", "string")]))
    let old = try makeStore(v1)
    let p = try old.add("Person", ["name": "Ann"])
    try old.add("Note", ["text": "hello", "n": 7, "owner": .string(p)])
    let v2 = schema(
      entity("Memo", [attr("body", "string", originalName: "text"), attr("n", "string")], relationships: [rel("owners", "Person", toMany: true, originalName: "owner")], originalName: "Note"),
      entity("Person", [attr("name", "string")]), version: "2")
    let store = try makeStore(v2)
    _ = try store.importObjects(.bytes(try exported(old)), mode: .replace)
    XCTAssertEqual(try store.get(id: "Memo/1")["body"], "hello")
    XCTAssertEqual(try store.get(id: "Memo/1")["n"], "7")
    XCTAssertEqual(try store.get(id: "Memo/1", toMany: .ids)["owners"], ids("Person/1"))
  }

  func testAValueTheStoreDroppedIsRefusedWithItsLine() throws {
    let store = try makeStore(schema(entity("Task", [attr("title", "string"), attr("done", "bool", default: false)]), entity("Category", [attr("name", "string")]), version: "9"))
    let e = expectStoreError(.schemaMismatch) { try store.importObjects(.bytes(try v1Export()), mode: .insert) }
    XCTAssertEqual(e?.details["line"], 2, "the first Task record, right after the header")
    XCTAssertEqual(e?.details["pointer"], "/category")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 0, "nothing was written")
  }

  func testChangesThatNeedACustomStageAreRefused() throws {
    let v2 = schema(
      entity("Task", [attr("title", "string"), attr("done", "bool", default: false)], relationships: [rel("category", "Tag")]),
      entity("Category", [attr("name", "string", unique: true)]), entity("Tag", [attr("name", "string")]), version: "2")
    let store = try makeStore(v2)
    let e = expectStoreError(.schemaMismatch) { try store.importObjects(.bytes(try v1Export()), mode: .insert) }
    XCTAssertTrue(e?.message.contains("needs a custom migration stage") ?? false, e?.message ?? "")
  }
}
