import Foundation
import JSONCore
import TestSupport
import XCTest

/// protocol.md: a cancel read while a request runs interrupts its reading statement at
/// once, also one that has not started yet (its cancel was read before the statement was
/// sent or stepped) or that was still being prepared; and the cancel belongs to its
/// request: nothing after it (the next request, a live query's refresh) is interrupted.
///
/// The cancel is read at a point the test controls, never after a sleep: while the server
/// writes the request's work-done `begin` report (sent before the method runs) into a
/// stdout pipe of one page that the test does not read (the server reads its input while
/// it waits to write: `waitUntilInputIsRead`); on PostgreSQL also while the statement's
/// preparation waits for a lock a psql session holds (seen waiting in `pg_locks`).
final class CancelBeforeReadTests: XCTestCase {
  static let model = schema(entity("Task", [attr("title", "string"), attr("rank", "int", default: 0)]))

  /// A work-done token longer than the pipe, so that the `begin` report cannot be written whole.
  static let longToken = JSONValue.string("begin-" + String(repeating: "b", count: 9000))

  /// Sends `query.count` with the long token into a pipe of one page and waits until the
  /// pipe is full: the server is writing the `begin` report (the request is running, its
  /// statement not started), and reads what the test writes next while it waits.
  private func sendHeldAtBegin(_ server: ServerProcess) throws -> JSONValue {
    let capacity = server.limitOutputPipe()
    let id = server.sendRequest("query.count", ["entity": "Task", "workDoneToken": Self.longToken])
    let deadline = Date().addingTimeInterval(60)  // a bound for failures only
    while server.unreadOutput < capacity {
      guard Date() < deadline else {
        XCTFail("the server never filled its output pipe; stderr: \(server.stderr)")
        break
      }
      usleep(1_000)
    }
    return id
  }

  /// Sends `query.count` with the long token and, once the server is held writing its
  /// `begin` report, a cancel of it; returns the reply.
  private func cancelAtBegin(_ server: ServerProcess) throws -> JSONObject {
    let id = try sendHeldAtBegin(server)
    server.sendNotification("$/cancelRequest", ["id": id])
    XCTAssertTrue(server.waitUntilInputIsRead(), "the server did not read the cancel; stderr: \(server.stderr)")
    let begin = try XCTUnwrap(try server.readReply(timeout: 60), "no begin report; stderr: \(server.stderr)")
    XCTAssertEqual(begin["params"]?["value"]?["kind"], "begin", "\(begin)")
    while true {
      let message = try XCTUnwrap(try server.readReply(timeout: 60), "no reply; stderr: \(server.stderr)")
      if message["method"] == "$/progress" { continue }
      XCTAssertEqual(message["id"], id, "\(message)")
      return message
    }
  }

