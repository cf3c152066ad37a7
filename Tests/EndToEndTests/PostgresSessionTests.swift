import Foundation
import JSONCore
import TestSupport
import XCTest

/// A session of the seeds' Task/Category model on a PostgreSQL store, end to end: the
/// schema, objects with inverses and cascades, `context.save`, client transactions and
/// queries; a second server on the same schema follows the first; a server that loses
/// its connection mid-transaction keeps nothing of it. Against the test cluster
/// (`MODELSTORE_TEST_PG`; skipped without it).
final class PostgresSessionTests: XCTestCase {
  private var schema: PostgresTestSchema!

  override func setUpWithError() throws { schema = try PostgresTestSchema("session") }
  override func tearDown() { schema?.drop() }

  private func kind(_ error: JSONObject) -> String? { error["data"]?["kind"]?.stringValue }

  private func id(_ object: JSONValue) throws -> String { try XCTUnwrap(object["_id"]?.stringValue) }

  private func titles(_ server: ServerProcess, _ predicate: String) throws -> [String] {
    let fetched = try server.call("query.fetch", ["entity": "Task", "where": .string(predicate), "sort": [["key": "title"]]])
    return try XCTUnwrap(fetched["objects"]?.arrayValue).compactMap { $0["title"]?.stringValue }
  }

