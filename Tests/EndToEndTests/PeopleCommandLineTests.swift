import Foundation
import JSONCore
import TestSupport
import XCTest

/// The command line as people use it: help on every command, exit statuses (0 done, 1
/// failed, 2 wrong arguments), `-` for standard input and output, `--force`, `query`,
/// `info`, CSV, progress, hints, and the bugs fixed with them (runtime errors exited 2
/// with "Try --help"; a refused migration left a backup; a failed import left an empty
/// store; migration refusals named the RPC param).
final class PeopleCommandLineTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws { dir = try TemporaryDirectory() }
  override func tearDown() { dir.remove() }

  /// A store of `itemSchema` with the given titles (n = 1, 2, ...).
  private func itemStore(_ name: String, _ titles: [String]) throws -> String {
    let path = try dir.store(name)
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": itemSchema])
    for (i, t) in titles.enumerated() {
      _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": .string(t), "n": .int(Int64(i + 1))]])
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    return path
  }

  func testEveryCommandHasItsOwnHelp() throws {
    try TestEngine.storeIndependent("help")
    let commands = ["serve", "query", "info", "export", "import", "migrate", "upgrade", "import-coredata", "xcdatamodel", "protocol"]
    for command in commands {
      for args in [[command, "--help"], [command, "-h"], ["help", command]] {
        let r = try runModelstore(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
        XCTAssertEqual(r.stderr, "", "\(args)")
        for part in ["USAGE", "modelstore \(command)", "EXAMPLE", "EXIT STATUS"] {
          XCTAssertTrue(r.stdout.contains(part), "\(args) lacks \(part): \(r.stdout)")
        }
      }
    }
    XCTAssertTrue(try runModelstore(["export", "--help"]).stdout.contains("transitively"), "--with-related says what it follows")
    let unknown = try runModelstore(["help", "frobnicate"])
    XCTAssertEqual(unknown.status, 2)
  }

  /// Before: every failure went through the usage path (exit status 2, "Try 'modelstore
  /// --help'"), a missing store included.
  func testRuntimeFailuresExitOneAndUsageErrorsTwo() throws {
    let missing = try dir.store("missing.store")
    let notAStore = dir.file("text.store")
    try "hello".write(toFile: notAStore, atomically: true, encoding: .utf8)
    let failures: [[String]] = [
      ["export", "--store", missing], ["query", missing, "Item"], ["info", missing], ["serve", "--store", notAStore],
      ["migrate", "--store", missing, "--to", dir.file("v2.json")], ["upgrade", "--store", missing],
    ]
    for args in failures {
      let r = try runModelstore(args)
      XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
      XCTAssertTrue(r.stderr.hasPrefix("modelstore \(args[0]): "), "\(args): \(r.stderr)")
      XCTAssertFalse(r.stderr.contains("Try "), "\(args): a failure is not a usage error: \(r.stderr)")
    }
    XCTAssertFalse(try dir.storeExists("missing.store"))
    let usage: [([String], String)] = [
      (["export"], "--store"), (["query", missing], "ENTITY"), (["import", "--store", missing], "FILE"),
      (["export", "--store", missing, "--format", "xml"], "--format"), (["query", missing, "Item", "--limit", "-1"], "--limit"),
      (["info", missing, "--bogus"], "--bogus"), (["migrate", "--store", missing], "--to"),
    ]
    for (args, word) in usage {
      let r = try runModelstore(args)
      XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
      XCTAssertTrue(r.stderr.contains(word), "\(args): \(r.stderr)")
      XCTAssertTrue(r.stderr.contains("Try 'modelstore \(args[0]) --help'."), "\(args): \(r.stderr)")
    }
  }

  /// Before: the backup was written before the stages ran and kept when one was refused,
  /// and the refusal said "pass allowDataLoss: true", the JSON-RPC param.
  func testARefusedMigrationWritesNoBackupAndNamesTheFlag() throws {
    let store = try itemStore("m.store", ["a", "b"])
    let v2 = dir.file("v2.json")
    try JSONWriter.encodeString(schema(entity("Item", [attr("title", "string")]), version: "2.0.0")).write(
      toFile: v2, atomically: true, encoding: .utf8)
    let refused = try runModelstore(["migrate", "--store", store, "--to", v2])
    XCTAssertEqual(refused.status, 1, refused.stderr)
    XCTAssertTrue(refused.stderr.contains("(accepted with --allow-data-loss)"), refused.stderr)
    XCTAssertFalse(refused.stderr.contains("allowDataLoss"), refused.stderr)
    XCTAssertFalse(refused.stderr.contains("params."), refused.stderr)
    XCTAssertEqual(dir.listing().filter { $0.contains("backup") }, [], "a refused migration left a backup")
    let dry = try runModelstore(["migrate", "--store", store, "--to", v2, "--dry-run"])
    XCTAssertEqual(dry.status, 1, dry.stderr)
    XCTAssertTrue(dry.stdout.contains("BLOCKED: 'n' is removed with its 2 stored values (accepted with --allow-data-loss)"), dry.stdout)

    let allowed = try runModelstore(["migrate", "--store", store, "--to", v2, "--allow-data-loss"])
    XCTAssertEqual(allowed.status, 0, allowed.stderr)
    // (A PostgreSQL store's backup is a schema beside the store's: protocol.md, "What differs on PostgreSQL".)
    XCTAssertEqual(dir.listing().filter { $0.contains("backup") }, TestEngine.isPostgres ? [] : ["m.store.before-1.0.0-to-2.0.0.backup"])
    if TestEngine.isPostgres, let schema = store.split(separator: "schema=").last.map(String.init) {
      let backup = PostgresTestSchema(adopting: "\(schema)_before_1.0.0_to_2.0.0", clusterURL: try PostgresTestCluster.requireURL())
      defer { backup.drop() }
      XCTAssertTrue(allowed.stdout.contains("backup: \(backup.storeURL)"), allowed.stdout)
    }
  }

  /// Before: `import --store NEW bad-file` failed and left NEW behind, an empty store.
  func testAFailedImportLeavesNoStoreItCreatedAndAnExistingOneUnchanged() throws {
    let bad = dir.file("bad.ndjson")
    try "{\"format\":\"modelstore-export\",\"version\":1}\n".write(toFile: bad, atomically: true, encoding: .utf8)
    let r = try runModelstore(["import", "--store", dir.store("new.store"), bad])
    XCTAssertEqual(r.status, 1, r.stderr)
    XCTAssertTrue(r.stderr.contains("line 1 at /schema"), r.stderr)
    // The file, or the PostgreSQL schema, the import created is gone again (protocol.md,
    // "Opening a PostgreSQL store").
    XCTAssertFalse(try dir.storeExists("new.store"), "the failed import left a store")

    let existing = try itemStore("old.store", ["kept"])
    let before = try runModelstore(["export", "--store", existing])
    XCTAssertEqual(try runModelstore(["import", "--store", existing, bad]).status, 1)
    XCTAssertTrue(try dir.storeExists("old.store"))
    XCTAssertEqual(try runModelstore(["export", "--store", existing]).stdout, before.stdout)
  }

  func testQueryFormatsSortLimitAndErrors() throws {
    let store = try itemStore("q.store", ["pear", "apple, green", "fig"])
    let table = try runModelstore(["query", store, "Item", "n >= 2", "--sort", "-n"])
    XCTAssertEqual(table.status, 0, table.stderr)
    XCTAssertEqual(
      table.stdout, "_id     title         n\n------  ------------  -\nItem/3  fig           3\nItem/2  apple, green  2\n")
    let csv = try runModelstore(["query", store, "Item", "--sort", "title", "--format", "csv", "--select", "title"])
    XCTAssertEqual(csv.stdout, "_id,title\nItem/2,\"apple, green\"\nItem/3,fig\nItem/1,pear\n")
    let ndjson = try runModelstore(["query", store, "Item", "--limit", "1", "--format", "ndjson"])
    XCTAssertEqual(ndjson.stdout, "{\"_id\":\"Item/1\",\"_entity\":\"Item\",\"title\":\"pear\",\"n\":1}\n")
    let json = try JSONParser.parse(try runModelstore(["query", store, "Item", "title BEGINSWITH 'f'", "--format", "json"]).stdout)
    XCTAssertEqual(json.arrayValue?.map { $0["title"] }, ["fig"])
    XCTAssertEqual(try runModelstore(["query", store, "Item", "n > 5"]).stdout, "(no objects)\n")

    let unparsed = try runModelstore(["query", store, "Item", "title =="])
    XCTAssertEqual(unparsed.status, 2)
    XCTAssertTrue(unparsed.stderr.contains("modelstore query: PREDICATE: expected a value or key path"), unparsed.stderr)
    let unknown = try runModelstore(["query", store, "Item", "--sort", "colour"])
    XCTAssertEqual(unknown.status, 1)
    XCTAssertTrue(unknown.stderr.contains("colour"), unknown.stderr)
    XCTAssertFalse(unknown.stderr.contains("params."), unknown.stderr)
  }

  func testInfoListsEntitiesCountsVersionsAndHistory() throws {
    let store = try itemStore("i.store", ["a", "b", "c"])
    let text = try runModelstore(["info", store])
    XCTAssertEqual(text.status, 0, text.stderr)
    for line in [
      "format:    modelstore, formatVersion 2\n", "schema:    version 1.0.0, hash ", "history:   3 transactions (tokens 1–3)\n",
      "  Item  3\n",
    ] {
      XCTAssertTrue(text.stdout.contains(line), "lacks \(line): \(text.stdout)")
    }
    let json = try JSONParser.parse(try runModelstore(["info", store, "--json"]).stdout)
    XCTAssertEqual(json["counts"]?["Item"], 3)
    XCTAssertEqual(json["formatVersion"], 2)
    XCTAssertEqual(json["schemaVersion"], "1.0.0")
    XCTAssertEqual(json["history"]?["transactions"], 3)
  }

  func testCSVExportAndImportConvertTypesAndNameLineAndColumn() throws {
    let source = try itemStore("c.store", ["plain", "with, comma", "with \"quotes\"\nand a line", ""])
    let csvFile = dir.file("items.csv")
    let export = try runModelstore(["export", "--store", source, "--csv", "--entity", "Item", "--out", csvFile])
    XCTAssertEqual(export.status, 0, export.stderr)
    let csv = try String(contentsOfFile: csvFile, encoding: .utf8)
    XCTAssertEqual(
      csv, "_id,title,n\nItem/1,plain,1\nItem/2,\"with, comma\",2\nItem/3,\"with \"\"quotes\"\"\nand a line\",3\nItem/4,\"\",4\n")

    // Into a store with the schema and no objects: the same objects back.
    let target = try itemStore("t.store", [])
    let back = try runModelstore(["import", "--store", target, "--csv", "--entity", "Item", csvFile])
    XCTAssertEqual(back.status, 0, back.stderr)
    XCTAssertEqual(
      try runModelstore(["query", target, "Item", "--format", "ndjson"]).stdout,
      try runModelstore(["query", source, "Item", "--format", "ndjson"]).stdout)

    // A value the type refuses, and one the engine refuses, both by line and column.
    try "title,n\nok,1\n\"two\nlines\",x\n".write(toFile: dir.file("bad.csv"), atomically: true, encoding: .utf8)
    let bad = try runModelstore(["import", "--store", target, "--csv", "--entity", "Item", dir.file("bad.csv")])
    XCTAssertEqual(bad.status, 1)
    XCTAssertTrue(bad.stderr.contains("line 3, column 2: 'n' is int: expected an integer, got 'x'"), bad.stderr)
    try "n,title\n7,\n".write(toFile: dir.file("missing.csv"), atomically: true, encoding: .utf8)
    let missing = try runModelstore(["import", "--store", target, "--csv", "--entity", "Item", dir.file("missing.csv")])
    XCTAssertEqual(missing.status, 1)
    XCTAssertTrue(missing.stderr.contains("line 2"), missing.stderr)
    try "n,colour\n1,red\n".write(toFile: dir.file("unknown.csv"), atomically: true, encoding: .utf8)
    let unknown = try runModelstore(["import", "--store", target, "--csv", "--entity", "Item", dir.file("unknown.csv")])
    XCTAssertTrue(unknown.stderr.contains("line 1, column 2: 'colour' is not a stored attribute of entity 'Item'"), unknown.stderr)
    XCTAssertEqual(
      try runModelstore(["query", target, "Item", "--format", "ndjson"]).stdout.split(separator: "\n").count, 4, "a failed import kept rows"
    )
  }

  func testStandardStreamsAndForce() throws {
    let source = try itemStore("s.store", ["x", "y"])
    let exported = try runModelstore(["export", "--store", source, "--out", "-"])
    XCTAssertEqual(exported.status, 0, exported.stderr)
    let imported = try runModelstore(["import", "--store", dir.store("copy.store"), "-"], input: exported.stdout)
    XCTAssertEqual(imported.status, 0, imported.stderr)
    XCTAssertTrue(imported.stderr.contains("imported 2 objects from standard input"), imported.stderr)

    let out = dir.file("out.ndjson")
    try "old".write(toFile: out, atomically: true, encoding: .utf8)
    let refused = try runModelstore(["export", "--store", source, "--out", out])
    XCTAssertEqual(refused.status, 1)
    XCTAssertTrue(refused.stderr.contains("--out: '\(out)' exists; give --force to replace it"), refused.stderr)
    XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "old")
    XCTAssertEqual(try runModelstore(["export", "--store", source, "--out", out, "--force"]).status, 0)
    XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), exported.stdout)
    XCTAssertEqual(dir.listing().filter { $0.contains("partial") }, [])

    // migrate reads the schema from standard input.
    let v2 = JSONWriter.encodeString(
      schema(
        entity("Item", [attr("title", "string"), attr("n", "int", default: 0), attr("note", "string", optional: true)]), version: "2.0.0"))
    let migrated = try runModelstore(["migrate", "--store", source, "--to", "-", "--no-backup"], input: v2)
    XCTAssertEqual(migrated.status, 0, migrated.stderr)
    XCTAssertTrue(migrated.stdout.contains("migrated 1.0.0 → 2.0.0"), migrated.stdout)
  }

  func testProgressWhenAsked() throws {
    let source = try itemStore("p.store", ["a", "b", "c"])
    let export = try runModelstore(["export", "--store", source, "--out", dir.file("p.ndjson"), "--progress"])
    XCTAssertTrue(export.stderr.contains("exporting: 3/3 objects (100%)"), export.stderr)
    let quiet = try runModelstore(["export", "--store", source, "--out", dir.file("q.ndjson")])
    XCTAssertFalse(quiet.stderr.contains("%"), "progress without a terminal or --progress: \(quiet.stderr)")
    let imported = try runModelstore(["import", "--store", dir.store("p2.store"), dir.file("p.ndjson"), "--progress"])
    XCTAssertTrue(imported.stderr.contains("importing rows: 3/3 objects (100%)"), imported.stderr)
  }

  func testHintsWhereTheUserWentTheWrongWay() throws {
    // A subset whose objects refer outside it does not import; the message says why.
    let path = try dir.store("tc.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": taskCategorySchema])
    let home = try server.call("objects.insert", ["entity": "Category", "values": ["name": "home"]])["_id"]!
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "t", "category": home]])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    let subset = try runModelstore(["export", "--store", path, "--entity", "Task"])
    let failed = try runModelstore(["import", "--store", dir.store("subset.store"), "-"], input: subset.stdout)
    XCTAssertEqual(failed.status, 1)
    XCTAssertTrue(failed.stderr.contains("hint: ") && failed.stderr.contains("--with-related"), failed.stderr)
    let whole = try runModelstore(["export", "--store", path, "--entity", "Task", "--with-related"])
    XCTAssertEqual(try runModelstore(["import", "--store", dir.store("whole.store"), "-"], input: whole.stdout).status, 0)

    // A Core Data store opened as a ModelStore store.
    guard hasSQLite3CLI else { return }
    let coreData = dir.file("Tasks.sqlite")
    let made = try sqlite3(
      coreData,
      """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZCATEGORY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
      INSERT INTO Z_PRIMARYKEY VALUES (1, 'Category', 0, 1);
      INSERT INTO Z_METADATA VALUES (1, '0B5C7D2E-9A41-4C3B-8E6F-112233445566', NULL);
      INSERT INTO ZCATEGORY VALUES (1, 1, 1, 'Home');
      """)
    XCTAssertEqual(made.status, 0, made.stderr)
    let serve = try runModelstore(["serve", "--store", coreData])
    XCTAssertEqual(serve.status, 1)
    XCTAssertTrue(serve.stderr.contains("hint: '\(coreData)' is a Core Data store"), serve.stderr)
    XCTAssertTrue(serve.stderr.contains("--format coredata") && serve.stderr.contains("import-coredata"), serve.stderr)
    let query = try runModelstore(["query", coreData, "Category"])
    XCTAssertTrue(query.stderr.contains("modelstore query --coredata \(coreData) ENTITY"), query.stderr)
    let inPlace = try runModelstore(["query", coreData, "Category", "--coredata", "--format", "csv"])
    XCTAssertEqual(inPlace.stdout, "_id,name\nCategory/1,Home\n", inPlace.stderr)
  }
}
