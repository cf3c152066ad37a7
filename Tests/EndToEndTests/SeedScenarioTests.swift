import JSONCore
import TestSupport
import XCTest

/// The seed scenarios over the protocol, against the built binary.
final class SeedScenarioTests: XCTestCase {
  func testTaskCategoryScenario() throws {
    let server = try ServerProcess()
    _ = try server.call("initialize")
    _ = try server.call("model.define", ["schema": taskCategorySchema])
    let task = try server.call("objects.insert", ["entity": "Task", "values": ["title": "Buy milk"]])
    let taskID = try XCTUnwrap(task["_id"]?.stringValue)
    XCTAssertEqual(task["isCompleted"], .bool(false))
    XCTAssertEqual(task["priority"], .int(0))
    XCTAssertEqual(try server.call("objects.get", ["id": .string(taskID)])["title"], "Buy milk")

    let category = try server.call("objects.insert", ["entity": "Category", "values": ["name": "Home"]])
    let categoryID = try XCTUnwrap(category["_id"]?.stringValue)
    XCTAssertEqual(category["color"], "blue")
    _ = try server.call("objects.update", ["id": .string(taskID), "values": ["category": .string(categoryID)]])
    XCTAssertEqual(try server.call("objects.get", ["id": .string(categoryID), "toMany": "ids"])["tasks"], .array([.string(taskID)]))

    let deleted = try server.call("objects.delete", ["id": .string(categoryID)])
    XCTAssertEqual(deleted["deleted"], .array([.string(categoryID), .string(taskID)]))
    let gone = try server.callFailing("objects.get", ["id": .string(taskID)])
    XCTAssertEqual(gone["data"]?["kind"], "notFound")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }
}

extension SeedScenarioTests {
  /// Pending tasks only, newest first: insert several, complete some, fetch with a filter
  /// and a descending sort on `createdAt`.
  func testPendingTasksSortedByCreatedAtDescending() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": taskCategorySchema])
    // Inserted out of date order so that insertion order cannot pass for the sort.
    let tasks: [(title: String, createdAt: String)] = [
      ("write report", "2026-01-03T09:00:00.000Z"), ("buy milk", "2026-01-01T08:00:00.000Z"),
      ("call mum", "2026-01-05T18:30:00.000Z"), ("fix bike", "2026-01-02T12:00:00.000Z"),
      ("pay rent", "2026-01-04T07:15:00.000Z"), ("water plants", "2026-01-06T06:45:00.000Z"),
      ("read book", "2026-01-02T12:00:00.001Z"),
    ]
    var ids: [String: String] = [:]
    for t in tasks {
      let o = try server.call(
        "objects.insert", ["entity": "Task", "values": ["title": .string(t.title), "createdAt": .string(t.createdAt)]])
      ids[t.title] = try XCTUnwrap(o["_id"]?.stringValue)
      XCTAssertEqual(o["createdAt"]?.stringValue, t.createdAt)
    }
    // Complete two with objects.update and one through context.save.
    for done in ["call mum", "buy milk"] {
      _ = try server.call("objects.update", ["id": .string(ids[done]!), "values": ["isCompleted": true]])
    }
    _ = try server.call("context.save", ["changes": [["op": "update", "id": .string(ids["fix bike"]!), "values": ["isCompleted": true]]]])

    let fetched = try server.call(
      "query.fetch",
      ["entity": "Task", "where": "isCompleted == false", "sort": [["key": "createdAt", "ascending": false]]])
    let objects = try XCTUnwrap(fetched["objects"]?.arrayValue)
    XCTAssertEqual(objects.compactMap { $0["title"]?.stringValue }, ["water plants", "pay rent", "write report", "read book"])
    XCTAssertTrue(objects.allSatisfy { $0["isCompleted"] == .bool(false) })
    let dates = objects.compactMap { $0["createdAt"]?.stringValue }
    XCTAssertEqual(dates, dates.sorted(by: >), "createdAt must be descending")