  func testASessionOfTheSeedModel() throws {
    let server = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    let defined = try server.call("model.define", ["schema": Seeds.taskV1])
    XCTAssertEqual(defined["changed"], true)
    let home = try id(try server.call("objects.insert", ["entity": "Category", "values": ["name": "Home"]]))
    let work = try id(try server.call("objects.insert", ["entity": "Category", "values": ["name": "Work"]]))
    let milk = try id(try server.call("objects.insert", ["entity": "Task", "values": ["title": "Buy milk", "category": .string(home)]]))
    // The inverse follows the to-one.
    XCTAssertEqual(try server.call("objects.get", ["id": .string(home), "toMany": "ids"])["tasks"], .array([.string(milk)]))
    XCTAssertEqual(try server.call("objects.get", ["id": .string(milk)])["done"], false)

    // context.save: refs, links and an update, all or nothing.
    let saved = try server.call(
      "context.save",
      [
        "changes": [
          ["op": "insert", "entity": "Task", "ref": "$a", "values": ["title": "Write report", "category": .string(work)]],
          ["op": "insert", "entity": "Task", "ref": "$b", "values": ["title": "Call mum", "done": true]],
          ["op": "update", "id": .string(milk), "values": ["done": true]],
        ]
      ])
    let refs = try XCTUnwrap(saved["ids"]?.objectValue)
    let report = try XCTUnwrap(refs["$a"]?.stringValue)
    XCTAssertEqual(try titles(server, "done == true"), ["Buy milk", "Call mum"])
    // A name another object holds already: refused, naming that object.
    let taken = try server.callFailing("objects.insert", ["entity": "Category", "values": ["name": "Home"]])
    XCTAssertEqual(kind(taken), "constraint", "\(taken)")
    XCTAssertEqual(taken["data"]?["existing"]?.stringValue, home, "\(taken)")
    // A save that breaks the uniqueness of Category.name inside itself keeps nothing, and
    // names the object of the same save that holds the value, as on SQLite (the insert
    // skips the duplicate, ON CONFLICT DO NOTHING, so nothing is undone before the engine
    // looks).
    let duplicate = try server.callFailing(
      "context.save",
      [
        "changes": [
          ["op": "insert", "entity": "Category", "ref": "$c", "values": ["name": "Garden"]],
          ["op": "insert", "entity": "Category", "values": ["name": "Garden"]],
        ]
      ])
    XCTAssertEqual(kind(duplicate), "constraint", "\(duplicate)")
    XCTAssertEqual(duplicate["data"]?["index"], 1, "\(duplicate)")
    XCTAssertEqual(duplicate["data"]?["constraint"], "unique", "\(duplicate)")
    XCTAssertEqual(duplicate["data"]?["existing"], "Category/3", "\(duplicate)")
    XCTAssertEqual(try server.call("query.count", ["entity": "Category"])["count"], 2)

    // Client transactions: a rolled-back one leaves nothing, a committed one everything.
    _ = try server.call("transaction.begin")
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "Never"]])
    _ = try server.call("transaction.rollback")
    _ = try server.call("transaction.begin")
    _ = try server.call("objects.update", ["id": .string(report), "values": ["title": "Write the report"]])
    _ = try server.call("transaction.commit")
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "title == 'Never'"])["count"], 0)
    XCTAssertEqual(try titles(server, "category.name == 'Work'"), ["Write the report"])
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "title BEGINSWITH[c] 'w' OR done == true"])["count"], 3)

    // A second server on the same store sees the schema and the objects, and the first
    // sees its writes.
    let other = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    XCTAssertEqual(try other.call("query.count", ["entity": "Task"])["count"], 3)
    _ = try other.call("objects.insert", ["entity": "Task", "values": ["title": "From the other", "category": .string(home)]])
    XCTAssertEqual(try server.call("objects.get", ["id": .string(home), "toMany": "ids"])["tasks"]?.arrayValue?.count, 2)

    // Deleting a category nullifies its tasks' link (the seeds' default rule).
    let deleted = try server.call("objects.delete", ["id": .string(home)])
    XCTAssertEqual(deleted["deleted"], .array([.string(home)]))
    XCTAssertEqual(try server.call("objects.get", ["id": .string(milk)])["category"], .null)
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "category == nil"])["count"], 3)
  }

  func testDeleteCascadesFollowTheSchema() throws {
    let cascading = TestSupport.schema(
      entity("Task", [attr("title", "string")], relationships: [rel("category", "Category", inverse: "tasks")]),
      entity(
        "Category", [attr("name", "string")],
        relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: "cascade")]))
    let server = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    _ = try server.call("model.define", ["schema": cascading])
    let home = try id(try server.call("objects.insert", ["entity": "Category", "values": ["name": "Home"]]))
    let a = try id(try server.call("objects.insert", ["entity": "Task", "values": ["title": "a", "category": .string(home)]]))
    let b = try id(try server.call("objects.insert", ["entity": "Task", "values": ["title": "b", "category": .string(home)]]))
    let deleted = try server.call("objects.delete", ["id": .string(home)])
    XCTAssertEqual(Set(deleted["deleted"]?.arrayValue?.compactMap(\.stringValue) ?? []), [home, a, b])
    XCTAssertEqual(try server.call("query.count", ["entity": "Task"])["count"], 0)
  }

  func testAConnectionLostMidTransactionKeepsNothingOfIt() throws {
    let application = "ms_session_\(UUID().uuidString.prefix(8).lowercased())"
    let url = PostgresTestCluster.adding("application_name=\(application)", to: schema.storeURL)
    let server = try ServerProcess(arguments: ["serve", "--store", url])
    _ = try server.call("model.define", ["schema": Seeds.taskV1])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "Kept"]])
    _ = try server.call("transaction.begin")
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "Lost"]])
    let killed = try PostgresTestCluster.psql(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'", url: schema.clusterURL)
    XCTAssertEqual(killed.stdout, "1")
    let e = try server.callFailing("objects.insert", ["entity": "Task", "values": ["title": "Also lost"]])
    XCTAssertEqual(kind(e), "transaction", "\(e)")
    XCTAssertEqual(e["data"]?["transactionRolledBack"], true)
    XCTAssertTrue(e["message"]?.stringValue?.contains("the connection to the PostgreSQL server was lost") ?? false, "\(e)")
    XCTAssertEqual(try schema.psql("SELECT string_agg(title, ',') FROM \"Task\"").stdout, "Kept", "nothing half-written")
    // The server connects again and goes on.
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 0)
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "After"]])
    XCTAssertEqual(try titles(server, "TRUEPREDICATE"), ["After", "Kept"])
  }
}
