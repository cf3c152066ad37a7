import Foundation
import JSONCore
import TestSupport
import XCTest

/// A multi-stage migration of a 200k-object file store, killed with SIGKILL at several
/// points: every time the store reopens at a version some stage committed, SQLite's
/// integrity check passes, and every object is there, migrated exactly to that version.
/// On PostgreSQL (transactional DDL) the same with 20k objects, each run on a store
/// imported afresh (a schema is not copied like a file).
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

  func testSIGKILLDuringAMultiStageMigrationNeverLeavesAHalfMigratedStore() throws {
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

    var seen: Set<String> = []
    for (run, fraction) in [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95].enumerated() {
      work = try working(dir, original: original, run: run + 1)
      let p = try migrateProcess(work, dir.file("plan.json"))
      usleep(useconds_t(duration * fraction * 1_000_000))
      kill(p.processIdentifier, SIGKILL)
      p.waitUntilExit()
      seen.insert(try checkConsistent(work, label: "killed at \(Int(fraction * 100))% (\(String(format: "%.2f", duration * fraction)) s)"))
    }
    // The kill points spread over the run: more than one version was seen.
    XCTAssertGreaterThan(seen.count, 1, "versions seen after kills: \(seen.sorted())")
    print(
      "crash test: full migration of \(Self.objects) objects took \(String(format: "%.2f", duration)) s; versions after kills: \(seen.sorted())"
    )
  }
}
