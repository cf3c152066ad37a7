import Foundation
import JSONCore
import TestSupport
import XCTest

/// Migrations over the protocol and the CLI, against the built binary and stores in files
/// (or PostgreSQL schemas, backed up by default only by `modelstore migrate`, into a schema
/// beside the store's: protocol.md, "Migrations", Backups).
final class MigrationProcessTests: XCTestCase {
  private func seed(_ server: ServerProcess) throws {
    _ = try server.call("model.define", ["schema": Seeds.taskV1])
    _ = try server.call(
      "context.save",
      [
        "changes": [
          ["op": "insert", "entity": "Category", "ref": "$h", "values": ["name": "Home"]],
          ["op": "insert", "entity": "Task", "values": ["title": "urgent: taxes", "done": true, "category": "$h"]],
          ["op": "insert", "entity": "Task", "values": ["title": "laundry", "category": "$h"]],
        ]
      ])
  }

  private func tasks(_ server: ServerProcess) throws -> [JSONValue] {
    try XCTUnwrap(try server.call("query.fetch", ["entity": "Task", "sort": ["title"]])["objects"]?.arrayValue)
  }

  func testSeedScenarioOneOnAFileStoreWithABackup() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("tasks.store")
    var server = try ServerProcess(arguments: ["serve", "--store", path])
    try seed(server)
    let result = try server.call("migration.apply", ["schemas": [Seeds.taskV1, Seeds.taskV2]])
    if TestEngine.isPostgres {
      XCTAssertEqual(result["backup"] ?? .null, .null, "migration.apply backs a PostgreSQL store up only when asked")
    } else {
      XCTAssertEqual(result["backup"]?.stringValue, path + ".before-1.0.0-to-2.0.0.backup")
      XCTAssertTrue(dir.exists("tasks.store.before-1.0.0-to-2.0.0.backup"))
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)