  /// The count's statement has not started when the cancel is read: it is not run at all.
  /// The next request, the same count, is not interrupted by what is left of the cancel.
  func testACancelReadBeforeTheStatementStartsInterruptsIt() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.model])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "a"]])
    // Run once: the statement is prepared (and cached) before the cancelled request.
    XCTAssertEqual(try server.call("query.count", ["entity": "Task"])["count"], 1)
    let reply = try cancelAtBegin(server)
    XCTAssertNil(reply["result"], "the cancelled count ran to its end")
    XCTAssertEqual(reply.errorCode, -32800, "\(reply)")
    XCTAssertEqual(reply.errorKind, "cancelled")
    XCTAssertEqual(try server.call("query.count", ["entity": "Task"])["count"], 1, "a request after a cancelled one was interrupted")
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 0)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A live query's refresh after a cancelled request (another server committed while the
  /// request was held) runs and notifies: the cancel's flag ended with its request.
  func testALiveQueryRefreshAfterACancelledRequestIsNotInterrupted() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.store("live.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": Self.model])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "a"]])
    let observed = try server.call("query.observe", ["entity": "Task", "sort": ["title"], "select": ["title"]])
    let subscription = try XCTUnwrap(observed["subscription"])
    let other = try ServerProcess(arguments: ["serve", "--store", path])

    let id = try sendHeldAtBegin(server)
    // The other server's commit lands while the count is held at its begin report.
    let inserted = try XCTUnwrap(try other.call("objects.insert", ["entity": "Task", "values": ["title": "b"]])["_id"])
    server.sendNotification("$/cancelRequest", ["id": id])
    XCTAssertTrue(server.waitUntilInputIsRead(), "the server did not read the cancel; stderr: \(server.stderr)")
    var messages: [JSONObject] = []
    while messages.last?["method"] != "query/changed" {
      let message = try XCTUnwrap(try server.readReply(timeout: 60), "no query/changed; stderr: \(server.stderr)")
      if message["method"] != "$/progress" { messages.append(message) }
    }
    XCTAssertEqual(messages.count, 2, "the refresh did not follow the cancelled request's reply: \(messages)")
    XCTAssertEqual(messages.first?["id"], id)
    XCTAssertEqual(messages.first?.errorCode, -32800, "\(messages)")
    let changed = try XCTUnwrap(messages.last)
    XCTAssertEqual(changed["params"]?["subscription"], subscription)
    XCTAssertTrue("\(changed)".contains("\(inserted)"), "the refresh missed the other server's insert: \(changed)")
    XCTAssertFalse(server.stderr.contains("reading the history failed"), "a refresh was interrupted: \(server.stderr)")
    other.closeInput()
    XCTAssertEqual(other.waitForExit(), 0)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// PostgreSQL: a cancel read while the count's statement is still being prepared (its
  /// first time on the connection, the preparation waiting for a table lock) cancels it.
  func testACancelReadWhileTheStatementIsPreparedInterruptsIt() throws {
    guard TestEngine.isPostgres else { throw XCTSkip("a statement's preparation waits for a lock on PostgreSQL only") }
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.model])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "a"]])
    let params: JSONObject = ["entity": "Task", "where": "title == 'a'"]
    let held = try XCTUnwrap(try server.hold("query.count", params, cpu: 0, table: "Task"))
    server.sendNotification("$/cancelRequest", ["id": held.id])
    held.release()
    let reply = try server.reply(to: held.id)
    XCTAssertNil(reply["result"], "the count prepared under the cancel ran to its end")
    XCTAssertEqual(reply.errorCode, -32800, "\(reply)")
    XCTAssertEqual(reply.errorKind, "cancelled")
    XCTAssertEqual(try server.call("query.count", params)["count"], 1, "a request after a cancelled one was interrupted")
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 0)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A read cancelled inside a client transaction (at its begin report, or on PostgreSQL
  /// while its statement's preparation waits for a lock, which the cancel stops at once:
  /// the reply comes while the lock is still held) fails alone: the transaction stays open
  /// with its earlier work, and commits it.
  func testACancelledReadKeepsTheClientTransaction() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.twoTables])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "a"]])
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    _ = try server.call("objects.insert", ["entity": "Note", "values": ["text": "uncommitted"]])
    let reply: JSONObject
    if TestEngine.isPostgres {
      // A table this transaction has not touched: a write transaction on PostgreSQL asks
      // the first keys of the tables the server inserted into before (Task, Note) right
      // after its lock, which holds their locks until it ends.
      let held = try XCTUnwrap(try server.hold("query.count", ["entity": "Tag"], cpu: 0, table: "Tag"))
      server.sendNotification("$/cancelRequest", ["id": held.id])
      reply = try server.reply(to: held.id)
      held.release()
    } else {
      reply = try cancelAtBegin(server)
    }
    try assertCancelledKeepingTheTransaction(server, reply)
  }

  /// On PostgreSQL, a read that is already running (its statement prepared before, its
  /// execution waiting for a lock) cancelled inside a client transaction is cancelled on
  /// the server at once, under a savepoint of its own: its request ends `cancelled` while
  /// the lock is still held (it once ran to its end, because cancelling it failed the
  /// transaction and its recovery undid the client's level), and the client's transaction
  /// keeps its work and commits.
  func testARunningReadCancelledInsideAClientTransactionKeepsIt() throws {
    guard TestEngine.isPostgres else { throw XCTSkip("a running read waits for a lock this way on PostgreSQL only") }
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.twoTables])
    // Prepared on the connection first: the held request waits in its execution.
    XCTAssertEqual(try server.call("query.count", ["entity": "Tag"])["count"], 0)
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    _ = try server.call("objects.insert", ["entity": "Note", "values": ["text": "uncommitted"]])
    let held = try XCTUnwrap(try server.hold("query.count", ["entity": "Tag"], cpu: 0, table: "Tag"))
    server.sendNotification("$/cancelRequest", ["id": held.id])
    // Read while psql still holds the table's lock: the cancel stopped the read.
    let reply = try server.reply(to: held.id)
    held.release()
    try assertCancelledKeepingTheTransaction(server, reply)
  }

  /// `reply` is `cancelled`, and the client transaction around it (one uncommitted Note)
  /// is still open with its work, and commits it.
  private func assertCancelledKeepingTheTransaction(_ server: ServerProcess, _ reply: JSONObject) throws {
    XCTAssertEqual(reply.errorCode, -32800, "\(reply)")
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 1, "the cancel ended the client's transaction")
    XCTAssertEqual(try server.call("query.count", ["entity": "Note"])["count"], 1, "the client's uncommitted insert vanished")
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try server.call("query.count", ["entity": "Note"])["count"], 1)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  static let twoTables = schema(
    entity("Task", [attr("title", "string"), attr("rank", "int", default: 0)]), entity("Note", [attr("text", "string")]),
    entity("Tag", [attr("name", "string")]))
}
