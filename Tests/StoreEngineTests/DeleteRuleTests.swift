import JSONCore
import XCTest

@testable import StoreEngine

final class DeleteRuleTests: XCTestCase {
  func testNullify() throws {
    let store = try makeStore(
      schema(
        entity("Team", [attr("name", "string")], relationships: [rel("members", "Member", inverse: "team", toMany: true, deleteRule: "nullify")]),
        entity("Member", [attr("name", "string")], relationships: [rel("team", "Team", inverse: "members")])))
    let m1 = try store.add("Member", ["name": "a"])
    let m2 = try store.add("Member", ["name": "b"])
    let team = try store.add("Team", ["name": "t", "members": ids(m1, m2)])
    XCTAssertEqual(try store.delete(id: team), [team])
    XCTAssertEqual(try store.value(m1, "team"), .null)
    XCTAssertEqual(try store.value(m2, "team"), .null)
    XCTAssertEqual(try store.check()["ok"], true)
  }

  func testCascadeFromTheSeedScenario() throws {
    let store = try makeStore(taskCategorySchema)
    let c = try store.add("Category", ["name": "Home"])
    let t = try store.add("Task", ["title": "Buy milk", "category": .string(c)])
    let keep = try store.add("Task", ["title": "Other"])
    XCTAssertEqual(try store.delete(id: c), [c, t])
    XCTAssertFalse(store.exists(t))
    XCTAssertTrue(store.exists(keep))
    let gone = expectStoreError(.notFound) { try store.get(id: t) }
    XCTAssertEqual(gone?.details["id"], .string(t))
  }

