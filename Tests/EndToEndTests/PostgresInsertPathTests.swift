import Foundation
import JSONCore
import TestSupport
import XCTest

/// The insert path on a PostgreSQL store (MODELSTORE_TEST_PG; skipped without it): a write
/// transaction remembers the to-one targets it found (each lookup is a round trip), and
/// forgets them whenever they could have gone: a rolled-back level, a deletion, the end of
/// the transaction. A target a rollback or a deletion took away is refused again, as on
/// SQLite. A uniqueness refusal inside a client transaction names the holder and leaves the
/// transaction usable.
final class PostgresInsertPathTests: XCTestCase {
  private var schema: PostgresTestSchema!

  override func setUpWithError() throws { schema = try PostgresTestSchema("insertpath") }
  override func tearDown() { schema?.drop() }

  private func insert(_ s: ServerProcess, _ entity: String, _ values: JSONObject) throws -> String {
    try XCTUnwrap(try s.call("objects.insert", ["entity": .string(entity), "values": .object(values)])["_id"]?.stringValue)
  }

  private func task(_ s: ServerProcess, _ title: String, _ category: String) throws -> JSONObject {
    try s.request("objects.insert", ["entity": "Task", "values": ["title": .string(title), "category": .string(category)]])
  }

  private func kind(_ reply: JSONObject) -> String? { reply["error"]?["data"]?["kind"]?.stringValue }

  func testRememberedTargetsAreForgottenWhenARollbackOrADeletionTakesThemAway() throws {
    let s = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    _ = try s.call("model.define", ["schema": Seeds.taskV1])
    _ = try s.call("transaction.begin")
    let home = try insert(s, "Category", ["name": "Home"])
    XCTAssertNil(try task(s, "first", home)["error"])
    XCTAssertNil(try task(s, "second, the target remembered", home)["error"])
    // A nested level makes a category and links to it, then rolls back: the category is gone.
    _ = try s.call("transaction.begin")
    let garden = try insert(s, "Category", ["name": "Garden"])
    XCTAssertNil(try task(s, "in the garden", garden)["error"])
    _ = try s.call("transaction.rollback")
    XCTAssertEqual(kind(try task(s, "after the rollback", garden)), "notFound")
    // A request that fails after finding a target rolls its own level back.
    let work = try insert(s, "Category", ["name": "Work"])
    let failed = try s.request(
      "context.save",
      [
        "changes": [
          ["op": "insert", "entity": "Category", "ref": "$g", "values": ["name": "Shed"]],
          ["op": "insert", "entity": "Task", "values": ["title": "in the shed", "category": "$g"]],
          ["op": "insert", "entity": "Category", "values": ["name": "Home"]],
        ]
      ])
    XCTAssertEqual(kind(failed), "constraint", "\(failed)")
    XCTAssertEqual(failed["error"]?["data"]?["existing"]?.stringValue, home, "the holder is named")
    XCTAssertNil(try task(s, "at work", work)["error"], "the client transaction goes on")
    // A deletion takes its target away (its tasks stay, unlinked: the rule is nullify).
    _ = try s.call("objects.delete", ["id": .string(work)])
    XCTAssertEqual(kind(try task(s, "after the deletion", work)), "notFound")
    _ = try s.call("transaction.commit")
    XCTAssertEqual(try s.call("query.count", ["entity": "Task"])["count"], 3)
    XCTAssertEqual(try s.call("query.count", ["entity": "Task", "where": "category == nil"])["count"], 1)
    XCTAssertEqual(try s.call("query.count", ["entity": "Category"])["count"], 1)

    // Across transactions: a second server deletes the target between two of this one's.
    let other = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    XCTAssertNil(try task(s, "before", home)["error"])
    _ = try other.call("objects.delete", ["id": .string(home)])
    XCTAssertEqual(kind(try task(s, "after another server's deletion", home)), "notFound")
    XCTAssertEqual(try s.call("query.count", ["entity": "Task", "where": "category != nil"])["count"], 0)
    for p in [s, other] {
      p.closeInput()
      XCTAssertEqual(p.waitForExit(), 0, p.stderr)
    }
  }

  /// An autocommit insert reads its first key in the round trip that opens its transaction,
  /// after the store's lock, and sends its history row and key maximum with its COMMIT:
  /// two servers inserting in turn still take each key once, in order, and a key of a
  /// deleted object or of a refused insert is not given again.
  func testAutocommitInsertsOfTwoServersInTurnTakeEachKeyOnce() throws {
    let a = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    _ = try a.call("model.define", ["schema": Seeds.taskV1])
    let b = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    let home = try insert(a, "Category", ["name": "Home"])
    var ids: [String] = []
    for i in 0..<4 {
      for p in [a, b] { ids.append(try XCTUnwrap(try task(p, "task \(i)", home)["result"]?["_id"]?.stringValue)) }
    }
    XCTAssertEqual(ids, (1...8).map { "Task/\($0)" })
    _ = try b.call("objects.delete", ["id": "Task/8"])
    XCTAssertEqual(kind(try task(a, "to a category that is not there", "Category/9")), "notFound")
    XCTAssertEqual(try insert(a, "Task", ["title": "after the deletion"]), "Task/9")
    XCTAssertEqual(try insert(b, "Task", ["title": "and the other server"]), "Task/10")
    let history = try b.call("history.fetch", ["after": 0])
    XCTAssertEqual(history["transactions"]?.arrayValue?.count, 12, "one history transaction per write: \(history)")
    XCTAssertEqual(try a.call("query.count", ["entity": "Task"])["count"], 9)
    for p in [a, b] {
      p.closeInput()
      XCTAssertEqual(p.waitForExit(), 0, p.stderr)
    }
  }
}
