import JSONCore
import XCTest

@testable import StoreEngine

final class ContextSaveTests: XCTestCase {
  func testRefsLinkInsertsOfTheSameSave() throws {
    let store = try makeStore(taskCategorySchema)
    let r = try store.save([
      .insert(entity: "Category", ref: "$home", values: ["name": "Home"]),
      .insert(entity: "Task", ref: "$t1", values: ["title": "a", "category": "$home"]),
      .insert(entity: "Task", ref: nil, values: ["title": "b", "category": "$home"]),
    ])
    XCTAssertEqual(r.refs.map(\.ref), ["$home", "$t1"])
    XCTAssertEqual(r.refs.map(\.id.description), ["Category/1", "Task/1"])
    XCTAssertEqual(r.inserted.map(\.description), ["Category/1", "Task/1", "Task/2"])
    XCTAssertEqual(strings(try store.value("Category/1", "tasks")), ["Task/1", "Task/2"])
  }

  func testForwardReferences() throws {
    let store = try makeStore(taskCategorySchema)
    let r = try store.save([
      .insert(entity: "Task", ref: "$t", values: ["title": "early", "category": "$c"]),
      .insert(entity: "Category", ref: "$c", values: ["name": "Late", "tasks": ["$t", "$t2"]]),
      .insert(entity: "Task", ref: "$t2", values: ["title": "later"]),
    ])
    let c = try XCTUnwrap(r.refs.first { $0.ref == "$c" }?.id.description)
    XCTAssertEqual(try store.value("Task/1", "category"), .string(c))
    XCTAssertEqual(try store.value("Task/2", "category"), .string(c))
    XCTAssertEqual(strings(try store.value(c, "tasks")), ["Task/1", "Task/2"])
  }

  func testRefsInUpdateAndDeleteIDs() throws {
    let store = try makeStore(taskCategorySchema)
    let r = try store.save([
      .insert(entity: "Task", ref: "$a", values: ["title": "a"]),
      .update(id: "$a", values: ["priority": 9]),
      .insert(entity: "Task", ref: "$b", values: ["title": "b"]),
      .delete(id: "$b"),
    ])
    XCTAssertEqual(r.updated.map(\.description), ["Task/1"])
    XCTAssertEqual(r.deleted.map(\.description), ["Task/2"])
    XCTAssertEqual(try store.value("Task/1", "priority"), 9)
    XCTAssertFalse(store.exists("Task/2"))
  }

  func testUpdatedListExcludesDeleted() throws {
    let store = try makeStore(taskCategorySchema)
    let t = try store.add("Task", ["title": "x"])
    let r = try store.save([.update(id: t, values: ["priority": 1]), .delete(id: t)])
    XCTAssertEqual(r.updated, [])
    XCTAssertEqual(r.deleted.map(\.description), [t])
  }

