import JSONCore
import XCTest

@testable import StoreEngine

/// `Store.previewDelete` (`objects.delete {dryRun: true}`): the delete run for real and
/// rolled back, so its answer is the delete's and the store is left as it was.
final class DeletePreviewTests: XCTestCase {
  private let projects = schema(
    entity(
      "Project", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "project", toMany: true, deleteRule: "cascade")]),
    entity(
      "Task", [attr("title", "string")],
      relationships: [
        rel("project", "Project", inverse: "tasks"), rel("steps", "Step", inverse: "task", toMany: true, deleteRule: "cascade"),
        rel("owner", "Person", inverse: "tasks"),
      ]),
    entity("Step", [attr("text", "string")], relationships: [rel("task", "Task", inverse: "steps")]),
    entity("Person", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "owner", toMany: true)]),
    entity("Pin", [attr("label", "string")], relationships: [rel("target", "Task")]))

  func testCascadeIsListedAsTheDeleteWouldAndNothingChanges() throws {
    let store = try makeStore(projects)
    let p = try store.add("Project", ["name": "p"])
    let owner = try store.add("Person", ["name": "o"])
    let t1 = try store.add("Task", ["title": "t1", "project": .string(p), "owner": .string(owner)])
    let t2 = try store.add("Task", ["title": "t2", "project": .string(p)])
    let s1 = try store.add("Step", ["text": "s1", "task": .string(t1)])
    let pin = try store.add("Pin", ["label": "x", "target": .string(t2)])
    let tokenBefore = try store.history().last?.token

    let preview = try store.previewDelete(id: p)
    XCTAssertEqual(preview.deleted, [p, t1, t2, s1], "the requested object first, then the cascade breadth first")
    XCTAssertEqual(Set(preview.updated), [owner, pin], "the owner loses a task; the pin's reference without inverse is cleared")

    XCTAssertTrue(store.exists(p) && store.exists(t1) && store.exists(t2) && store.exists(s1))
    XCTAssertEqual(strings(try store.value(owner, "tasks")), [t1])
    XCTAssertEqual(try store.value(pin, "target"), .string(t2))
    XCTAssertEqual(try store.history().last?.token, tokenBefore, "a dry run writes no history")

    XCTAssertEqual(try store.delete(id: p), preview.deleted, "the delete then removes exactly what the preview said")
    XCTAssertEqual(try store.value(pin, "target"), .null)
  }

  func testDenyFailsAsTheDeleteWouldAndKeepsEverything() throws {
    let store = try makeStore(
      schema(
        entity("Owner", [attr("name", "string")], relationships: [rel("pets", "Pet", inverse: "owner", toMany: true, deleteRule: "deny")]),
        entity("Pet", [attr("name", "string")], relationships: [rel("owner", "Owner", inverse: "pets")])))
    let o = try store.add("Owner", ["name": "o"])
    let pet = try store.add("Pet", ["name": "rex", "owner": .string(o)])
    let e = expectStoreError(.deleteDenied) { try store.previewDelete(id: o) }
    XCTAssertEqual(e?.details["relationship"], "pets")
    XCTAssertEqual(e?.details["blocking"], ids(pet))
    XCTAssertTrue(store.exists(o))
    XCTAssertEqual(try store.previewDelete(id: pet), DeletePreview(deleted: [pet], updated: [o]))
    XCTAssertTrue(store.exists(pet))
  }

  func testANullifyThatBreaksARequiredRelationshipFailsAsTheDeleteWould() throws {
    let store = try makeStore(
      schema(
        entity("Team", [attr("name", "string")], relationships: [rel("members", "Member", inverse: "team", toMany: true)]),
        entity("Member", [attr("name", "string")], relationships: [rel("team", "Team", inverse: "members", optional: false)])))
    let team = try store.add("Team", ["name": "t"])
    let m = try store.add("Member", ["name": "m", "team": .string(team)])
    let e = expectStoreError(.validation) { try store.previewDelete(id: team) }
    XCTAssertEqual(e?.details["id"], .string(m))
    expectStoreError(.validation) { try store.delete(id: team) }
    XCTAssertEqual(try store.value(m, "team"), .string(team))
  }

  func testInsideAClientTransactionOnlyThePreviewIsRolledBack() throws {
    let store = try makeStore(projects)
    let p = try store.add("Project", ["name": "p"])
    _ = try store.begin()
    let t = try store.add("Task", ["title": "in the transaction", "project": .string(p)])
    XCTAssertEqual(try store.previewDelete(id: p).deleted, [p, t])
    XCTAssertTrue(store.exists(t), "the transaction's own work is kept")
    _ = try store.commit()
    XCTAssertTrue(store.exists(p) && store.exists(t))
    let ops = try store.history().last?.changes.arrayValue?.compactMap { $0["op"]?.stringValue } ?? []
    XCTAssertTrue(ops.contains("insert"))
    XCTAssertFalse(ops.contains("delete"), "the commit records no delete of the preview")
  }

  func testAReadOnlyStoreRefusesThePreview() throws {
    let path = temporaryPath(self)
    let writer = try Store(path: path)
    _ = try writer.define(projects)
    let p = try writer.add("Project", ["name": "p"])
    writer.close()
    let ro = try Store(path: path, options: .init(readOnly: true))
    expectStoreError(.readOnly) { try ro.previewDelete(id: p) }
    expectStoreError(.notFound) { try makeStore(projects).previewDelete(id: "Project/9") }
  }
}
