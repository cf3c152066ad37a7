import Foundation
import JSONCore
import TestSupport
import XCTest

/// `modelstore import-coredata` and `serve --format coredata` against the real binary, on a
/// Core Data-layout store written with the sqlite3 shell.
final class CoreDataStoreCommandTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws {
    try TestEngine.requireSQLite("Core Data stores are SQLite files")
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed at \(sqlite3CLI.path)") }
    dir = try TemporaryDirectory()
  }
  override func tearDown() { dir?.remove() }

  /// Category (1) and Task (2) with a to-one key, a date and a 16-byte UUID per task.
  private func writeStore(_ path: String, taskCount: Int, badUUIDAt bad: Int? = nil) throws {
    var sql = """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZCATEGORY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
      CREATE TABLE ZTASK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCATEGORY INTEGER, ZDUE TIMESTAMP, ZTITLE VARCHAR, ZTASKID BLOB );
      CREATE INDEX ZTASK_ZCATEGORY_INDEX ON ZTASK (ZCATEGORY);
      INSERT INTO Z_PRIMARYKEY VALUES (1, 'Category', 0, 2), (2, 'Task', 0, \(taskCount));
      INSERT INTO Z_METADATA VALUES (1, '0B5C7D2E-9A41-4C3B-8E6F-112233445566', NULL);
      INSERT INTO ZCATEGORY VALUES (1, 1, 1, 'Home'), (2, 1, 1, 'Work');
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(taskCount))
      INSERT INTO ZTASK SELECT i, 2, 1, 1 + i % 2, 700000000.0 + i, 'Task ' || i, randomblob(16) FROM n;
      """
    if let bad { sql += "UPDATE ZTASK SET ZTASKID = randomblob(8) WHERE Z_PK = \(bad);" }
    let r = try sqlite3(path, sql)
    XCTAssertEqual(r.status, 0, r.stderr)
  }

  func testImportCoreDataPrintsPerEntityCounts() throws {
    let source = dir.file("Tasks.sqlite")
    try writeStore(source, taskCount: 250)
    let out = dir.file("out.store")
    let r = try runModelstore(["import-coredata", source, "--store", out])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(r.stdout.contains("imported 252 objects"), r.stdout)
    XCTAssertTrue(r.stdout.contains("  Category: 2\n  Task: 250\n"), r.stdout)
    XCTAssertEqual(try sqlite3(out, "SELECT count(*) FROM \"Task\" WHERE \"category\" = 2", readOnly: true).stdout, "125")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix("Tasks") }, ["Tasks.sqlite"])
  }

  func testAFailedImportLeavesTheOutputUnchangedAndExitsOne() throws {
    let source = dir.file("Bad.sqlite")
    try writeStore(source, taskCount: 20, badUUIDAt: 17)
    let out = dir.file("out.store")
    let r = try runModelstore(["import-coredata", source, "--store", out])
    XCTAssertEqual(r.status, 1)
    XCTAssertTrue(r.stderr.contains("Task Z_PK 17, column ZTASKID"), r.stderr)
    // The output the command created is removed again (it held nothing).
    XCTAssertFalse(dir.exists("out.store"), "the failed import left its output")
    // An output that existed is kept.
    let existing = dir.file("existing.store")
    let server = try ServerProcess(arguments: ["serve", "--store", existing])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    XCTAssertEqual(try runModelstore(["import-coredata", source, "--store", existing]).status, 1)
    XCTAssertTrue(dir.exists("existing.store"))
    XCTAssertEqual(try runModelstore(["import-coredata", "--store", out]).status, 2)
  }

  /// A bundle `Tasks` (Task without due and taskID) → `Tasks 2` (all of the store's columns).
  private func writeModel() throws -> String {
    let bundle = dir.file("Tasks.xcdatamodeld")
    let category = """
      <entity name="Category"><attribute name="name" optional="YES" attributeType="String"/>
      <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="category" inverseEntity="Task"/></entity>
      """
    let more = """
      <attribute name="due" optional="YES" attributeType="Date"/><attribute name="taskID" optional="YES" attributeType="UUID"/>
      """
    for (name, extra) in [("Tasks", ""), ("Tasks 2", more)] {
      let task = """
        <entity name="Task"><attribute name="title" optional="YES" attributeType="String"/>\(extra)
        <relationship name="category" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Category" inverseName="tasks" inverseEntity="Category"/></entity>
        """
      try FileManager.default.createDirectory(atPath: bundle + "/\(name).xcdatamodel", withIntermediateDirectories: true)
      try "<model>\(category)\(task)</model>".write(toFile: bundle + "/\(name).xcdatamodel/contents", atomically: true, encoding: .utf8)
    }
    return bundle
  }

  /// With a model, the command says which version it read the store with and why; serve
  /// takes the model and a version to use (issue #16, cause 6).
  func testTheModelVersionIsReportedAndCanBeNamed() throws {
    let source = dir.file("Tasks.sqlite")
    try writeStore(source, taskCount: 10)
    let model = try writeModel()
    let r = try runModelstore(["import-coredata", source, "--model", model, "--store", dir.file("out.store")])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(
      r.stdout.contains(
        "  model version 'Tasks 2' (high confidence: the only version that fits best: every property has its column and every column its property (the next best misses 2))\n"
      ), r.stdout)
    let server = try ServerProcess(arguments: [
      "serve", "--store", source, "--format", "coredata", "--model", model, "--model-version", "Tasks",
    ])
    let info = try server.call("store.info", [:])
    XCTAssertEqual(info["coreData"]?["modelVersion"]?["name"], "Tasks")
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "category.name == 'Work'"])["count"], .int(5))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    XCTAssertEqual(try runModelstore(["serve", "--store", source, "--model", model]).status, 2, "--model needs --format coredata")
    let wrong = try runModelstore([
      "import-coredata", source, "--model", model, "--model-version", "Tasks 9", "--store", dir.file("x.store"),
    ])
    XCTAssertEqual(wrong.status, 1)
    XCTAssertTrue(wrong.stderr.contains("--model-version: '\(model)' has no version 'Tasks 9'"), wrong.stderr)
  }

  func testServeFormatCoreDataBrowsesInPlace() throws {
    let source = dir.file("Tasks.sqlite")
    try writeStore(source, taskCount: 10)
    let server = try ServerProcess(arguments: ["serve", "--store", source, "--format", "coredata"])
    XCTAssertEqual(try server.call("store.info", [:])["format"], "coredata")
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "category.name == 'Work'"])["count"], .int(5))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }
}
