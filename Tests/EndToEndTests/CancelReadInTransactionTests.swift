import Foundation
import JSONCore
import TestSupport
import XCTest

/// protocol.md (Cancellation; PostgreSQL stores): a read inside a client transaction that
/// is cancelled, or that fails, fails alone: the client's earlier work in the transaction
/// stays, more work goes on, and the commit keeps it all. On PostgreSQL such a read is
/// cancelled on the server at once (its request ends `cancelled` while the lock it waits
/// for is still held), under a savepoint of its own, or, inside a write request's own
/// level, with that level.
///
/// The read is held where the test controls it: its statement waits for a lock a psql
/// session holds on its table (seen waiting in `pg_locks`), and the test reads the reply
/// before it lets the lock go.
final class CancelReadInTransactionTests: XCTestCase {
  static let model = schema(
    entity("Task", [attr("title", "string"), attr("rank", "int", default: 0)]), entity("Note", [attr("text", "string")]),
    entity("Tag", [attr("name", "string")]))

  /// A server with the model and `prepared` run once (its statements prepared on the
  /// connection: a held read then waits in its execution, not its preparation). It never
  /// inserts a Tag: a write transaction on PostgreSQL reads the first keys of the tables
  /// the server inserted into before right after its lock, which holds their locks (psql's
  /// would wait) until it ends.
  private func server(prepared: [(String, JSONObject)]) throws -> ServerProcess {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.model])
    for (method, params) in prepared { _ = try server.call(method, params) }
    return server
  }

  private func insertNote(_ server: ServerProcess, _ text: String) throws {
    _ = try server.call("objects.insert", ["entity": "Note", "values": ["text": .string(text)]])
  }

  private func notes(_ server: ServerProcess) throws -> [String] {
    let fetched = try server.call("query.fetch", ["entity": "Note", "sort": ["text"]])
    return (fetched["objects"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
  }

  /// Holds `method` on the Tag table, cancels it, and returns its reply, read while the
  /// lock is still held (only a read the cancel stopped can answer then); then lets the
  /// lock go.
  private func cancelWhileWaiting(_ server: ServerProcess, _ method: String, _ params: JSONObject) throws -> JSONObject {
    let held = try XCTUnwrap(try server.hold(method, params, cpu: 0, table: "Tag"))
    server.sendNotification("$/cancelRequest", ["id": held.id])
    let reply = try server.reply(to: held.id)
    held.release()
    XCTAssertEqual(reply.errorCode, -32800, "\(reply)")
    XCTAssertEqual(reply.errorKind, "cancelled")
    return reply
  }

  /// A fetch (whose rows are streamed) and an aggregate, each prepared before, each
  /// cancelled while its execution waits: both end at once, and the transaction keeps the
  /// client's insert, takes another, and commits both. (One after the other in the same
  /// transaction: a read that ran to its end would hold its table's lock until the
  /// transaction ends, and the psql session's lock for the next would wait.)
  func testRunningReadsCancelledInsideAClientTransactionEndAtOnce() throws {
    guard TestEngine.isPostgres else { throw XCTSkip("a read waits for a psql session's lock on PostgreSQL only") }
    let reads: [(String, JSONObject)] = [
      ("query.fetch", ["entity": "Tag", "sort": ["name"]]),
      ("query.aggregate", ["entity": "Tag", "aggregates": [["fn": "count", "key": "name", "as": "n"]]]),
    ]
    let server = try server(prepared: reads)
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    try insertNote(server, "a")
    for (method, params) in reads { _ = try cancelWhileWaiting(server, method, params) }
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 1, "a cancel ended the client's transaction")
    XCTAssertEqual(try notes(server), ["a"], "the client's uncommitted insert vanished")
    try insertNote(server, "b")
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try notes(server), ["a", "b"])
    XCTAssertEqual(try server.call("query.count", ["entity": "Tag"])["count"], 0, "a request after the cancelled ones was interrupted")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A read cancelled at the inner of two client levels, each with an insert: both levels
  /// keep their work, the inner takes more, and both commit.
  func testARunningReadCancelledAtANestedClientLevelKeepsBothLevels() throws {
    guard TestEngine.isPostgres else { throw XCTSkip("a read waits for a psql session's lock on PostgreSQL only") }
    let server = try server(prepared: [("query.count", ["entity": "Tag"])])
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    try insertNote(server, "outer")
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 2)
    try insertNote(server, "inner")
    _ = try cancelWhileWaiting(server, "query.count", ["entity": "Tag"])
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 2, "the cancel ended a client level")
    XCTAssertEqual(try notes(server), ["inner", "outer"])
    try insertNote(server, "later")
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 1)
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try notes(server), ["inner", "later", "outer"])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A write request's read (`objects.updateWhere` finding its objects) cancelled inside a
  /// client transaction: the request is undone (its own level), the client's level keeps
  /// its work and commits.
  func testAWriteRequestsReadCancelledInsideAClientTransactionUndoesOnlyTheRequest() throws {
    guard TestEngine.isPostgres else { throw XCTSkip("a read waits for a psql session's lock on PostgreSQL only") }
    let update: JSONObject = ["entity": "Tag", "where": "name == 'x'", "values": ["name": "y"]]
    let server = try server(prepared: [])
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    try insertNote(server, "a")
    _ = try cancelWhileWaiting(server, "objects.updateWhere", update)
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 1, "the cancel ended the client's transaction")
    XCTAssertEqual(try notes(server), ["a"])
    XCTAssertEqual(try server.call("objects.updateWhere", update)["count"], 0, "the update after the cancelled one failed")
    try insertNote(server, "b")
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try notes(server), ["a", "b"])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A fetch whose statement fails inside a client transaction (on PostgreSQL an integer
  /// overflow, which aborts PostgreSQL's transaction; on SQLite a MATCHES over its step
  /// budget): the request fails alone, at either client level, and the transaction keeps
  /// the client's work, takes more, and commits.
  func testAReadFailingInsideAClientTransactionKeepsIt() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.model])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": .string(String(repeating: "a", count: 36)), "rank": 1]])
    let failing: JSONObject = [
      "entity": "Task", "where": .string(TestEngine.isPostgres ? "rank + 9223372036854775807 > 0" : "title MATCHES '(a|a)*c'"),
    ]
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    try insertNote(server, "outer")
    let outer = try server.callFailing("query.fetch", failing)
    // protocol.md (PostgreSQL, numbers): integer arithmetic beyond 64 bits fails the statement, `storage` with sqlstate 22003.
    XCTAssertEqual(outer["data"]?["kind"], TestEngine.isPostgres ? "storage" : "predicate", "\(outer)")
    XCTAssertEqual(try notes(server), ["outer"], "the failed read undid the client's insert")
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 2)
    try insertNote(server, "inner")
    _ = try server.callFailing("query.fetch", failing)
    XCTAssertEqual(try notes(server), ["inner", "outer"])
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 1)
    try insertNote(server, "later")
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try notes(server), ["inner", "later", "outer"])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }
}
