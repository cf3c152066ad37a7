import Foundation
import JSONCore
import TestSupport
import XCTest

/// `$/cancelRequest` for a request that is running (a long scan, a long per-object write
/// loop, an import inside a client transaction, an export), for one still waiting in the
/// queue, and for ids it must not reach.
///
/// No outcome depends on how fast the machine is or how the scheduler runs the processes.
/// A request is provably running when its cancel is read in one of two ways:
/// - held at a report: a request that reports `$/progress` every 1000 objects writes each
///   report before it goes on, into a stdout pipe of one page the test stops reading
///   (`ServerProcess.limitOutputPipe`), so it waits there, mid-work, until the test reads;
///   the cancel is sent and read meanwhile (`waitUntilInputIsRead`);
/// - stopped midway: the server is stopped (SIGSTOP) once it has spent a small share of
///   the CPU time the whole request takes, with no reply written yet; the cancel is
///   written while it is stopped, so it is read within microseconds of work after it
///   resumes, when most of the work is still ahead (CPU time, unlike wall-clock time, does
///   not grow while a process waits for the processor). On PostgreSQL, where the work is
///   the database server's, the request's statement waits instead for a lock that a psql
///   session of the test holds on the table (seen waiting in `pg_locks`), and the lock is
///   let go once the cancel has been read.
final class CancellationTests: XCTestCase {
  /// A predicate that folds every title (case and diacritics) in Swift, so that a full
  /// scan is slow; it matches every row.
  static let slowPredicate: JSONValue = #"title CONTAINS[cd] "def""#

  /// A server holding enough rows that counting them with `slowPredicate` takes the
  /// server at least 0.4 s of CPU time, and how much it takes.
  struct LongScan {
    let server: ServerProcess
    let rows: Int
    let cpu: TimeInterval
  }

  private func insertRows(_ server: ServerProcess, from start: Int, count: Int) throws {
    let filler = String(repeating: "Äbc déf ghi jkl ", count: 20)
    let changes: [JSONValue] = (start..<(start + count)).map { i in
      ["op": "insert", "entity": "Item", "values": ["title": .string("Item \(i) \(filler)"), "n": .int(Int64(i))]]
    }
    _ = try server.call("context.save", ["changes": .array(changes)], timeout: 120)
  }

  private func makeLongScan() throws -> LongScan {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    var rows = 6000
    try insertRows(server, from: 0, count: rows)
    func count() throws -> (Int64?, TimeInterval) {
      try server.cpuSpent {
        try server.call("query.count", ["entity": "Item", "where": Self.slowPredicate], timeout: 120)["count"]?.intValue
      }
    }
    var (n, cpu) = try count()
    while cpu < 0.4 && rows < 400_000 {
      try insertRows(server, from: rows, count: rows)
      rows *= 2
      (n, cpu) = try count()
    }
    XCTAssertEqual(n, Int64(rows))
    print("CancellationTests: counting \(rows) rows with \(Self.slowPredicate) takes \(Int(cpu * 1000)) ms of CPU")
    return LongScan(server: server, rows: rows, cpu: cpu)
  }

  /// After a cancelled request the store has every row, passes its check, and the same
  /// (cached) query runs again.
  private func assertStoreIntact(_ scan: LongScan, file: StaticString = #filePath, line: UInt = #line) throws {
    let s = scan.server
    XCTAssertEqual(try s.call("query.count", ["entity": "Item"])["count"]?.intValue, Int64(scan.rows), file: file, line: line)
    let some = try s.call("query.fetch", ["entity": "Item", "where": Self.slowPredicate, "limit": 3])
    XCTAssertEqual(some["objects"]?.arrayValue?.count, 3, file: file, line: line)
    XCTAssertEqual(try s.call("store.check", timeout: 60)["ok"], true, file: file, line: line)
    XCTAssertEqual(try s.call("store.info")["openTransactions"], 0, file: file, line: line)
  }

  // MARK: - Held while it runs (stopped midway, or waiting for a lock)

  /// The reply to `method` cancelled while it provably runs (see the class's comment); nil
  /// when an attempt on SQLite must start again.
  private func cancelRunning(
    _ server: ServerProcess, _ method: String, _ params: JSONObject, cpu: TimeInterval, file: StaticString = #filePath, line: UInt = #line
  ) throws -> JSONObject? {
    try server.cancelWhileRunning(method, params, cpu: cpu, table: "Item", file: file, line: line)
  }