  private let projects = schema(
    entity("Project", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "project", toMany: true, deleteRule: "cascade")]),
    entity(
      "Task", [attr("title", "string")],
      relationships: [
        rel("project", "Project", inverse: "tasks"), rel("steps", "Step", inverse: "task", toMany: true, deleteRule: "cascade"),
      ]),
    entity("Step", [attr("text", "string")], relationships: [rel("task", "Task", inverse: "steps")]))

  func testCascadeOverSeveralLevels() throws {
    let store = try makeStore(projects)
    let p = try store.add("Project", ["name": "p"])
    let t1 = try store.add("Task", ["title": "t1", "project": .string(p)])
    let t2 = try store.add("Task", ["title": "t2", "project": .string(p)])
    let s1 = try store.add("Step", ["text": "s1", "task": .string(t1)])
    let s2 = try store.add("Step", ["text": "s2", "task": .string(t1)])
    let s3 = try store.add("Step", ["text": "s3", "task": .string(t2)])
    let other = try store.add("Step", ["text": "loose"])
    let removed = try store.delete(id: p)
    XCTAssertEqual(removed.first, p, "the requested object comes first")
    XCTAssertEqual(Set(removed), [p, t1, t2, s1, s2, s3])
    XCTAssertEqual(removed.count, 6)
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 0)
    XCTAssertEqual(try store.idsWhere("Step"), [other])
  }

  func testCascadeFromTheMiddle() throws {
    let store = try makeStore(projects)
    let p = try store.add("Project", ["name": "p"])
    let t1 = try store.add("Task", ["title": "t1", "project": .string(p)])
    let t2 = try store.add("Task", ["title": "t2", "project": .string(p)])
    let s = try store.add("Step", ["text": "s", "task": .string(t1)])
    XCTAssertEqual(try store.delete(id: t1), [t1, s])
    XCTAssertEqual(strings(try store.value(p, "tasks")), [t2], "the parent's to-many is updated (nullify on Task.project)")
  }

  func testCascadeThroughASelfReferencingTree() throws {
    let store = try makeStore(
      schema(
        entity(
          "Node", [attr("name", "string")],
          relationships: [
            rel("parent", "Node", inverse: "children"), rel("children", "Node", inverse: "parent", toMany: true, deleteRule: "cascade"),
          ])))
    let root = try store.add("Node", ["name": "root"])
    let a = try store.add("Node", ["name": "a", "parent": .string(root)])
    let b = try store.add("Node", ["name": "b", "parent": .string(root)])
    let a1 = try store.add("Node", ["name": "a1", "parent": .string(a)])
    let a1x = try store.add("Node", ["name": "a1x", "parent": .string(a1)])
    let other = try store.add("Node", ["name": "other"])
    XCTAssertEqual(Set(try store.delete(id: a)), [a, a1, a1x])
    XCTAssertEqual(strings(try store.value(root, "children")), [b])
    XCTAssertEqual(Set(try store.delete(id: root)), [root, b])
    XCTAssertEqual(try store.idsWhere("Node"), [other])
  }

  private let customers = schema(
    entity(
      "Customer", [attr("name", "string")],
      relationships: [
        rel("orders", "Order", inverse: "customer", toMany: true, deleteRule: "deny"),
        rel("notes", "Note", inverse: "customer", toMany: true, deleteRule: "cascade"),
      ]),
    entity("Order", [attr("total", "int")], relationships: [rel("customer", "Customer", inverse: "orders")]),
    entity("Note", [attr("text", "string")], relationships: [rel("customer", "Customer", inverse: "notes")]))

  func testDenyListsBlockersAndDeletesNothing() throws {
    let store = try makeStore(customers)
    let c = try store.add("Customer", ["name": "c"])
    let o1 = try store.add("Order", ["total": 1, "customer": .string(c)])
    let o2 = try store.add("Order", ["total": 2, "customer": .string(c)])
    let n = try store.add("Note", ["text": "n", "customer": .string(c)])
    let e = expectStoreError(.deleteDenied) { try store.delete(id: c) }
    XCTAssertEqual(e?.details["id"], .string(c))
    XCTAssertEqual(e?.details["relationship"], "orders")
    XCTAssertEqual(e?.details["blocking"], ids(o1, o2))
    XCTAssertTrue(e?.message.contains("delete rule deny") ?? false)
    XCTAssertTrue(store.exists(c))
    XCTAssertTrue(store.exists(n), "the cascade did not run either")
    XCTAssertEqual(try store.value(o1, "customer"), .string(c))
    // Once the orders are gone the delete goes through.
    _ = try store.delete(id: o1)
    _ = try store.delete(id: o2)
    XCTAssertEqual(try store.delete(id: c), [c, n])
  }

  func testDenyIsSatisfiedWhenTheCascadeRemovesTheBlockers() throws {
    let store = try makeStore(
      schema(
        entity(
          "Department", [attr("name", "string")],
          relationships: [
            rel("employees", "Employee", inverse: "department", toMany: true, deleteRule: "cascade"),
            rel("badges", "Badge", inverse: "department", toMany: true, deleteRule: "cascade"),
          ]),
        entity(
          "Employee", [attr("name", "string")],
          relationships: [rel("department", "Department", inverse: "employees"), rel("badge", "Badge", inverse: "holder", deleteRule: "deny")]),
        entity(
          "Badge", [attr("code", "string")],
          relationships: [rel("department", "Department", inverse: "badges"), rel("holder", "Employee", inverse: "badge")])))
    let d = try store.add("Department", ["name": "d"])
    let b = try store.add("Badge", ["code": "1", "department": .string(d)])
    let e = try store.add("Employee", ["name": "e", "department": .string(d), "badge": .string(b)])
    expectStoreError(.deleteDenied) { try store.delete(id: e) }
    let removed = try store.delete(id: d)
    XCTAssertEqual(Set(removed), [d, e, b])
    XCTAssertEqual(try store.check()["ok"], true)
  }

  func testNoActionLeavesReferences() throws {
    let store = try makeStore(
      schema(
        entity("Author", [attr("name", "string")], relationships: [rel("books", "Book", inverse: "author", toMany: true, deleteRule: "noAction")]),
        entity("Book", [attr("title", "string")], relationships: [rel("author", "Author", inverse: "books")])))
    let a = try store.add("Author", ["name": "a"])
    let b = try store.add("Book", ["title": "b", "author": .string(a)])
    XCTAssertEqual(try store.delete(id: a), [a])
    XCTAssertTrue(store.exists(b))
    XCTAssertEqual(try store.value(b, "author"), .string(a), "noAction: the reference dangles, as in Core Data")
    let report = try store.check()
    XCTAssertEqual(report["ok"], false, "check finds the dangling reference")
    let problem = report["problems"]?.arrayValue?.first
    XCTAssertEqual(problem?["entity"], "Book")
    XCTAssertEqual(problem?["relationship"], "author")
    XCTAssertEqual(problem?["count"], 1)
  }

  func testDeleteUnknownAndBadIDs() throws {
    let store = try makeStore(taskCategorySchema)
    expectStoreError(.notFound) { try store.delete(id: "Task/1") }
    expectStoreError(.notFound) { try store.delete(id: "Nope/1") }
    expectStoreError(.validation) { try store.delete(id: "Task") }
  }

  func testDeleteWhereAppliesRulesAllOrNothing() throws {
    let store = try makeStore(customers)
    let c1 = try store.add("Customer", ["name": "free"])
    let c2 = try store.add("Customer", ["name": "busy"])
    let n1 = try store.add("Note", ["text": "n1", "customer": .string(c1)])
    try store.add("Order", ["total": 5, "customer": .string(c2)])
    expectStoreError(.deleteDenied) { try store.deleteWhere(FetchRequest(entity: "Customer")) }
    XCTAssertTrue(store.exists(c1), "the first match was not deleted either")
    let removed = try store.deleteWhere(FetchRequest(entity: "Customer", predicate: try PredicateParser.parse("name == 'free'")))
    XCTAssertEqual(removed, [c1, n1])
    XCTAssertTrue(store.exists(c2))
  }
}
