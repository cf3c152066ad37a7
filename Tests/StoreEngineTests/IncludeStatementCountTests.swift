import JSONCore
import XCTest

@testable import StoreEngine

/// `include` prefetches related objects with a fixed number of statements: one per
/// include segment and table, however many objects the fetch returns (no N+1).
final class IncludeStatementCountTests: XCTestCase {
  /// Categories with `tasksPerCategory` tasks each, all inserted in one save.
  private func store(categories: Int, tasksPerCategory: Int) throws -> Store {
    let store = try makeStore(taskCategorySchema)
    var changes: [Change] = []
    for c in 0..<categories {
      changes.append(.insert(entity: "Category", ref: "$c\(c)", values: ["name": .string("category \(c)")]))
      for t in 0..<tasksPerCategory {
        changes.append(.insert(entity: "Task", ref: nil, values: ["title": .string("task \(c).\(t)"), "category": .string("$c\(c)")]))
      }
    }
    _ = try store.save(changes)
    return store
  }

  /// Statements run by a fetch of every category with its tasks, and the objects it returned.
  private func statementsForFetch(_ store: Store, include: [String]) throws -> (Int, [JSONObject]) {
    var request = FetchRequest(entity: "Category")
    request.include = include
    let before = store.connection.statementsRun
    let objects = try store.fetch(request)
    return (store.connection.statementsRun - before, objects)
  }

  func testToManyIncludeOnTenThousandObjectsUsesAsManyStatementsAsOnTen() throws {
    let small = try store(categories: 10, tasksPerCategory: 2)
    let large = try store(categories: 10_000, tasksPerCategory: 2)
    let (smallCount, smallObjects) = try statementsForFetch(small, include: ["tasks"])
    let (largeCount, largeObjects) = try statementsForFetch(large, include: ["tasks"])
    XCTAssertEqual(largeObjects.count, 10_000)
    XCTAssertEqual(smallObjects.count, 10)
    XCTAssertEqual(largeCount, smallCount, "statements for 10 categories: \(smallCount), for 10,000: \(largeCount)")
    XCTAssertLessThanOrEqual(largeCount, 3)
    // Every task arrives as a full object whose inverse points back at its category.
    for category in largeObjects.prefix(50) {
      guard case .array(let tasks)? = category["tasks"] else { return XCTFail("tasks not expanded: \(category)") }
      XCTAssertEqual(tasks.count, 2)
      for case .object(let task) in tasks { XCTAssertEqual(task["category"], category["_id"]) }
    }
  }

  func testNestedIncludeIsOneStatementPerSegment() throws {
    let store = try store(categories: 500, tasksPerCategory: 3)
    var request = FetchRequest(entity: "Task")
    request.include = ["category", "category.tasks"]
    let before = store.connection.statementsRun
    let tasks = try store.fetch(request)
    let used = store.connection.statementsRun - before
    XCTAssertEqual(tasks.count, 1500)
    XCTAssertLessThanOrEqual(used, 4, "a fetch with two include levels ran \(used) statements")
    guard case .object(let category)? = tasks[0]["category"], case .array(let siblings)? = category["tasks"] else {
      return XCTFail("not expanded: \(tasks[0])")
    }
    XCTAssertEqual(siblings.count, 3)
    XCTAssertTrue(siblings.allSatisfy { if case .object = $0 { return true } else { return false } })
  }
}
