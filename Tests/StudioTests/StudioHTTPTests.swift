import Foundation
import JSONCore
import TestSupport
import XCTest

/// `modelstore studio` end to end: the binary serving a store file, spoken to with curl.
/// Every refusal leaves the store as it was; the protocol over HTTP is the protocol of
/// `serve`; a page's event stream carries the live-query updates of another process's
/// commits. Nothing waits on time: each step waits for the reply or event it needs.
final class StudioHTTPTests: XCTestCase {
  private var dir: TemporaryDirectory!
  private var store: String { dir.file("notes.store") }

  static let schema = """
    {"version":"1","entities":[{"name":"Note","attributes":[{"name":"title","type":"string","indexed":true}]}]}
    """

  override func setUpWithError() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { throw XCTSkip("curl is not installed at /usr/bin/curl") }
    dir = try TemporaryDirectory("modelstore-studio")
    try Self.writeNotes(store)
  }

  /// A store with one note ("first"), written by `serve` (another process, as a page's app would be).
  static func writeNotes(_ path: String) throws {
    let r = try runModelstore(
      ["serve", "--store", path],
      input: """
        {"jsonrpc":"2.0","id":1,"method":"model.define","params":{"schema":\(Self.schema)}}
        {"jsonrpc":"2.0","id":2,"method":"objects.insert","params":{"entity":"Note","values":{"title":"first"}}}

        """)
    XCTAssertEqual(r.status, 0, r.stderr)
  }

  override func tearDown() { dir?.remove() }

  /// The notes' titles, read by another process.
  private func titles() throws -> [String] {
    let r = try runModelstore(["query", store, "Note", "--sort", "title", "--format", "json"])
    XCTAssertEqual(r.status, 0, r.stderr)
    return (try JSONParser.parse(r.stdout).arrayValue ?? []).compactMap { $0["title"]?.stringValue }
  }

  func testRequestsWithoutTheTokenOrFromElsewhereAreRefused() throws {
    let studio = try StudioProcess(["--store", store])
    let insert = #"{"jsonrpc":"2.0","id":1,"method":"objects.insert","params":{"entity":"Note","values":{"title":"evil"}}}"#
    let events = try StudioProcess.Events(studio)
    let session = ["ModelStore-Session: \(events.session)"]
    let refused: [(String, StudioProcess.Response, Int)] = [
      ("no token", try studio.request("POST", "/rpc", token: false, headers: session, body: insert), 403),
      (
        "wrong token",
        try studio.request("POST", "/rpc?token=\(String(repeating: "0", count: 64))", token: false, headers: session, body: insert), 403
      ),
      (
        "a token in a cookie of another port",
        try studio.request("POST", "/rpc", token: false, headers: session + ["Cookie: modelstore-studio-1=\(studio.token)"], body: insert),
        403
      ),
      ("foreign Host", try studio.request("POST", "/rpc", headers: session + ["Host: rebound.example:\(studio.port)"], body: insert), 421),
      ("Host on another port", try studio.request("GET", "/", headers: ["Host: 127.0.0.1:1"]), 421),
      ("foreign Origin", try studio.request("POST", "/rpc", headers: session + ["Origin: http://evil.example"], body: insert), 403),
      ("Origin of another port", try studio.request("POST", "/rpc", headers: session + ["Origin: http://127.0.0.1:1"], body: insert), 403),
      ("Origin null", try studio.request("POST", "/rpc", headers: session + ["Origin: null"], body: insert), 403),
      ("cross-site fetch", try studio.request("POST", "/rpc", headers: session + ["Sec-Fetch-Site: cross-site"], body: insert), 403),
      ("text/plain", try studio.request("POST", "/rpc", headers: session, body: insert, contentType: "text/plain"), 415),
      ("a form", try studio.request("POST", "/rpc", headers: session, body: "a=1", contentType: "application/x-www-form-urlencoded"), 415),
      ("no session", try studio.request("POST", "/rpc", body: insert), 400),
      ("unknown session", try studio.request("POST", "/rpc", headers: ["ModelStore-Session: 00"], body: insert), 404),
      ("GET /rpc", try studio.request("GET", "/rpc"), 405),
      ("unknown path", try studio.request("GET", "/etc/passwd"), 404),
      ("path outside the assets", try studio.request("GET", "/assets/../Package.swift"), 404),
    ]
    for (what, response, status) in refused {
      XCTAssertEqual(response.status, status, "\(what): \(response.text)")
      XCTAssertEqual(response.headers["x-content-type-options"], "nosniff", what)
    }
    // Events without the token start no session.
    XCTAssertEqual(try studio.request("GET", "/events", token: false).status, 403)
    // A body over the limit (16 MiB) is refused before it is read.
    let big = try studio.request("POST", "/rpc", headers: session + ["Content-Length: \(17 << 20)"], body: "{}")
    XCTAssertEqual(big.status, 413, big.text)
    XCTAssertEqual(try titles(), ["first"], "no refused request changed the store")
    // The same request, allowed, writes (localhost is this host too).
    let allowed = try studio.request(
      "POST", "/rpc", headers: session + ["Host: localhost:\(studio.port)", "Origin: http://localhost:\(studio.port)"], body: insert)
    XCTAssertEqual(allowed.status, 200, allowed.text)
    XCTAssertEqual(allowed.json?["result"]?["title"], "evil")
    XCTAssertEqual(try titles(), ["evil", "first"])
    XCTAssertEqual(studio.stop(), 0)
  }

  func testTheFirstLoadMovesTheTokenIntoACookieAndThePageComesFromTheBinary() throws {
    let studio = try StudioProcess(["--store", store])
    let first = try studio.request("GET", "/")
    XCTAssertEqual(first.status, 303)
    XCTAssertEqual(first.headers["location"], "/")
    XCTAssertEqual(first.headers["set-cookie"], "modelstore-studio-\(studio.port)=\(studio.token); Path=/; HttpOnly; SameSite=Strict")
    let cookie = "Cookie: modelstore-studio-\(studio.port)=\(studio.token)"
    let page = try studio.request("GET", "/", token: false, headers: [cookie])
    XCTAssertEqual(page.status, 200)
    XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
    let index = try Data(contentsOf: ServerProcess.repositoryRoot.appendingPathComponent("Studio/index.html"))
    XCTAssertEqual(Data(page.body), index)
    XCTAssertTrue(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
    XCTAssertEqual(page.headers["x-frame-options"], "DENY")
    XCTAssertEqual(page.headers["cache-control"], "no-cache")
    let etag = try XCTUnwrap(page.headers["etag"])
    let again = try studio.request("GET", "/assets/index.html", token: false, headers: [cookie, "If-None-Match: \(etag)"])
    XCTAssertEqual(again.status, 304)
    XCTAssertEqual(try studio.request("GET", "/", token: false, headers: [cookie, "Origin: http://127.0.0.1:\(studio.port)"]).status, 200)
    XCTAssertEqual(studio.stop(), 0)
  }

  func testTheProtocolOverHTTPAndALiveQueryFollowingAnotherProcess() throws {
    let studio = try StudioProcess(["--store", store])
    let page = try StudioProcess.Events(studio)
    // A batch: a request and a notification; the reply is the request's.
    let batch = try studio.rpc(
      page.session,
      #"[{"jsonrpc":"2.0","id":"a","method":"query.count","params":{"entity":"Note"}},{"jsonrpc":"2.0","method":"initialized"}]"#)
    XCTAssertEqual(batch.status, 200)
    XCTAssertEqual(batch.headers["content-type"], "application/json")
    XCTAssertEqual(batch.json?.arrayValue?.first?["result"]?["count"], 1)
    // A notification alone: handled, no reply.
    XCTAssertEqual(try studio.rpc(page.session, #"{"jsonrpc":"2.0","method":"initialized"}"#).status, 204)
    // Errors are the protocol's.
    let bad = try studio.rpc(
      page.session, #"{"jsonrpc":"2.0","id":2,"method":"query.fetch","params":{"entity":"Note","where":"title =="}}"#)
    XCTAssertEqual(bad.json?["error"]?["data"]?["kind"], "predicate")
    XCTAssertEqual(try studio.rpc(page.session, "{").json?["error"]?["code"], -32700)

    let observe = try studio.rpc(
      page.session, #"{"jsonrpc":"2.0","id":3,"method":"query.observe","params":{"entity":"Note","sort":["title"]}}"#)
    XCTAssertEqual(observe.json?["result"]?["subscription"], "q1", observe.text)
    XCTAssertEqual(observe.json?["result"]?["objects"]?.arrayValue?.count, 1)
    // Another process commits to the file: the page's stream brings the change.
    let writer = try ServerProcess(arguments: ["serve", "--store", store])
    XCTAssertEqual(try writer.call("objects.insert", ["entity": "Note", "values": ["title": "another"]])["title"], "another")
    let changed = try XCTUnwrap(try page.next(), "the stream ended: \(studio.process.stderr)")
    XCTAssertEqual(changed["method"], "query/changed")
    XCTAssertEqual(changed["params"]?["subscription"], "q1")
    XCTAssertEqual(changed["params"]?["inserted"]?.item(0)?["index"], 0)
    XCTAssertEqual(changed["params"]?["inserted"]?.item(0)?["object"]?["title"], "another")
    writer.closeInput()
    XCTAssertEqual(writer.waitForExit(), 0)
    XCTAssertEqual(studio.stop(), 0)
  }

  func testEachPageHasItsOwnSession() throws {
    let studio = try StudioProcess(["--store", store, "--log-level", "info"])
    let a = try StudioProcess.Events(studio)
    let b = try StudioProcess.Events(studio)
    XCTAssertNotEqual(a.session, b.session)
    XCTAssertEqual(try studio.rpc(a.session, #"{"jsonrpc":"2.0","id":1,"method":"transaction.begin"}"#).json?["result"]?["depth"], 1)
    let insert = #"{"jsonrpc":"2.0","id":2,"method":"objects.insert","params":{"entity":"Note","values":{"title":"draft"}}}"#
    XCTAssertNotNil(try studio.rpc(a.session, insert).json?["result"])
    let count = #"{"jsonrpc":"2.0","id":3,"method":"query.count","params":{"entity":"Note"}}"#
    XCTAssertEqual(try studio.rpc(a.session, count).json?["result"]?["count"], 2, "a sees its own transaction")
    XCTAssertEqual(try studio.rpc(b.session, count).json?["result"]?["count"], 1, "b does not")
    // Closing a's stream (the page went away) ends its session at once: its transaction is
    // rolled back and the write lock it held released, so another process writes.
    a.close()
    XCTAssertTrue(studio.waitForLog("session \(a.session) ended"), studio.process.stderr)
    let writer = try ServerProcess(arguments: ["serve", "--store", store])
    XCTAssertNotNil(try writer.call("objects.insert", ["entity": "Note", "values": ["title": "second"]])["_id"])
    writer.closeInput()
    XCTAssertEqual(writer.waitForExit(), 0)
    XCTAssertEqual(try titles(), ["first", "second"])
    XCTAssertEqual(try studio.rpc(b.session, count).json?["result"]?["count"], 2)
    XCTAssertEqual(try studio.rpc(a.session, count).status, 404, "a's session is gone")
    XCTAssertEqual(studio.stop(), 0)
  }

  func testReadOnlyRefusesEveryWrite() throws {
    let studio = try StudioProcess(["--store", store, "--read-only"])
    let page = try StudioProcess.Events(studio)
    for (method, params) in [
      ("objects.insert", #"{"entity":"Note","values":{"title":"x"}}"#),
      ("objects.deleteWhere", #"{"entity":"Note","where":"TRUEPREDICATE"}"#),
      ("context.save", #"{"changes":[{"op":"delete","id":"Note/1"}]}"#), ("model.define", #"{"schema":{"version":"2","entities":[]}}"#),
      ("transaction.begin", "{}"),
    ] {
      let r = try studio.rpc(page.session, #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#)
      XCTAssertEqual(r.status, 200)
      XCTAssertEqual(r.json?["error"]?["code"], -32010, "\(method): \(r.text)")
      XCTAssertEqual(r.json?["error"]?["data"]?["kind"], "readOnly")
    }
    let fetch = try studio.rpc(page.session, #"{"jsonrpc":"2.0","id":2,"method":"query.fetch","params":{"entity":"Note"}}"#)
    XCTAssertEqual(fetch.json?["result"]?["objects"]?.item(0)?["title"], "first")
    XCTAssertEqual(try titles(), ["first"])
    XCTAssertEqual(studio.stop(), 0)
  }

  func testNothingOutsideTheStoreIsReachable() throws {
    let studio = try StudioProcess(["--store", store])
    let page = try StudioProcess.Events(studio)
    let outside = dir.file("outside.json")
    for (method, params) in [
      ("store.backup", #"{"to":"\#(outside)"}"#), ("export.json", #"{"path":"\#(outside)"}"#),
      ("import.json", #"{"path":"\#(store)"}"#), ("store.open", #"{"path":"\#(outside)"}"#), ("store.open", #"{"memory":true}"#),
      ("import.coreData", #"{"store":"\#(outside)"}"#), ("model.importXcdatamodel", #"{"path":"/etc"}"#),
      ("model.diagram", #"{"path":"/etc/passwd"}"#), ("model.generate", #"{"target":"python","path":"\#(outside)"}"#), ("shutdown", "{}"),
      ("exit", "{}"),
    ] {
      let r = try studio.rpc(page.session, #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#)
      XCTAssertEqual(r.json?["error"]?["code"], -32016, "\(method): \(r.text)")
      XCTAssertEqual(r.json?["error"]?["data"]?["kind"], "notAllowed")
    }
    XCTAssertFalse(dir.exists("outside.json"))
    // The session still serves its store; an inline export is no file.
    let export = try studio.rpc(page.session, #"{"jsonrpc":"2.0","id":2,"method":"export.json","params":{"format":"json"}}"#)
    XCTAssertEqual(export.json?["result"]?["objects"], 1, export.text)
    XCTAssertEqual(studio.stop(), 0)
  }

  func testACoreDataStoreIsServedReadOnlyInPlace() throws {
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed at \(sqlite3CLI.path)") }
    let source = dir.file("Tasks.sqlite")
    let made = try sqlite3(
      source,
      """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZTASK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDONE INTEGER, ZOWNER INTEGER, ZTITLE VARCHAR, ZDUE TIMESTAMP );
      CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
      INSERT INTO Z_PRIMARYKEY VALUES (1, 'Task', 0, 2), (2, 'Person', 0, 1);
      INSERT INTO Z_METADATA VALUES (1, '0B5C7D2E-9A41-4C3B-8E6F-112233445566', NULL);
      INSERT INTO ZTASK VALUES (1, 1, 1, 1, 1, 'Call Bob', 700000000.5), (2, 1, 1, 0, NULL, 'Buy milk', NULL);
      INSERT INTO ZPERSON VALUES (1, 2, 1, 'Ada');
      """)
    XCTAssertEqual(made.status, 0, made.stderr)
    let before = try Data(contentsOf: URL(fileURLWithPath: source))
    let studio = try StudioProcess(["--store", source, "--format", "coredata"])
    let page = try StudioProcess.Events(studio)
    let fetch = try studio.rpc(
      page.session, #"{"jsonrpc":"2.0","id":1,"method":"query.fetch","params":{"entity":"Task","sort":["title"]}}"#)
    XCTAssertEqual(fetch.json?["result"]?["objects"]?.item(1)?["title"], "Call Bob", fetch.text)
    XCTAssertEqual(fetch.json?["result"]?["objects"]?.item(1)?["due"], "2023-03-08T20:26:40.500Z")
    // Without the model, a column whose name is no entity's reads as what it holds.
    XCTAssertEqual(fetch.json?["result"]?["objects"]?.item(1)?["owner"], 1, fetch.text)
    XCTAssertEqual(fetch.json?["result"]?["objects"]?.item(1)?["done"], 1, fetch.text)
    let insert = try studio.rpc(page.session, #"{"jsonrpc":"2.0","id":2,"method":"objects.insert","params":{"entity":"Task","values":{}}}"#)
    XCTAssertEqual(insert.json?["error"]?["code"], -32010, insert.text)
    XCTAssertEqual(studio.stop(), 0)
    // With its model (--model), the page sees the model's types and relationships.
    let model = dir.file("Model.xcdatamodel")
    try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
    try """
    <model><entity name="Task"><attribute name="title" optional="YES" attributeType="String"/>
    <attribute name="due" optional="YES" attributeType="Date"/><attribute name="done" attributeType="Boolean"/>
    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="tasks" inverseEntity="Person"/></entity>
    <entity name="Person"><attribute name="name" optional="YES" attributeType="String"/>
    <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Task" inverseName="owner" inverseEntity="Task"/></entity></model>
    """.write(toFile: model + "/contents", atomically: true, encoding: .utf8)
    let modelled = try StudioProcess(["--store", source, "--format", "coredata", "--model", model])
    let reader = try StudioProcess.Events(modelled)
    let task = try modelled.rpc(
      reader.session, #"{"jsonrpc":"2.0","id":1,"method":"objects.get","params":{"id":"Task/1","toMany":"count"}}"#)
    XCTAssertEqual(task.json?["result"]?["owner"], "Person/1", task.text)
    XCTAssertEqual(task.json?["result"]?["done"], true, task.text)
    XCTAssertEqual(task.json?["result"]?["due"], "2023-03-08T20:26:40.500Z")
    let person = try modelled.rpc(
      reader.session, #"{"jsonrpc":"2.0","id":2,"method":"objects.get","params":{"id":"Person/1","toMany":"count"}}"#)
    XCTAssertEqual(person.json?["result"]?["tasks"], 1, person.text)
    let delete = try modelled.rpc(reader.session, #"{"jsonrpc":"2.0","id":3,"method":"objects.delete","params":{"id":"Person/1"}}"#)
    XCTAssertEqual(delete.json?["error"]?["code"], -32010, delete.text)
    XCTAssertEqual(modelled.stop(), 0)
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), before)
    XCTAssertEqual(dir.listing().filter { $0.hasPrefix("Tasks") }, ["Tasks.sqlite"], "nothing was written beside it")
  }

  func testOpenHandsTheURLToXdgOpen() throws {
    // A stand-in xdg-open that writes its argument into a FIFO the test reads.
    let bin = dir.file("bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let fifo = dir.file("opened")
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let script = bin + "/xdg-open"
    // (It gives up after a minute if nobody reads, so a failed test leaves nothing behind.)
    try "#!/bin/sh\nexec timeout 60 sh -c 'echo \"$1\" > \"$2\"' sh \"$1\" '\(fifo)'\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    XCTAssertEqual(chmod(script, 0o755), 0)
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = bin + ":/usr/bin:/bin"
    let studio = try StudioProcess(["--store", store, "--open"], environment: environment)
    // Read what the stand-in writes: wait for it (a minute at most), then to its end.
    let fd = open(fifo, O_RDONLY | O_NONBLOCK)
    XCTAssertGreaterThanOrEqual(fd, 0)
    var opened: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while poll(&ready, 1, 60_000) > 0, case let n = read(fd, &chunk, chunk.count), n > 0 { opened += chunk[0..<n] }
    close(fd)
    XCTAssertEqual(String(decoding: opened, as: UTF8.self), studio.url + "\n")
    XCTAssertEqual(studio.stop(), 0)
    // Without xdg-open it says so, and serves all the same.
    environment["PATH"] = dir.file("nowhere")
    let alone = try StudioProcess(["--store", store, "--open"], environment: environment)
    XCTAssertEqual(try alone.request("GET", "/").status, 303)
    XCTAssertEqual(alone.stop(), 0)
    XCTAssertTrue(alone.process.stderrAtEnd().contains("xdg-open is not installed"), alone.process.stderr)
  }

  func testAStoreInPostgreSQL() throws {
    let schema = try PostgresTestSchema("studio")
    defer { schema.drop() }
    let url = schema.storeURL
    let made = try ServerProcess(arguments: ["serve", "--store", url])
    _ = try made.call("model.define", ["schema": try JSONParser.parse(Self.schema)])
    _ = try made.call("objects.insert", ["entity": "Note", "values": ["title": "in postgres"]])
    made.closeInput()
    XCTAssertEqual(made.waitForExit(), 0, made.stderr)
    let studio = try StudioProcess(["--store", url])
    let page = try StudioProcess.Events(studio)
    let observe = try studio.rpc(
      page.session, #"{"jsonrpc":"2.0","id":1,"method":"query.observe","params":{"entity":"Note","sort":["title"]}}"#)
    XCTAssertEqual(observe.json?["result"]?["objects"]?.item(0)?["title"], "in postgres", observe.text)
    let writer = try ServerProcess(arguments: ["serve", "--store", url])
    _ = try writer.call("objects.insert", ["entity": "Note", "values": ["title": "another"]])
    let changed = try XCTUnwrap(try page.next(), studio.process.stderr)
    XCTAssertEqual(changed["params"]?["inserted"]?.item(0)?["object"]?["title"], "another")
    writer.closeInput()
    XCTAssertEqual(writer.waitForExit(), 0)
    XCTAssertEqual(studio.stop(), 0)
    let readOnly = try StudioProcess(["--store", url, "--read-only"])
    let reader = try StudioProcess.Events(readOnly)
    let insert = try readOnly.rpc(
      reader.session, #"{"jsonrpc":"2.0","id":1,"method":"objects.insert","params":{"entity":"Note","values":{"title":"x"}}}"#)
    XCTAssertEqual(insert.json?["error"]?["code"], -32010, insert.text)
    XCTAssertEqual(readOnly.stop(), 0)
  }

  func testCommandLine() throws {
    let missing = try runModelstore(["studio", "--store", dir.file("missing.store")])
    XCTAssertEqual(missing.status, 1)
    XCTAssertTrue(missing.stderr.hasPrefix("modelstore studio: "), missing.stderr)
    XCTAssertEqual(try runModelstore(["studio"]).status, 2)
    XCTAssertEqual(try runModelstore(["studio", "--store", store, "--port", "70000"]).status, 2)
    let modelWithoutCoreData = try runModelstore(["studio", "--store", store, "--model", dir.file("M.xcdatamodeld")])
    XCTAssertEqual(modelWithoutCoreData.status, 2)
    XCTAssertTrue(modelWithoutCoreData.stderr.contains("--model needs --format coredata"), modelWithoutCoreData.stderr)
    XCTAssertEqual(try runModelstore(["studio", "--store", store, "--format", "coredata", "--model-version", "V2"]).status, 2)
    let help = try runModelstore(["studio", "--help"])
    XCTAssertEqual(help.status, 0)
    XCTAssertTrue(help.stdout.contains("--read-only"))
    // A port that is taken.
    let first = try StudioProcess(["--store", store])
    let second = try runModelstore(["studio", "--store", store, "--port", "\(first.port)"])
    XCTAssertEqual(second.status, 1)
    XCTAssertTrue(second.stderr.contains("cannot listen on 127.0.0.1:\(first.port)"), second.stderr)
    XCTAssertEqual(first.stop(), 0)
  }
}
