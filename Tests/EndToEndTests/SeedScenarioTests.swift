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
    XCTAssertEqual(try server.call("objects.get", ["id": .string(categoryID)])["tasks"], .array([.string(taskID)]))

    let deleted = try server.call("objects.delete", ["id": .string(categoryID)])
    XCTAssertEqual(deleted["deleted"], .array([.string(categoryID), .string(taskID)]))
    let gone = try server.callFailing("objects.get", ["id": .string(taskID)])
    XCTAssertEqual(gone["data"]?["kind"], "notFound")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }
}
