import Foundation
import JSONCore
import TestSupport
import XCTest

/// A multi-stage migration of a 200k-object file store, killed with SIGKILL: every time the
/// store reopens at a version some stage committed, SQLite's integrity check passes, and
/// every object is there, migrated exactly to that version. The kill points are exact
/// where they must be: inside each stage's open transaction, after its writes (while the
/// server waits for the client's didMigrate hook), so every version 1, 2 and 3 is seen
/// whatever the machine's speed; more kills at fractions of a timed run land wherever they
/// land and are only checked for consistency. On PostgreSQL (transactional DDL) the same
/// with 20k objects, each run on a store imported afresh (a schema is not copied like a file).
final class MigrationCrashTests: XCTestCase {
  static let objects = TestEngine.isPostgres ? 20_000 : 200_000

  static let v1 = schema(entity("Task", [attr("title", "string"), attr("done", "bool", default: false), attr("n", "int32")]), version: "1")
  static let v2 = schema(
    entity(
      "Task",
      [
        attr("title", "string"), attr("isCompleted", "bool", default: false, originalName: "done"), attr("n", "int64"),
        attr("priority", "int", default: 0),
      ]),
    version: "2")
  static let v3 = schema(
    entity(
      "Task",
      [
        attr("title", "string"), attr("isCompleted", "bool", default: false), attr("n", "string"), attr("priority", "int", default: 0),
        attr("status", "string", default: "open"),
      ]),
    version: "3")
  static let v4 = schema(
    entity(
      "Task",
      [
        attr("title", "string"), attr("isCompleted", "bool", default: false), attr("n", "string"), attr("priority", "int", default: 0),
        attr("status", "string", default: "open"), attr("notes", "string", default: ""),
      ]),
    version: "4")
  static let plan: JSONValue = [
    "schemas": [v1, v2, v3, v4],
    "stages": [
      [
        "custom": [
          "from": "2", "to": "3",
          "transforms": [["compute": ["entity": "Task", "attribute": "status", "where": "isCompleted == YES", "value": "done"]]],
        ]
      ]
    ],
  ]

  /// The same chain with every stage custom and a didMigrate hook: the server asks the
  /// client inside each stage's transaction, after the stage's writes.
  static let hookedPlan: JSONValue = [
    "schemas": [v1, v2, v3, v4],
    "stages": [
      ["custom": ["from": "1", "to": "2", "didMigrate": true]],
      [
        "custom": [
          "from": "2", "to": "3", "didMigrate": true,
          "transforms": [["compute": ["entity": "Task", "attribute": "status", "where": "isCompleted == YES", "value": "done"]]],
        ]
      ],
      ["custom": ["from": "3", "to": "4", "didMigrate": true]],
    ],
  ]

  /// The store every run starts from: 200k tasks at version 1, every third one done.
  private func makeStore(_ dir: TemporaryDirectory, _ name: String = "original.store") throws -> String {
    let path = try dir.store(name)
    guard !FileManager.default.fileExists(atPath: dir.file("v1.ndjson")) else {
      let r = try runModelstore(["import", "--store", path, dir.file("v1.ndjson")], timeout: 300)
      XCTAssertEqual(r.status, 0, r.stderr)
      return path
    }
    var text = JSONWriter.encodeString(["format": "modelstore-export", "version": 1, "schema": Self.v1, "entities": ["Task"]]) + "\n"
    text.reserveCapacity(Self.objects * 64)
    for i in 1...Self.objects {
      text += "{\"_id\":\"Task/\(i)\",\"_entity\":\"Task\",\"title\":\"task \(i)\",\"done\":\(i % 3 == 0),\"n\":\(i)}\n"
    }
    try text.write(toFile: dir.file("v1.ndjson"), atomically: true, encoding: .utf8)
    let r = try runModelstore(["import", "--store", path, dir.file("v1.ndjson")], timeout: 300)
    XCTAssertEqual(r.status, 0, r.stderr)
    try JSONWriter.encodeString(Self.plan).write(toFile: dir.file("plan.json"), atomically: true, encoding: .utf8)
    return path
  }

