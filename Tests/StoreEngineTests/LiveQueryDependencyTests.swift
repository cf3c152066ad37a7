import JSONCore
import TestSupport
import XCTest

@testable import StoreEngine

/// A live query depends on the entities its request's tree reads, not on words in its
/// text; commits to other entities cost it nothing.
final class LiveQueryDependencyTests: XCTestCase {
  private let model = schema(
    entity(
      "Task", [attr("title", "string"), attr("price", "double", default: 0), attr("text", "string", optional: true)],
      relationships: [rel("project", "Project", inverse: "tasks", optional: true), rel("tags", "Tag", inverse: "tasks", toMany: true)]),
    entity("Urgent", parent: "Task", [attr("level", "int", default: 0)]),
    entity("Project", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "project", toMany: true)]),
    entity("Tag", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "tags", toMany: true)]),
    entity("Note", [attr("body", "string")]))

  private func dependencies(
    _ predicate: String? = nil, sort: [String] = [], sectionBy: String? = nil, include: [String] = []
  ) throws -> LiveQueryDependencies {
    let store = try makeStore(model)
    var r = FetchRequest(entity: "Task", predicate: try predicate.map { try PredicateParser.parse($0, args: []) })
    r.sort = sort.map { SortKey(keyPath: $0) }
    r.sectionBy = sectionBy.map { GroupingKey(keyPath: $0) }
    r.include = include
    return try LiveQuery.start(r, on: store).0.dependencies
  }

  func testDependenciesComeFromTheTree() throws {
    let task: Set<String> = ["Task", "Urgent"]
    XCTAssertEqual(try dependencies("price > 9.99").result, task, "a dot in a number is no key path")
    XCTAssertEqual(try dependencies("text CONTAINS 'count.@sum SUBQUERY'").result, task, "words in a string are no operators")
    XCTAssertEqual(try dependencies("project.name == 'x'").result, task.union(["Project"]))
    XCTAssertEqual(try dependencies("tags.@count > 1").result, task.union(["Tag"]))
    XCTAssertEqual(try dependencies("ANY tags.name == 'a'").result, task.union(["Tag"]))
    XCTAssertEqual(try dependencies("SUBQUERY(tags, $t, $t.tasks.@count > 2 AND $t.name == 'a').@count > 0").result, task.union(["Tag"]))
    XCTAssertEqual(try dependencies("SUBQUERY(tags, $t, $t.name == project.name).@count > 0").result, task.union(["Tag", "Project"]))
    XCTAssertEqual(try dependencies(sort: ["project.name", "title"]).result, task.union(["Project"]))
    XCTAssertEqual(try dependencies(sectionBy: "project.name").result, task.union(["Project"]))
    let included = try dependencies("price > 1", include: ["tags"])
    XCTAssertEqual(included.result, task)
    XCTAssertEqual(included.included, ["Tag"])
  }

  func testACommitToAnotherEntityRunsNothing() throws {
    let store = try makeStore(model)
    var r = FetchRequest(entity: "Task", predicate: try PredicateParser.parse("price > 9.99 AND text CONTAINS 'count'", args: []))
    r.sort = [SortKey(keyPath: "price")]
    let (query, first) = try LiveQuery.start(r, on: store)
    XCTAssertEqual(first.objects.count, 0)
    var cursor = try store.latestHistoryToken()
    func refresh() throws -> LiveQueryChange? {
      let ts = try store.history(after: cursor)
      cursor = ts.last?.token ?? cursor
      let statements = store.connection.statementsRun
      let change = try query.refresh(
        on: store, entities: ts.reduce(into: Set()) { $0.formUnion($1.entities) }, changed: Set(ts.flatMap(\.ids)), bulk: false)
      if query.refreshes == 0 { XCTAssertEqual(store.connection.statementsRun, statements, "no statement for an unrelated commit") }
      return change
    }
    for i in 0..<5 {
      _ = try store.insert(entity: "Note", values: ["body": .string("count \(i)")])
      _ = try store.insert(entity: "Project", values: ["name": "count"])
      XCTAssertNil(try refresh())
    }
    XCTAssertEqual(query.refreshes, 0, "commits to Note and Project never re-ran the Task query")
    _ = try store.insert(entity: "Urgent", values: ["title": "a", "price": 10, "text": "a count"])
    XCTAssertEqual(try refresh()?.inserted.count, 1)
    XCTAssertEqual(query.refreshes, 1)
  }

  /// A section key read through a relationship changes while the list stays the same:
  /// the new sections are still reported.
  func testSectionsFollowARenamedRelatedObject() throws {
    let store = try makeStore(model)
    let p = try XCTUnwrap(try store.insert(entity: "Project", values: ["name": "a"])["_id"]?.stringValue)
    for t in ["x", "y"] { _ = try store.insert(entity: "Task", values: ["title": .string(t), "project": .string(p)]) }
    var r = FetchRequest(entity: "Task")
    r.sort = [SortKey(keyPath: "title")]
    r.sectionBy = GroupingKey(keyPath: "project.name")
    let (query, first) = try LiveQuery.start(r, on: store)
    XCTAssertEqual(first.sections, [Section(key: "a", start: 0, count: 2)])
    _ = try store.update(id: p, values: ["name": "b"])
    let change = try XCTUnwrap(try query.refresh(on: store, entities: ["Project"], changed: [p], bulk: false))
    XCTAssertEqual(change.sections, [Section(key: "b", start: 0, count: 2)])
    XCTAssertTrue(change.inserted.isEmpty && change.deleted.isEmpty && change.moved.isEmpty && change.updated.isEmpty)
    XCTAssertEqual(change.sections, try store.fetchWithSections(r).sections)
  }
}