    // A new process sees the migrated store; the backup is the old version, intact.
    server = try ServerProcess(arguments: ["serve", "--store", path])
    let list = try tasks(server)
    XCTAssertEqual(list.map { $0["priority"] }, [0, 0])
    XCTAssertEqual(list.map { $0["notes"] }, ["", ""])
    XCTAssertEqual(list.map { $0["done"] }, [false, true])
    XCTAssertEqual(try server.call("query.fetch", ["entity": "Category"])["objects"]?.arrayValue?.first?["color"], "blue")
    XCTAssertEqual(try server.call("model.get")["version"], "2.0.0")
    server.closeInput()
    _ = server.waitForExit()
    guard !TestEngine.isPostgres else { return }
    let old = try ServerProcess(arguments: ["serve", "--store", path + ".before-1.0.0-to-2.0.0.backup", "--read-only"])
    XCTAssertEqual(try old.call("model.get")["version"], "1.0.0")
    XCTAssertEqual(try old.call("query.count", ["entity": "Task"])["count"], 2)
  }

  func testSeedScenarioTwoWithADidMigrateHookDoneByTheClient() throws {
    let server = try ServerProcess()
    _ = try server.call("initialize", ["capabilities": ["migrationHooks": true]])
    try seed(server)
    let stage: JSONValue = ["custom": ["from": "1.0.0", "to": "2.0.0", "willMigrate": true, "didMigrate": true]]
    let applyID = server.sendRequest("migration.apply", ["schemas": [Seeds.taskV1, Seeds.appV2], "stages": [stage]])

    // willMigrate: the old schema is installed; the client reads through an ordinary request.
    let will = try XCTUnwrap(try server.readMessage())
    XCTAssertEqual(will["method"], "migration/willMigrate")
    XCTAssertEqual(will["params"]?["schema"]?["version"], "1.0.0")
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "done == YES"])["count"], 1)
    server.sendLine(JSONWriter.encodeString(["jsonrpc": "2.0", "id": will["id"]!, "result": .null]))

    // didMigrate: the new schema is installed; the client sets priorities.
    let did = try XCTUnwrap(try server.readMessage())
    XCTAssertEqual(did["method"], "migration/didMigrate")
    XCTAssertEqual(did["params"]?["schema"]?["version"], "2.0.0")
    _ = try server.call("objects.updateWhere", ["entity": "Task", "where": "title BEGINSWITH 'urgent'", "values": ["priority": 9]])
    let refused = try server.callFailing("store.open", ["memory": true])
    XCTAssertEqual(refused["data"]?["kind"], "transaction")
    server.sendLine(JSONWriter.encodeString(["jsonrpc": "2.0", "id": did["id"]!, "result": ["ok": true]]))

    let reply = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(reply["id"], applyID)
    XCTAssertEqual(reply["result"]?["stages"]?.arrayValue?.first?["status"], "applied")
    let list = try tasks(server)
    XCTAssertEqual(list.map { $0["isCompleted"] }, [false, true])
    XCTAssertEqual(list.map { $0["priority"] }, [0, 9])
  }

  func testEndOfInputDuringAHookRollsTheStageBack() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("s.store")
    var server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("initialize", ["capabilities": ["migrationHooks": true]])
    try seed(server)
    _ = server.sendRequest(
      "migration.apply",
      [
        "schemas": [Seeds.taskV1, Seeds.appV2], "stages": [["custom": ["from": "1.0.0", "to": "2.0.0", "didMigrate": true]]],
        "backup": false,
      ])
    XCTAssertEqual(try server.readMessage()?["method"], "migration/didMigrate")
    _ = try server.call("objects.updateWhere", ["entity": "Task", "values": ["priority": 3]])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    server = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try server.call("model.get")["version"], "1.0.0")
    XCTAssertEqual(try tasks(server).map { $0["done"] }, [false, true])
  }

  func testAThreeVersionChainFromEachStartingPoint() throws {
    let stages: JSONValue = [
      ["lightweight": ["from": "1.0.0", "to": "2.0.0"]],
      [
        "custom": [
          "from": "2.0.0", "to": "3.0.0",
          "transforms": [["compute": ["entity": "Task", "attribute": "status", "where": "isCompleted == YES", "value": "done"]]],
        ]
      ],
    ]
    // From V1: both stages. From V2 (a store defined at V2): only the second.
    let server = try ServerProcess()
    try seed(server)
    let r = try server.call("migration.apply", ["schemas": [Seeds.taskV1, Seeds.appV2, Seeds.appV3], "stages": stages])
    XCTAssertEqual(r["stages"]?.arrayValue?.count, 2)
    XCTAssertEqual(try tasks(server).map { $0["status"] }, ["open", "done"])

    let other = try ServerProcess()
    _ = try other.call("model.define", ["schema": Seeds.appV2])
    _ = try other.call("objects.insert", ["entity": "Task", "values": ["title": "x", "isCompleted": true]])
    let r2 = try other.call("migration.apply", ["schemas": [Seeds.taskV1, Seeds.appV2, Seeds.appV3], "stages": stages])
    XCTAssertEqual(r2["from"], "2.0.0")
    XCTAssertEqual(r2["stages"]?.arrayValue?.map { $0["from"] }, ["2.0.0"])
    XCTAssertEqual(try tasks(other).map { $0["status"] }, ["done"])
  }

  func testTheMigrateCommand() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("cli.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    try seed(server)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    try JSONWriter.encodeString(Seeds.appV2).write(toFile: dir.file("v2.json"), atomically: true, encoding: .utf8)
    let before = try dir.fingerprint("cli.store")

    let dry = try runModelstore(["migrate", "--store", path, "--to", dir.file("v2.json"), "--dry-run"])
    XCTAssertEqual(dry.status, 0, dry.stderr)
    XCTAssertTrue(dry.stdout.contains("step: rename column Task.done to isCompleted"), dry.stdout)
    XCTAssertEqual(try dir.fingerprint("cli.store"), before, "a dry run changes nothing")

    let run = try runModelstore(["migrate", "--store", path, "--to", dir.file("v2.json"), "--json"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let result = try JSONParser.parse(run.stdout)
    XCTAssertEqual(result["to"], "2.0.0")
    XCTAssertEqual(result["stages"]?.arrayValue?.first?["status"], "applied")
    XCTAssertEqual(dir.exists("cli.store.before-1.0.0-to-2.0.0.backup"), !TestEngine.isPostgres, "a backup beside a store file")
    if TestEngine.isPostgres, let schema = path.split(separator: "schema=").last.map(String.init) {
      // On PostgreSQL the backup is a schema beside the store's, named alike.
      let backup = PostgresTestSchema(adopting: "\(schema)_before_1.0.0_to_2.0.0", clusterURL: try PostgresTestCluster.requireURL())
      defer { backup.drop() }
      XCTAssertEqual(result["backup"]?.stringValue, backup.storeURL)
      XCTAssertEqual(try backup.psql("SELECT value FROM _ms_meta WHERE key = 'schemaVersion'").stdout, "1.0.0")
    }

    // Going back to a version the store moved past is refused.
    try JSONWriter.encodeString(Seeds.taskV1).write(toFile: dir.file("v1.json"), atomically: true, encoding: .utf8)
    let back = try runModelstore(["migrate", "--store", path, "--to", dir.file("v1.json")])
    XCTAssertEqual(back.status, 1)
    XCTAssertTrue(back.stderr.contains("moved past it"), back.stderr)
    let bad = try runModelstore(["migrate", "--store", path])
    XCTAssertEqual(bad.status, 2)
  }
}
