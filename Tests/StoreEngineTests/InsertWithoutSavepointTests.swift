import JSONCore
import XCTest

@testable import StoreEngine

/// Inside a client transaction on SQLite, `objects.insert` opens no savepoint when its one
/// INSERT is the last thing that can fail (`Store.writeOpeningLevelOnDemand`), and a write
/// transaction remembers the to-one targets it found (`Store.targetID`, the connection's
/// `rowsEpoch`). Each scenario runs twice, through `insertEncoded` (that path) and through
/// `insert` (a savepoint per request, as before), and must end the same way: the same
/// answers and errors, the same rows, the same history.
final class InsertWithoutSavepointTests: XCTestCase {
  private let model = schema(
    entity(
      "Category", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: "cascade")]),
    entity(
      "Task", [attr("id", "uuid", optional: true, unique: true), attr("title", "string", default: "")],
      relationships: [rel("category", "Category", inverse: "tasks")]),
    // At most one item per box: a second item fails the box's check after its INSERT ran.
    entity("Box", [attr("name", "string")], relationships: [rel("items", "Item", inverse: "box", toMany: true, max: 1)]),
    entity("Item", [attr("name", "string")], relationships: [rel("box", "Box", inverse: "items")]),
    // An ordered inverse: the insert also updates its own row's position after the INSERT.
    entity("List", [attr("name", "string")], relationships: [rel("entries", "Entry", inverse: "list", toMany: true, ordered: true)]),
    entity("Entry", [attr("name", "string")], relationships: [rel("list", "List", inverse: "entries")]))

  /// One step of a scenario: an insert (its answer or error recorded), or another operation.
  private enum Step {
    case insert(String, JSONObject)
    case other((Store) throws -> Void)
  }

  /// Runs `steps` on a new store through each path; returns the two transcripts (answers,
  /// errors, then every object and the history at the end), which must be equal; returns one.
  @discardableResult
  private func runBothWays(_ steps: [Step], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
    var transcripts: [[String]] = []
    for encoded in [true, false] {
      let store = try makeStore(model)
      var out: [String] = []
      for step in steps {
        switch step {
        case .insert(let entity, let values):
          do {
            if encoded {
              out.append(String(decoding: try store.insertEncoded(entity: entity, values: values).bytes, as: UTF8.self))
            } else {
              out.append(String(decoding: JSONWriter.encode(.object(try store.insert(entity: entity, values: values))), as: UTF8.self))
            }
          } catch let e as StoreError {
            out.append("error \(e.kind): \(e) \(String(decoding: JSONWriter.encode(.object(e.details)), as: UTF8.self))")
          }
        case .other(let body): try body(store)
        }
      }
      XCTAssertEqual(store.openTransactions, 0, "a scenario ends with its transactions closed", file: file, line: line)
      for entity in ["Category", "Task", "Box", "Item", "List", "Entry"] {
        for id in try store.idsWhere(entity) {
          let object = try store.get(id: id, toMany: ToManyMode.ids)
          out.append(String(decoding: JSONWriter.encode(.object(object)), as: UTF8.self))
        }
      }
      for t in try store.history() { out.append(String(decoding: JSONWriter.encode(t.changes), as: UTF8.self)) }
      transcripts.append(out)
    }
    XCTAssertEqual(transcripts[0], transcripts[1], file: file, line: line)
    return transcripts[0]
  }

  private func errors(_ transcript: [String]) -> [String] {
    transcript.filter { $0.hasPrefix("error ") }.map { String($0.prefix { $0 != ":" }) }
  }

  private func begin() -> Step { .other { _ = try $0.begin() } }
  private func commit() -> Step { .other { _ = try $0.commit() } }
  private func rollback() -> Step { .other { _ = try $0.rollback() } }
  private let uuid = "0C3A5E6F-1B2C-4D5E-8F90-A1B2C3D4E5F6"

  func testInsertsInATransactionAnswerAndRecordAsWithASavepoint() throws {
    try runBothWays([
      .insert("Category", ["name": "before"]), begin(), .insert("Category", ["name": "inside"]),
      .insert("Task", ["title": "a", "category": "Category/1"]), .insert("Task", ["title": "b", "category": "Category/2"]),
      .insert("Task", ["title": "c", "category": "Category/1"]), .insert("Task", ["title": "d"]), commit(),
    ])
  }

  func testFailedInsertsLeaveTheTransactionAsItWas() throws {
    let t = try runBothWays([
      .insert("Category", ["name": "c"]), begin(), .insert("Task", ["id": .string(uuid), "category": "Category/1"]),
      // A uniqueness the INSERT itself refuses (SQLite undoes the statement).
      .insert("Task", ["id": .string(uuid), "title": "again", "category": "Category/1"]),
      // Refused before the INSERT: a target that does not exist, or is not a Category.
      .insert("Task", ["title": "lost", "category": "Category/99"]), .insert("Task", ["title": "odd", "category": "Task/1"]),
      .insert("Task", ["title": 5]), .insert("Task", ["nope": 1]),
      .insert("Task", ["title": "kept", "category": "Category/1"]), commit(),
    ])
    XCTAssertEqual(errors(t), ["error constraint", "error notFound", "error validation", "error validation", "error validation"])
    XCTAssertEqual(t.filter { $0.hasPrefix("{\"_id\":\"Task/") }.count, 4, "two answers, then the two tasks kept")
  }

  func testAFailureAfterTheInsertUndoesIt() throws {
    let t = try runBothWays([
      begin(), .insert("Box", ["name": "b"]), .insert("Item", ["name": "first", "box": "Box/1"]),
      // The box's maximum is checked after the INSERT: that insert opens a level and undoes it.
      .insert("Item", ["name": "second", "box": "Box/1"]), .insert("Item", ["name": "loose"]), commit(),
      begin(), .insert("List", ["name": "l"]), .insert("Entry", ["name": "e1", "list": "List/1"]),
      .insert("Entry", ["name": "e2", "list": "List/1"]), commit(),
    ])
    XCTAssertEqual(errors(t), ["error validation"])
  }

  func testRememberedTargetsAreForgottenWhenTheyGo() throws {
    let t = try runBothWays([
      begin(), .insert("Category", ["name": "c"]), .insert("Task", ["title": "a", "category": "Category/1"]),
      // Deleted (its tasks with it) inside the transaction that remembered it.
      .other { _ = try $0.delete(id: "Category/1") }, .insert("Task", ["title": "b", "category": "Category/1"]),
      // Inserted in a nested level that is rolled back.
      .insert("Category", ["name": "d"]), begin(), .insert("Category", ["name": "e"]),
      .insert("Task", ["title": "c", "category": "Category/3"]), rollback(),
      .insert("Task", ["title": "d", "category": "Category/3"]), .insert("Task", ["title": "e", "category": "Category/2"]),
      rollback(), begin(), .insert("Task", ["title": "f", "category": "Category/2"]), commit(),
    ])
    XCTAssertEqual(errors(t), ["error notFound", "error notFound", "error notFound"])
  }

  /// A remembered target and no savepoint: an insert in a transaction runs one statement.
  func testAnInsertWithAKnownTargetRunsOneStatement() throws {
    let store = try makeStore(model)
    _ = try store.begin()
    let category = try String(decoding: store.insertEncoded(entity: "Category", values: ["name": "c"]).bytes, as: UTF8.self)
    XCTAssertTrue(category.hasPrefix("{\"_id\":\"Category/1\""), category)
    _ = try store.insertEncoded(entity: "Task", values: ["category": "Category/1"])
    let before = store.connection.statementsRun
    _ = try store.insertEncoded(entity: "Task", values: ["category": "Category/1"])
    XCTAssertEqual(store.connection.statementsRun - before, 1)
    // Where a check follows the INSERT, the insert has its savepoint (opened and released).
    _ = try store.insertEncoded(entity: "Box", values: ["name": "b"])
    _ = try store.insertEncoded(entity: "Item", values: ["name": "first", "box": "Box/1"])
    let boxed = store.connection.statementsRun
    XCTAssertThrowsError(try store.insertEncoded(entity: "Item", values: ["name": "second", "box": "Box/1"])) {
      XCTAssertTrue("\($0)".contains("more than its maximum 1"), "\($0)")
    }
    XCTAssertGreaterThan(store.connection.statementsRun - boxed, 2)
    XCTAssertEqual(try store.idsWhere("Item"), ["Item/1"])
    _ = try store.commit()
    XCTAssertEqual(try store.idsWhere("Task").count, 2)
  }

  /// A cancel read before the INSERT still wins: nothing is written.
  func testACancelBeforeTheInsertWins() throws {
    let store = try makeStore(model)
    _ = try store.begin()
    _ = try store.insertEncoded(entity: "Category", values: ["name": "c"])
    store.interrupt()
    XCTAssertThrowsError(try store.insertEncoded(entity: "Task", values: ["category": "Category/1"])) {
      XCTAssertEqual(($0 as? StoreError)?.kind, .cancelled)
    }
    store.resetInterrupt()
    _ = try store.commit()
    XCTAssertEqual(try store.idsWhere("Task"), [String]())
    XCTAssertEqual(try store.idsWhere("Category"), ["Category/1"])
  }
}