  /// Runs `body` with a fresh long scan until `cancelRunning` in it gets a reply (a few
  /// times at most: only a test that waits long for the processor starts again). On
  /// PostgreSQL a small store: the lock holds the request, however short.
  private func withLongScan(_ body: (LongScan) throws -> Bool) throws {
    if TestEngine.isPostgres {
      let server = try ServerProcess()
      _ = try server.call("model.define", ["schema": itemSchema])
      try insertRows(server, from: 0, count: 2000)
      // The count's and the fetch's statements are prepared now, so that under the lock it
      // is their execution that waits. (A cancel read while it is still being prepared, waiting for the lock,
      // cancels it too: CancelBeforeReadTests.)
      XCTAssertEqual(try server.call("query.count", ["entity": "Item", "where": Self.slowPredicate])["count"], 2000)
      XCTAssertEqual(try server.call("query.fetch", ["entity": "Item", "where": Self.slowPredicate])["objects"]?.arrayValue?.count, 2000)
      XCTAssertTrue(try body(LongScan(server: server, rows: 2000, cpu: 0)))
      return
    }
    for _ in 1...3 where try body(try makeLongScan()) { return }
    XCTFail("no attempt stopped the server before half of its work")
  }

  /// A count and a fetch (whose rows are streamed; on PostgreSQL its snapshot's opening
  /// goes in the same round trip as its statement), each cancelled while it runs.
  func testCancellingARunningQuery() throws {
    try withLongScan { scan in
      let server = scan.server
      for method in ["query.count", "query.fetch"] {
        guard let reply = try cancelRunning(server, method, ["entity": "Item", "where": Self.slowPredicate], cpu: scan.cpu) else {
          return false
        }
        XCTAssertNil(reply["result"], "the cancelled \(method) completed anyway")
        XCTAssertEqual(reply.errorCode, -32800, "\(reply["error"] ?? .null)")
        XCTAssertEqual(reply.errorKind, "cancelled")
        try assertStoreIntact(scan)
      }
      server.closeInput()
      XCTAssertEqual(server.waitForExit(), 0)
      return true
    }
  }

  func testCancellingARunningDeleteWhereChangesNothing() throws {
    try withLongScan { scan in
      let server = scan.server
      // deleteWhere evaluates the predicate on every row (a count's work) and then deletes.
      guard let reply = try cancelRunning(server, "objects.deleteWhere", ["entity": "Item", "where": Self.slowPredicate], cpu: scan.cpu)
      else {
        return false
      }
      XCTAssertEqual(reply.errorCode, -32800, "\(reply["result"]?["count"] ?? reply["error"] ?? .null)")
      XCTAssertEqual(reply.errorKind, "cancelled")
      try assertStoreIntact(scan)
      // Writes still work afterwards.
      XCTAssertEqual(try server.call("objects.deleteWhere", ["entity": "Item", "where": "n == 0"])["count"], 1)
      XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"]?.intValue, Int64(scan.rows - 1))
      server.closeInput()
      XCTAssertEqual(server.waitForExit(), 0)
      return true
    }
  }

  /// A server holding enough rows that updating all of them (one short UPDATE per row)
  /// takes it at least 0.3 s of CPU, the rows, and that time.
  private func makeLongUpdate() throws -> (ServerProcess, Int, TimeInterval) {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    var rows = 0
    var cpu: TimeInterval = 0
    while cpu < 0.3 && rows < 320_000 {
      let more = max(rows, 20_000)
      let changes: [JSONValue] = (rows..<(rows + more)).map { i in
        ["op": "insert", "entity": "Item", "values": ["title": .string("row \(i)"), "n": .int(Int64(i))]]
      }
      _ = try server.call("context.save", ["changes": .array(changes)], timeout: 120)
      rows += more
      // Every row gets a new value (so no update is skipped as unchanged).
      let (updated, spent) = try server.cpuSpent {
        try server.call("objects.updateWhere", ["entity": "Item", "where": "n >= 0", "values": ["n": .int(Int64(rows))]], timeout: 120)
      }
      cpu = spent
      XCTAssertEqual(updated["count"]?.intValue, Int64(rows))
      if TestEngine.isPostgres { break }  // held by a lock there
    }
    print("CancellationTests: updateWhere over \(rows) rows takes \(Int(cpu * 1000)) ms of CPU")
    return (server, rows, cpu)
  }

  /// A write whose time goes into its per-object loop (one short UPDATE per row): the
  /// cancel is honoured between statements too, and none of its changes are kept.
  func testCancellingALongUpdateWhere() throws {
    for _ in 1...3 {
      let (server, rows, cpu) = try makeLongUpdate()
      guard
        let reply = try cancelRunning(server, "objects.updateWhere", ["entity": "Item", "where": "n >= 0", "values": ["n": -5]], cpu: cpu)
      else {
        continue
      }
      XCTAssertEqual(
        reply.errorCode, -32800, "the cancel was ignored: updateWhere completed (\(reply["result"]?["count"] ?? reply["error"] ?? .null))")
      XCTAssertEqual(reply.errorKind, "cancelled")
      XCTAssertEqual(
        try server.call("query.count", ["entity": "Item", "where": "n == -5"])["count"], 0, "the cancelled update left changes")
      XCTAssertEqual(
        try server.call("query.count", ["entity": "Item", "where": "n == %@", "args": [.int(Int64(rows))]])["count"]?.intValue, Int64(rows))
      XCTAssertEqual(try server.call("store.info")["openTransactions"], 0)
      XCTAssertEqual(try server.call("store.check")["ok"], true)
      server.closeInput()
      XCTAssertEqual(server.waitForExit(), 0)
      return
    }
    XCTFail("no attempt stopped the server before half of its work")
  }