  func testFailingChangeInTheMiddleLeavesNothing() throws {
    let store = try makeStore(taskCategorySchema)
    let existing = try store.add("Task", ["title": "existing"])
    let e = expectStoreError(.validation) {
      try store.save([
        .insert(entity: "Category", ref: "$c", values: ["name": "New"]),
        .update(id: existing, values: ["title": "changed", "category": "$c"]),
        .insert(entity: "Task", ref: nil, values: ["priority": 1]),  // no title
        .insert(entity: "Task", ref: nil, values: ["title": "never"]),
      ])
    }
    XCTAssertEqual(e?.details["index"], 2)
    XCTAssertTrue(e?.message.hasPrefix("changes[2].values.title") ?? false, e?.message ?? "")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Category")), 0)
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 1)
    XCTAssertEqual(try store.value(existing, "title"), "existing")
    XCTAssertEqual(try store.value(existing, "category"), .null)
    XCTAssertTrue(store.connection.isAutocommit)
  }

  func testConstraintFailureInASaveRollsBackEarlierChanges() throws {
    let store = try makeStore(taskCategorySchema)
    try store.add("Category", ["name": "Home"])
    let e = expectStoreError(.constraint) {
      try store.save([
        .insert(entity: "Task", ref: nil, values: ["title": "t"]),
        .insert(entity: "Category", ref: nil, values: ["name": "Home"]),
      ])
    }
    XCTAssertEqual(e?.details["index"], 1)
    XCTAssertEqual(e?.details["existing"], "Category/1")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 0)
  }

  func testBadRefs() throws {
    let store = try makeStore(taskCategorySchema)
    let unknown = expectStoreError(.validation) {
      try store.save([.insert(entity: "Task", ref: nil, values: ["title": "a", "category": "$nope"])])
    }
    XCTAssertEqual(unknown?.details["ref"], "$nope")
    XCTAssertTrue(unknown?.message.contains("'$nope' is not the ref of any insert in this save") ?? false, unknown?.message ?? "")

    let dup = expectStoreError(.validation) {
      try store.save([
        .insert(entity: "Category", ref: "$c", values: ["name": "a"]), .insert(entity: "Category", ref: "$c", values: ["name": "b"]),
      ])
    }
    XCTAssertEqual(dup?.details["index"], 1)
    XCTAssertEqual(dup?.details["ref"], "$c")

    let noDollar = expectStoreError(.validation) { try store.save([.insert(entity: "Category", ref: "c", values: ["name": "a"])]) }
    XCTAssertTrue(noDollar?.message.hasPrefix("changes[0].ref") ?? false)
    expectStoreError(.validation) { try store.save([.insert(entity: "Category", ref: "$", values: ["name": "a"])]) }

    let laterUpdate = expectStoreError(.validation) {
      try store.save([.update(id: "$later", values: [:]), .insert(entity: "Category", ref: "$later", values: ["name": "x"])])
    }
    XCTAssertEqual(laterUpdate?.details["index"], 0, "an update id must name an earlier insert")

    let wrongEntity = expectStoreError(.validation) {
      try store.save([
        .insert(entity: "Task", ref: "$t", values: ["title": "a"]),
        .insert(entity: "Task", ref: nil, values: ["title": "b", "category": "$t"]),
      ])
    }
    XCTAssertEqual(wrongEntity?.details["relationship"], "category")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Category")), 0)
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 0)
  }

  func testSaveValidatesRelationshipsAtTheEnd() throws {
    let store = try makeStore(
      schema(
        entity("Order", [attr("n", "int")], relationships: [rel("customer", "Customer", inverse: "orders", optional: false)]),
        entity("Customer", [attr("name", "string")], relationships: [rel("orders", "Order", inverse: "customer", toMany: true)])))
    // The order is inserted before its customer; the required to-one holds by the end.
    let r = try store.save([
      .insert(entity: "Order", ref: "$o", values: ["n": 1]),
      .insert(entity: "Customer", ref: "$c", values: ["name": "c", "orders": ["$o"]]),
    ])
    XCTAssertEqual(r.inserted.count, 2)
    XCTAssertEqual(try store.value("Order/1", "customer"), "Customer/1")
    expectStoreError(.validation) { try store.save([.insert(entity: "Order", ref: nil, values: ["n": 2])]) }
  }

  func testUpdateAfterDeleteInTheSameSaveFails() throws {
    let store = try makeStore(taskCategorySchema)
    let t = try store.add("Task", ["title": "x"])
    let e = expectStoreError(.notFound) { try store.save([.delete(id: t), .update(id: t, values: ["priority": 1])]) }
    XCTAssertEqual(e?.details["index"], 1)
    XCTAssertTrue(store.exists(t), "the delete was rolled back with the save")
  }

  func testEmptySave() throws {
    let store = try makeStore(taskCategorySchema)
    let r = try store.save([])
    XCTAssertTrue(r.inserted.isEmpty && r.updated.isEmpty && r.deleted.isEmpty && r.refs.isEmpty)
  }
}