  /// A store to migrate, as the original: a copy of its file, or on PostgreSQL a store
  /// imported afresh (run `run`).
  private func working(_ dir: TemporaryDirectory, original: String, run: Int) throws -> String {
    if TestEngine.isPostgres { return try makeStore(dir, "work\(run).store") }
    let to = dir.file("work.store")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: to + suffix) }
    try FileManager.default.copyItem(atPath: original, toPath: to)
    return to
  }

  private func migrateProcess(_ store: String, _ plan: String) throws -> Process {
    let p = Process()
    p.executableURL = ServerProcess.binaryURL
    p.arguments = ["migrate", "--store", store, "--plan", plan, "--no-backup"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    return p
  }

  /// Opens the store and checks that it is exactly at one version, with every object.
  private func checkConsistent(_ path: String, label: String) throws -> String {
    if hasSQLite3CLI && !TestEngine.isPostgres {
      XCTAssertEqual(try sqlite3(path, "PRAGMA integrity_check").stdout, "ok", label)
    }
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    defer {
      server.closeInput()
      _ = server.waitForExit()
    }
    let version = try XCTUnwrap(try server.call("model.get")["version"]?.stringValue, label)
    func count(_ predicate: String? = nil) throws -> Int64? {
      var p: JSONObject = ["entity": "Task"]
      if let predicate { p["where"] = .string(predicate) }
      return try server.call("query.count", p)["count"]?.intValue
    }
    let all = Int64(Self.objects), done = Int64(Self.objects / 3)
    XCTAssertEqual(try count(), all, "\(label): objects at version \(version)")
    switch version {
    case "1":
      XCTAssertEqual(try count("done == YES"), done, label)
    case "2":
      XCTAssertEqual(try count("isCompleted == YES"), done, label)
      XCTAssertEqual(try count("priority == 0 AND n > 0"), all, label)
    case "3", "4":
      XCTAssertEqual(try count("isCompleted == YES AND status == 'done'"), done, label)
      XCTAssertEqual(try count("status == 'open'"), all - done, label)
      XCTAssertEqual(try count("n == '12345'"), 1, "\(label): n converted to string")
      if version == "4" { XCTAssertEqual(try count("notes == ''"), all, label) }
    default:
      XCTFail("\(label): unexpected version \(version)")
    }
    return version
  }

  func testSIGKILLInsideEachStageLeavesTheStoreAtThePreviousVersion() throws {
    let dir = try TemporaryDirectory("modelstore-crash")
    let original = try makeStore(dir)
    // Stage k (from version k) is killed in its didMigrate hook: its schema change and
    // transforms are written but not committed, the stages before it are.
    for (run, from) in ["1", "2", "3"].enumerated() {
      let work = try working(dir, original: original, run: run + 1)
      let server = try ServerProcess(arguments: ["serve", "--store", work])
      _ = try server.call("initialize", ["capabilities": ["migrationHooks": true]])
      _ = server.sendRequest("migration.apply", ["schemas": Self.hookedPlan["schemas"]!, "stages": Self.hookedPlan["stages"]!, "backup": false])
      var hook: JSONValue?
      repeat {
        hook = try XCTUnwrap(try server.readMessage(timeout: 300), "run \(run): no didMigrate hook; stderr: \(server.stderr)")
        XCTAssertEqual(hook?["method"], "migration/didMigrate", "run \(run): \(hook.map { "\($0)" } ?? "")")
        if hook?["params"]?["from"]?.stringValue != from {
          server.sendLine(JSONWriter.encodeString(["jsonrpc": "2.0", "id": hook!["id"]!, "result": ["ok": true]]))
        }
      } while hook?["params"]?["from"]?.stringValue != from
      kill(server.process.processIdentifier, SIGKILL)
      _ = server.waitForExit()
      XCTAssertEqual(try checkConsistent(work, label: "killed inside stage \(from)"), from, "killed inside stage \(from)")
    }
  }

  func testSIGKILLAtAnyTimeLeavesAWholeVersion() throws {
    let dir = try TemporaryDirectory("modelstore-crash")
    let original = try makeStore(dir)

    // One run to the end, timed, gives the kill points.
    var work = try working(dir, original: original, run: 0)
    let start = Date()
    let full = try migrateProcess(work, dir.file("plan.json"))
    full.waitUntilExit()
    let duration = Date().timeIntervalSince(start)
    XCTAssertEqual(full.terminationStatus, 0)
    XCTAssertEqual(try checkConsistent(work, label: "uninterrupted"), "4")

    // Where each kill lands depends on the machine; whatever version it leaves, the store
    // is exactly at it (checkConsistent). That every version is reachable is the other test's.
    var seen: [String] = []
    for (run, fraction) in [0.1, 0.35, 0.6, 0.85].enumerated() {
      work = try working(dir, original: original, run: run + 1)
      let p = try migrateProcess(work, dir.file("plan.json"))
      usleep(useconds_t(duration * fraction * 1_000_000))
      kill(p.processIdentifier, SIGKILL)
      p.waitUntilExit()
      seen.append(try checkConsistent(work, label: "killed at \(Int(fraction * 100))% (\(String(format: "%.2f", duration * fraction)) s)"))
    }
    print("crash test: full migration of \(Self.objects) objects took \(String(format: "%.2f", duration)) s; versions after kills: \(seen)")
  }
}