    // The same filter through a variable, with a limit, and as a count.
    let firstTwo = try server.call(
      "query.ids",
      [
        "entity": "Task", "where": "isCompleted == $done", "variables": ["done": false],
        "sort": [["key": "createdAt", "ascending": false]], "limit": 2,
      ])
    XCTAssertEqual(firstTwo["ids"], .array([.string(ids["water plants"]!), .string(ids["pay rent"]!)]))
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "isCompleted == false"])["count"], .int(4))
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "isCompleted == true"])["count"], .int(3))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// The whole Task/Category flow against a file store, then a second process on the
  /// same file sees the schema, the objects and the relationships.
  func testTaskCategoryFlowPersistsInFileStore() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.store("tasks.store")

    let first = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try first.call("initialize")
    let defined = try first.call("model.define", ["schema": taskCategorySchema])
    let hash = try XCTUnwrap(defined["hash"]?.stringValue)
    let saved = try first.call(
      "context.save",
      [
        "changes": [
          ["op": "insert", "entity": "Category", "ref": "$home", "values": ["name": "Home"]],
          ["op": "insert", "entity": "Category", "ref": "$work", "values": ["name": "Work", "color": "red"]],
          ["op": "insert", "entity": "Task", "ref": "$t1", "values": ["title": "Buy milk", "category": "$home"]],
          ["op": "insert", "entity": "Task", "ref": "$t2", "values": ["title": "Clean", "category": "$home", "priority": 2]],
          ["op": "insert", "entity": "Task", "ref": "$t3", "values": ["title": "Report", "category": "$work", "isCompleted": true]],
          ["op": "insert", "entity": "Task", "ref": "$t4", "values": ["title": "Loose end"]],
        ]
      ])
    let refs = try XCTUnwrap(saved["ids"])
    let home = try XCTUnwrap(refs["$home"]?.stringValue), work = try XCTUnwrap(refs["$work"]?.stringValue)
    let t1 = try XCTUnwrap(refs["$t1"]?.stringValue), t2 = try XCTUnwrap(refs["$t2"]?.stringValue)
    let t3 = try XCTUnwrap(refs["$t3"]?.stringValue), t4 = try XCTUnwrap(refs["$t4"]?.stringValue)
    _ = try first.call("objects.update", ["id": .string(t4), "values": ["category": .string(work)]])
    // Deleting Home cascades to its tasks.
    let deleted = try first.call("objects.delete", ["id": .string(home)])
    XCTAssertEqual(Set(deleted["deleted"]?.arrayValue?.compactMap(\.stringValue) ?? []), [home, t1, t2])
    let before = try first.call("query.fetch", ["entity": "Task", "sort": ["title"]])
    first.closeInput()
    XCTAssertEqual(first.waitForExit(), 0, first.stderr)

    let second = try ServerProcess(arguments: ["serve", "--store", path])
    let model = try second.call("model.get")
    XCTAssertEqual(model["hash"]?.stringValue, hash)
    XCTAssertEqual(model["version"], "1.0.0")
    XCTAssertEqual(model["history"]?.arrayValue?.count, 1)
    XCTAssertEqual(try second.call("query.fetch", ["entity": "Task", "sort": ["title"]]), before)
    let workObject = try second.call("objects.get", ["id": .string(work), "toMany": "ids"])
    XCTAssertEqual(workObject["name"], "Work")
    XCTAssertEqual(workObject["color"], "red")
    XCTAssertEqual(Set(workObject["tasks"]?.arrayValue?.compactMap(\.stringValue) ?? []), [t3, t4])
    XCTAssertEqual(try second.call("objects.get", ["id": .string(t3)])["category"], .string(work))
    XCTAssertEqual(try second.callFailing("objects.get", ["id": .string(t1)])["data"]?["kind"], "notFound")
    let info = try second.call("store.info")
    XCTAssertEqual(info["counts"]?["Category"], 1)
    XCTAssertEqual(info["counts"]?["Task"], 2)
    XCTAssertEqual(info["schemaHash"]?.stringValue, hash)
    // Defining the same schema again is a no-op on a reopened store.
    XCTAssertEqual(try second.call("model.define", ["schema": taskCategorySchema])["changed"], false)
    // And the reopened store still takes writes.
    let more = try second.call("objects.insert", ["entity": "Task", "values": ["title": "After restart", "category": .string(work)]])
    XCTAssertNotNil(more["_id"]?.stringValue)
    XCTAssertEqual(try second.call("store.check")["ok"], true)
    second.closeInput()
    XCTAssertEqual(second.waitForExit(), 0, second.stderr)
  }

  /// The string operators of the predicate language over the protocol.
  func testStringPredicateOperators() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": taskCategorySchema])
    for title in ["Buy milk", "Build shed", "buy bread", "Call Bob"] {
      _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": .string(title)]])
    }
    func titles(_ predicate: String) throws -> [String] {
      let r = try server.request("query.fetch", ["entity": "Task", "where": .string(predicate), "sort": ["title"]])
      guard let objects = r["result"]?["objects"]?.arrayValue else {
        XCTFail("\(predicate) failed: \(r["error"] ?? .null)")
        return []
      }
      return objects.compactMap { $0["title"]?.stringValue }
    }
    XCTAssertEqual(try titles(#"title CONTAINS "uil""#), ["Build shed"])
    XCTAssertEqual(try titles(#"title CONTAINS[c] "BU""#), ["Build shed", "Buy milk", "buy bread"])
    XCTAssertEqual(try titles(#"title == "Call Bob""#), ["Call Bob"])
    XCTAssertEqual(try titles(#"title BEGINSWITH "Bu""#), ["Build shed", "Buy milk"])
    XCTAssertEqual(try titles(#"title BEGINSWITH[c] "bu""#), ["Build shed", "Buy milk", "buy bread"])
    XCTAssertEqual(try titles(#"title ENDSWITH "ead""#), ["buy bread"])
    XCTAssertEqual(try titles(#"title ENDSWITH[c] "BOB""#), ["Call Bob"])
    XCTAssertEqual(try titles(#"title LIKE "B*d*""#), ["Build shed"])
    XCTAssertEqual(try titles(#"title LIKE[c] "bu? *""#), ["Buy milk", "buy bread"])
  }
}