  // MARK: - Held at a report

  /// A progress token of about a kilobyte: each report is that long.
  static let longToken = JSONValue.string("held-" + String(repeating: "r", count: 1000))

  /// Sends `method` (which reports `$/progress` every 1000 of its `objects`) into a stdout
  /// pipe of one page and reads its first report: it is running, and from now on it can
  /// write at most a pipe more, less than the reports due before it ends, so it waits at
  /// one of them until the test reads again. Returns the request's id.
  private func sendHeld(
    _ server: ServerProcess, _ method: String, _ params: JSONObject, objects: Int, file: StaticString = #filePath, line: UInt = #line
  )
    throws -> JSONValue
  {
    let capacity = server.limitOutputPipe()
    var params = params
    params["progressToken"] = Self.longToken
    let id = server.sendRequest(method, params)
    let first = try XCTUnwrap(try server.readReply(timeout: 60), "no progress; stderr: \(server.stderr)", file: file, line: line)
    XCTAssertEqual(first["method"], "$/progress", "expected a report before the reply: \(first)", file: file, line: line)
    let reportBytes = JSONWriter.encodeString(.object(first)).utf8.count + 1
    // What was read with the first report (at most a pipe) and a pipe more.
    XCTAssertGreaterThan(reportBytes * (objects / 1000 - 1), 2 * capacity, "too few reports to hold \(method)", file: file, line: line)
    return id
  }

  /// Tags written to an import file, and the file's header (the store's export header).
  private func importFile(_ server: ServerProcess, _ dir: TemporaryDirectory, count: Int) throws -> String {
    let exported = try XCTUnwrap(try server.call("export.json", ["format": "ndjson", "entities": ["Tag"]])["data"]?.stringValue)
    var text = String(exported.split(separator: "\n", maxSplits: 1)[0]) + "\n"
    for i in 1...count { text += "{\"_id\":\"Tag/\(i)\",\"_entity\":\"Tag\",\"name\":\"imported \(i)\"}\n" }
    let path = dir.file("tags.ndjson")
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return path
  }

  /// Many-to-many posts and tags.
  static let postTagSchema: JSONValue = try! JSONParser.parse(
    """
    {"version":"1","entities":[
     {"name":"Post","attributes":[{"name":"title","type":"string"}],
      "relationships":[{"name":"tags","destination":"Tag","inverse":"posts","toMany":true,"deleteRule":"nullify"}]},
     {"name":"Tag","attributes":[{"name":"name","type":"string"}],
      "relationships":[{"name":"posts","destination":"Post","inverse":"tags","toMany":true,"deleteRule":"nullify"}]}]}
    """)

