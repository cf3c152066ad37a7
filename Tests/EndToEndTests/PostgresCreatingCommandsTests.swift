import Foundation
import TestSupport
import XCTest

/// The commands that make their store when it is missing and take it back when they fail
/// (protocol.md "CLI"): `import` and `import-coredata` into a PostgreSQL schema that did not
/// exist leave no schema, as they leave no file; into a schema that was there they leave
/// the schema. (`copy` makes its target in its one transaction: PostgresCopyTests.) It
/// names PostgreSQL itself, so it runs in `make swift-test` only.
final class PostgresCreatingCommandsTests: XCTestCase {
  private var dir: TemporaryDirectory!
  private var pg: PostgresTestSchema!

  override func setUpWithError() throws {
    pg = try PostgresTestSchema("creating")
    dir = try TemporaryDirectory("modelstore-creating")
  }

  override func tearDown() {
    pg?.drop()
    dir?.remove()
  }

  private func schemaExists() throws -> Bool {
    try PostgresTestCluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(pg.name)'", url: pg.clusterURL).stdout == "1"
  }

  private static let header =
    #"{"format":"modelstore-export","version":1,"schema":{"version":"1","entities":[{"name":"Note","attributes":[{"name":"text","type":"string"}]}]},"entities":["Note"]}"#

  /// An export whose second object refers to an entity the schema lacks: the import fails
  /// after its schema was installed and its first object written (all rolled back).
  private func importFile(good: Bool) throws -> String {
    let path = dir.file(good ? "good.ndjson" : "bad.ndjson")
    var lines = [Self.header, #"{"_id":"Note/1","_entity":"Note","text":"one"}"#]
    if !good { lines.append(#"{"_id":"Nope/1","_entity":"Nope"}"#) }
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
  private func badImportFile() throws -> String { try importFile(good: false) }

  func testAFailedImportDropsTheSchemaItCreated() throws {
    let r = try runModelstore(["import", "--store", pg.storeURL, try badImportFile()])
    XCTAssertEqual(r.status, 1, r.stderr)
    XCTAssertFalse(try schemaExists(), "the schema the import made is gone: \(r.stderr)")
  }

  func testAFailedImportKeepsASchemaThatWasThere() throws {
    XCTAssertEqual(try PostgresTestCluster.psql("CREATE SCHEMA \"\(pg.name)\"", url: pg.clusterURL).status, 0)
    let r = try runModelstore(["import", "--store", pg.storeURL, try badImportFile()])
    XCTAssertEqual(r.status, 1, r.stderr)
    XCTAssertTrue(try schemaExists())
    XCTAssertEqual(try pg.psql("SELECT count(*) FROM _ms_schema_versions").stdout, "0", "nothing of the import was kept")
  }

  func testAFailedImportCoreDataDropsTheSchemaItCreated() throws {
    let r = try runModelstore(["import-coredata", dir.file("missing.sqlite"), "--store", pg.storeURL])
    XCTAssertEqual(r.status, 1, r.stderr)
    XCTAssertFalse(try schemaExists(), r.stderr)
  }

  /// A store that opens and is used stays, of course; and `migrate` makes no store.
  func testASucceededImportKeepsItsStoreAndMigrateMakesNone() throws {
    let good = try importFile(good: true)
    let r = try runModelstore(["import", "--store", pg.storeURL, good])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(try pg.psql("SELECT count(*) FROM \"Note\"").stdout, "1")
    let other = try PostgresTestSchema("creating_migrate")
    defer { other.drop() }
    let schemaFile = dir.file("schema.json")
    try #"{"version":"1","entities":[{"name":"Note","attributes":[{"name":"text","type":"string"}]}]}"#.write(
      toFile: schemaFile, atomically: true, encoding: .utf8)
    let m = try runModelstore(["migrate", "--store", other.storeURL, "--to", schemaFile])
    XCTAssertNotEqual(m.status, 0, m.stderr)
    XCTAssertEqual(
      try PostgresTestCluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(other.name)'", url: other.clusterURL).stdout, "0",
      m.stderr)
  }
}
