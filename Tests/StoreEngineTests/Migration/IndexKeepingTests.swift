import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// A stage keeps every index whose definition (table, columns, uniqueness, filter) the new
/// schema still wants, whatever its name, and builds only the others.
final class IndexKeepingTests: XCTestCase {
  func testIndexesSurviveShiftedNamesAndRenamedColumns() throws {
    let v1 = schema(entity("Note", [attr("a", "string", indexed: true), attr("b", "string", unique: true)]))
    let store = try makeStore(v1)
    try store.add("Note", ["a": "x", "b": "1"])
    XCTAssertEqual(try store.indexes(), ["_ix_Note_1": "Note(a)", "_ux_Note_2": "Note(b) unique"])
    // An index declared first shifts the layout's numbers: the two indexes stay as they
    // are, and the new one takes the next free name.
    let v2 = schema(
      entity(
        "Note", [attr("z", "int", optional: true, indexed: true), attr("a", "string", indexed: true), attr("b", "string", unique: true)]),
      version: "2")
    _ = try store.define(v2)
    XCTAssertEqual(try store.indexes(), ["_ix_Note_1": "Note(a)", "_ix_Note_1_2": "Note(z)", "_ux_Note_2": "Note(b) unique"])
    // A renamed column: SQLite rewrites the index's definition, which the stage keeps.
    let v3 = schema(
      entity(
        "Note",
        [
          attr("z", "int", optional: true, indexed: true), attr("c", "string", indexed: true, originalName: "a"),
          attr("b", "string", unique: true),
        ]),
      version: "3")
    _ = try store.define(v3)
    XCTAssertEqual(try store.indexes(), ["_ix_Note_1": "Note(c)", "_ix_Note_1_2": "Note(z)", "_ux_Note_2": "Note(b) unique"])
    // The kept unique index still holds.
    expectStoreError(.constraint) { try store.add("Note", ["c": "y", "b": "1"]) }
    // An index the schema no longer wants goes; the others stay.
    let v4 = schema(
      entity("Note", [attr("z", "int", optional: true, indexed: true), attr("c", "string"), attr("b", "string", unique: true)]),
      version: "4")
    _ = try store.define(v4)
    XCTAssertEqual(try store.indexes(), ["_ix_Note_1_2": "Note(z)", "_ux_Note_2": "Note(b) unique"])
  }

  func testARenamedEntityKeepsItsIndexesAndANewOneGetsFreeNames() throws {
    let v1 = schema(
      entity("Task", [attr("id", "uuid", unique: true)], relationships: [rel("category", "Category", inverse: "tasks")]),
      entity("Category", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]))
    let store = try makeStore(v1)
    let job = try store.add("Task", ["id": "0F8FAD5B-D9CB-469F-A165-70867728950E"])
    let v2 = schema(
      entity(
        "Job", [attr("id", "uuid", unique: true)], relationships: [rel("category", "Category", inverse: "jobs")], originalName: "Task"),
      entity(
        "Category", [attr("name", "string")], relationships: [rel("jobs", "Job", inverse: "category", toMany: true, originalName: "tasks")]),
      version: "2")
    _ = try store.define(v2)
    XCTAssertEqual(try store.indexes(), ["_fk_Task_1": "Job(category)", "_ux_Task_2": "Job(id) unique"])
    // A new entity named like the old one gets names that are free.
    let v3 = schema(
      entity("Job", [attr("id", "uuid", unique: true)], relationships: [rel("category", "Category", inverse: "jobs")]),
      entity("Category", [attr("name", "string")], relationships: [rel("jobs", "Job", inverse: "category", toMany: true)]),
      entity("Task", [attr("id", "uuid", unique: true)], relationships: [rel("owner", "Category")]), version: "3")
    _ = try store.define(v3)
    XCTAssertEqual(
      try store.indexes(),
      ["_fk_Task_1": "Job(category)", "_ux_Task_2": "Job(id) unique", "_fk_Task_1_2": "Task(owner)", "_ux_Task_2_2": "Task(id) unique"])
    expectStoreError(.constraint) { try store.add("Job", ["id": "0F8FAD5B-D9CB-469F-A165-70867728950E"]) }
    XCTAssertEqual(try store.value(job.replacingOccurrences(of: "Task", with: "Job"), "id"), "0F8FAD5B-D9CB-469F-A165-70867728950E")
  }

  /// The partial index names the sub-entity by its code, which a rename keeps: the index
  /// stays as it is and still holds the renamed entity's objects to their constraint.
  func testAPartialIndexOfARenamedSubEntityStaysAndStillApplies() throws {
    let v1 = schema(entity("Animal", [attr("name", "string")]), entity("Dog", parent: "Animal", [attr("tag", "string", unique: true)]))
    let store = try makeStore(v1)
    try store.add("Dog", ["name": "a", "tag": "t"])
    let indexSQL = "SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Animal' AND sql LIKE '%UNIQUE%'"
    let before = try store.connection.scalar(indexSQL)
    let v2 = schema(
      entity("Animal", [attr("name", "string")]),
      entity("Hound", parent: "Animal", [attr("tag", "string", unique: true)], originalName: "Dog"), version: "2")
    _ = try store.define(v2)
    let sql = try store.connection.scalar(indexSQL)
    guard case .text(let text)? = sql else { return XCTFail("no unique index: \(String(describing: sql))") }
    XCTAssertEqual(sql, before, "the same index")
    XCTAssertTrue(text.contains("\"_ent\" = 2") || text.contains("IN (2)"), text)
    expectStoreError(.constraint) { try store.add("Hound", ["name": "b", "tag": "t"]) }
  }
}

extension Store {
  /// The managed indexes: name → `Table(columns)`, with ` unique` for unique ones.
  func indexes() throws -> [String: String] {
    var out: [String: String] = [:]
    try connection.prepare(
      """
      SELECT s.name, s.tbl_name, group_concat(ii.name, ','), il."unique" FROM sqlite_schema s, pragma_index_info(s.name) ii,
        pragma_index_list(s.tbl_name) il WHERE il.name = s.name AND s.type = 'index' AND s.sql IS NOT NULL AND s.name NOT LIKE '%_dst'
      GROUP BY s.name
      """
    ).forEachRow { out[$0.text(0)] = "\($0.text(1))(\($0.text(2)))" + ($0.int(3) == 1 ? " unique" : "") }
    return out
  }
}
