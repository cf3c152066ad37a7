import Foundation
import JSONCore
import TestSupport
import XCTest

/// Live queries on stores whose writers record no ModelStore history: a Core Data store
/// browsed in place while another program (the sqlite3 shell) changes it, and a file
/// served with `--no-history` written by another server. No request is sent after
/// `query.observe`: the change must come by itself.
final class LiveQueryOutsideHistoryTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws {
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed at \(sqlite3CLI.path)") }
    dir = try TemporaryDirectory()
  }
  override func tearDown() { dir?.remove() }

  /// Category (1) and Task (2) in Core Data's layout, in WAL mode.
  private func writeCoreDataStore(_ path: String) throws {
    let r = try sqlite3(
      path,
      """
      PRAGMA journal_mode = WAL;
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZTASK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR );
      INSERT INTO Z_PRIMARYKEY VALUES (1, 'Task', 0, 2);
      INSERT INTO Z_METADATA VALUES (1, '0B5C7D2E-9A41-4C3B-8E6F-112233445566', NULL);
      INSERT INTO ZTASK VALUES (1, 1, 1, 'one'), (2, 1, 1, 'two');
      """)
    XCTAssertEqual(r.status, 0, r.stderr)
  }

  /// Applies `query/changed` notifications to `list` until its titles are `expected`
  /// (a change found without history may come as more than one notification, and may
  /// list unchanged objects as updated), within a wall-clock bound. Returns the changes.
  @discardableResult
  private func follow(_ server: ServerProcess, _ list: inout [JSONValue], until expected: [String], timeout: TimeInterval = 60) throws
    -> [JSONValue]
  {
    var changes: [JSONValue] = []
    let deadline = Date().addingTimeInterval(timeout)
    while titles(.array(list)) != expected, let m = try server.readMessage(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
      guard m["method"] == "query/changed", let change = m["params"] else { continue }
      XCTAssertNil(change["error"])
      XCTAssertEqual(change["token"], 0, "no history: the token does not move")
      list = LiveQueryProcessTests.apply(change, to: list)
      changes.append(change)
    }
    XCTAssertEqual(titles(.array(list)), expected, "within \(timeout) s: \(server.stderr)")
    return changes
  }

  /// A request's result; notifications that come first (a change may come as more than
  /// one) are applied to `list`.
  private func call(_ server: ServerProcess, _ method: String, _ params: JSONObject, applyingTo list: inout [JSONValue]) throws -> JSONValue
  {
    let id = server.sendRequest(method, params)
    let deadline = Date().addingTimeInterval(60)  // a bound for failures only
    while let m = try server.readMessage(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
      if m["method"] == "query/changed", let change = m["params"] { list = LiveQueryProcessTests.apply(change, to: list) }
      if m["id"] == id { return try XCTUnwrap(m["result"], "\(method) failed: \(m)") }
    }
    throw ServerProcessError.noReply(method: method, stderr: server.stderr)
  }

  /// Bytes and modification times of the store's files (missing files included as such).
  private func snapshot(_ path: String) throws -> [String: String] {
    var out: [String: String] = [:]
    for suffix in ["", "-wal", "-shm", "-journal"] {
      let file = path + suffix
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: file) else {
        out[suffix] = "missing"
        continue
      }
      let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
      out[suffix] =
        "\(bytes.count) bytes, hash \(bytes.hashValue), mtime \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }
    return out
  }

  private func titles(_ objects: JSONValue?) -> [String] { (objects?.arrayValue ?? []).compactMap { $0["title"]?.stringValue } }

  /// The writer keeps its connection open (as an app does), so `-wal` and `-shm` stay
  /// and the server reads the WAL through the writer's index (`readonlyShm`).
  func testACoreDataStoreInWALModeFollowsAnotherProgramsCommits() throws {
    let path = dir.file("Tasks.sqlite")
    try writeCoreDataStore(path)
    let writer = try SQLiteShell(path)
    try writer.run("INSERT INTO ZTASK VALUES (3, 1, 1, 'three');")
    let server = try ServerProcess(arguments: ["serve", "--format", "coredata", "--read-only", "--store", path])
    XCTAssertEqual(try server.call("store.info")["coreData"]?["access"], "readonlyShm")
    var list = try XCTUnwrap(try server.call("query.observe", ["entity": "Task", "sort": ["title"]])["objects"]?.arrayValue)
    XCTAssertEqual(titles(.array(list)), ["one", "three", "two"])

    try writer.run("INSERT INTO ZTASK VALUES (4, 1, 1, 'four'); UPDATE ZTASK SET ZTITLE = 'zwei' WHERE Z_PK = 2;")
    let written = try snapshot(path)
    try follow(server, &list, until: ["four", "one", "three", "zwei"])
    XCTAssertEqual(
      titles(try call(server, "query.fetch", ["entity": "Task", "sort": ["title"]], applyingTo: &list)["objects"]),
      ["four", "one", "three", "zwei"])
    XCTAssertEqual(try snapshot(path), written, "the observer wrote nothing beside the store")

    try writer.run("DELETE FROM ZTASK WHERE Z_PK = 1;")
    let afterDelete = try snapshot(path)
    try follow(server, &list, until: ["four", "three", "zwei"])
    XCTAssertEqual(try snapshot(path), afterDelete)
    writer.close()
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  /// No `-wal` when the server opens it (`immutable`): each shell run commits through a
  /// fresh WAL and checkpoints it into the file on exit; the server attaches the file
  /// again and sees the commit, and never creates a `-wal` or `-shm` of its own.
  func testACoreDataStoreOpenedImmutableFollowsCommitsMadeLater() throws {
    let path = dir.file("Tasks.sqlite")
    try writeCoreDataStore(path)
    let server = try ServerProcess(arguments: ["serve", "--format", "coredata", "--read-only", "--store", path])
    XCTAssertEqual(try server.call("store.info")["coreData"]?["access"], "immutable")
    var list = try XCTUnwrap(try server.call("query.observe", ["entity": "Task", "sort": ["title"]])["objects"]?.arrayValue)
    XCTAssertEqual(titles(.array(list)), ["one", "two"])
    for (expected, sql) in [
      (["alpha", "one", "two"], "INSERT INTO ZTASK VALUES (10, 1, 1, 'alpha');"), (["alpha", "one"], "DELETE FROM ZTASK WHERE Z_PK = 2;"),
    ] {
      let r = try sqlite3(path, sql)
      XCTAssertEqual(r.status, 0, r.stderr)
      let written = try snapshot(path)
      try follow(server, &list, until: expected)
      XCTAssertEqual(try snapshot(path), written, "the observer wrote nothing beside the store (no -wal, no -shm)")
    }
    XCTAssertEqual(try call(server, "query.count", ["entity": "Task"], applyingTo: &list)["count"], 2)
    XCTAssertEqual(titles(.array(list)), ["alpha", "one"])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  /// Two servers on one file, both `--no-history`: the observer follows the other's commits.
  func testANoHistoryFileFollowsAnotherProcessesCommits() throws {
    let path = try dir.store("plain.store")
    let a = try ServerProcess(arguments: ["serve", "--no-history", "--store", path])
    _ = try a.call("model.define", ["schema": LiveQueryProcessTests.model])
    let b = try ServerProcess(arguments: ["serve", "--no-history", "--store", path])
    var list = try XCTUnwrap(try a.call("query.observe", ["entity": "Task", "sort": ["title"]])["objects"]?.arrayValue)
    XCTAssertEqual(list, [])
    let id = try XCTUnwrap(try b.call("objects.insert", ["entity": "Task", "values": ["title": "x"]])["_id"])
    try follow(a, &list, until: ["x"])
    _ = try b.call("objects.update", ["id": id, "values": ["title": "y"]])
    try follow(a, &list, until: ["y"])
    // This process's own commit (no history either) is followed too.
    _ = a.sendRequest("objects.delete", ["id": id])
    try follow(a, &list, until: [])
  }
}

/// The sqlite3 shell kept running on one database (as an app keeps its connection): each
/// `run` returns once the shell has executed the SQL.
private final class SQLiteShell {
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private var buffered = ""
  private var marks = 0

  init(_ path: String) throws {
    process.executableURL = sqlite3CLI
    process.arguments = ["-batch", path]
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
  }

  func run(_ sql: String, timeout: TimeInterval = 60) throws {
    marks += 1
    let mark = "done-\(marks)"
    input.fileHandleForWriting.write(Data("\(sql)\nSELECT '\(mark)';\n".utf8))
    let deadline = Date().addingTimeInterval(timeout)
    while !buffered.contains(mark) {
      guard Date() < deadline else {
        throw ServerProcessError.noReply(method: sql, stderr: "the sqlite3 shell did not finish within \(timeout) s")
      }
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { throw ServerProcessError.noReply(method: sql, stderr: "the sqlite3 shell ended") }
      buffered += String(decoding: chunk, as: UTF8.self)
    }
    buffered = ""
  }

  func close() {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }
}