  /// A cancelled write inside a client transaction undoes only its own changes: the
  /// client's transaction, with its earlier uncommitted insert, stays open and commits.
  /// (SQLite rolls back the whole transaction when a write statement is interrupted, so
  /// the server must not let that happen, or must notice it.) The write is an import held
  /// at one of its reports while the cancel is read, after thousands of its rows went in.
  func testCancelledWriteKeepsTheClientTransaction() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.postTagSchema])
    let post = try XCTUnwrap(try server.call("objects.insert", ["entity": "Post", "values": ["title": "kept"]])["_id"])
    let objects = 30_000
    let file = try importFile(server, dir, count: objects)

    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    _ = try server.call("objects.insert", ["entity": "Tag", "values": ["name": "uncommitted", "posts": [post]]])
    let id = try sendHeld(server, "import.json", ["path": .string(file)], objects: objects)
    server.sendNotification("$/cancelRequest", ["id": id])
    XCTAssertTrue(server.waitUntilInputIsRead(), "the server did not read the cancel; stderr: \(server.stderr)")
    let reply = try server.reply(to: id)
    XCTAssertEqual(reply.errorCode, -32800, "the held import was not cancelled: \(reply)")
    XCTAssertEqual(reply.errorKind, "cancelled")

    XCTAssertEqual(try server.call("store.info")["openTransactions"], 1, "the cancel ended the client's transaction")
    XCTAssertEqual(
      try server.call("query.count", ["entity": "Tag", "where": "name == 'uncommitted'"])["count"], 1,
      "the client's uncommitted insert vanished")
    XCTAssertEqual(try server.call("query.count", ["entity": "Tag"])["count"], 1, "the cancelled import left rows")
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try server.call("objects.get", ["id": post, "toMany": "count"])["tags"], 1)
    XCTAssertEqual(try server.call("query.count", ["entity": "Tag"])["count"], 1)
    // The same import, not cancelled, runs to its end afterwards.
    let again = try server.call("import.json", ["path": .string(file)], timeout: 120)
    XCTAssertEqual(again["inserted"]?.intValue, Int64(objects))
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A server with 20,000 items, exporting them to a file of `dir`, held at a report: the
  /// server, the export's id, the file and the items.
  private func heldExport(_ dir: TemporaryDirectory) throws -> (ServerProcess, JSONValue, String, Int) {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    let rows = 20_000
    try insertRows(server, from: 0, count: rows)
    let out = dir.file("out.ndjson")
    let id = try sendHeld(server, "export.json", ["format": "ndjson", "path": .string(out)], objects: rows)
    return (server, id, out, rows)
  }

  /// A reading request held at a report is cancelled, and the file it was writing removed.
  func testCancellingARunningExportRemovesItsFile() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (server, id, out, rows) = try heldExport(dir)
    server.sendNotification("$/cancelRequest", ["id": id])
    XCTAssertTrue(server.waitUntilInputIsRead(), "the server did not read the cancel; stderr: \(server.stderr)")
    let reply = try server.reply(to: id)
    XCTAssertEqual(reply.errorCode, -32800, "the held export was not cancelled: \(reply)")
    XCTAssertEqual(reply.errorKind, "cancelled")
    XCTAssertFalse(FileManager.default.fileExists(atPath: out), "the cancelled export left its file")
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"]?.intValue, Int64(rows))
    XCTAssertEqual(
      try server.call("export.json", ["format": "ndjson", "path": .string(out)], timeout: 120)["objects"]?.intValue, Int64(rows))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A request read while another runs waits in the queue; a cancel read before it starts
  /// answers it without running it, and the running one is not affected.
  func testCancellingAQueuedRequest() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (server, longID, _, rows) = try heldExport(dir)
    // Queued behind the held export (the server reads its input while it waits), then
    // cancelled before it starts.
    let queuedID: JSONValue = "queued-request"
    server.sendRaw(
      Data(
        (requestLine(queuedID, "query.count", ["entity": "Item"]) + "\n" + notificationLine("$/cancelRequest", ["id": queuedID]) + "\n"
          + requestLine("after", "store.info") + "\n").utf8))
    XCTAssertTrue(server.waitUntilInputIsRead(), "the server did not read the queued requests; stderr: \(server.stderr)")
    let first = try server.reply(to: longID)
    XCTAssertEqual(first["result"]?["objects"]?.intValue, Int64(rows), "the running request was not the one cancelled: \(first)")
    let second = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(second["id"], queuedID)
    XCTAssertEqual(second.errorCode, -32800, "\(second)")
    XCTAssertEqual(second.errorKind, "cancelled")
    let third = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(third["id"], "after")
    XCTAssertNotNil(third["result"])

    // Cancelling ids that are unknown or already answered is silent and harmless.
    server.sendNotification("$/cancelRequest", ["id": 987_654])
    server.sendNotification("$/cancelRequest", ["id": longID])
    server.sendNotification("$/cancelRequest", ["id": "never-sent"])
    XCTAssertEqual(try server.call("query.count", ["entity": "Item", "where": "n < 10"])["count"], 10)
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// protocol.md: a cancel reaches only a request read before it; a later request that
  /// reuses the id (or one sent after the answer) is not affected.
  func testCancelReachesOnlyRequestsReadBeforeIt() throws {
    let server = try ServerProcess()
    server.sendRaw(Data((notificationLine("$/cancelRequest", ["id": "early"]) + "\n" + requestLine("early", "store.check") + "\n").utf8))
    let early = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(early["id"], "early")
    XCTAssertEqual(early["result"]?["ok"], true, "a cancel read before the request cancelled it: \(early)")
    // Cancel an answered request, then reuse its id.
    XCTAssertNotNil(try server.request("store.info")["result"])
    let reused = server.sendRequest("store.check", id: 500)
    XCTAssertEqual(try server.readReply()?["id"], reused)
    server.sendNotification("$/cancelRequest", ["id": 500])
    let again = try server.request("store.check")
    XCTAssertNotNil(again["result"])
    server.sendRequest("store.check", id: 500)
    let second = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(second["id"], 500)
    XCTAssertEqual(second["result"]?["ok"], true, "a stale cancel hit a later request reusing the id: \(second)")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }
}
