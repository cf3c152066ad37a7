import Foundation
import JSONCore
import TestSupport
import XCTest

@testable import StoreEngine

/// `store.backup` of a PostgreSQL store (`StoreCopy.backup`): an SQLite store file holding
/// the store as of one snapshot, while another server commits between the backup's pages
/// of rows; it opens as a store and copies back. And a migration's backup into a schema
/// beside the store's.
final class PostgresBackupTests: XCTestCase {
  private var pg: PostgresTestSchema!
  private var others: [PostgresTestSchema] = []
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws {
    pg = try PostgresTestSchema("backup")
    dir = try TemporaryDirectory("modelstore-pg-backup")
  }

  override func tearDown() {
    pg?.drop()
    for o in others { o.drop() }
    dir?.remove()
  }

  private static let v1 = schema(
    entity("Note", [attr("text", "string"), attr("n", "int64")], relationships: [rel("tags", "Tag", inverse: "notes", toMany: true)]),
    entity("Tag", [attr("label", "string", unique: true)], relationships: [rel("notes", "Note", inverse: "tags", toMany: true)]),
    version: "1")

  private func export(_ store: Store) throws -> String {
    let sink = MemorySink(limit: 64 << 20)
    _ = try store.export(ExportOptions(), to: sink)
    return String(decoding: sink.bytes, as: UTF8.self)
  }

  private func historyCount(_ store: Store) throws -> Int64 {
    try store.connection.scalar("SELECT count(*) FROM \(Store.historyTable)", []).flatMap {
      if case .integer(let n) = $0 { n } else { nil }
    } ?? -1
  }

  /// 5,000 notes in pages of 2,000 rows: the probe between the pages commits a note (one
  /// history transaction each) from another server; the backup holds none of them.
  func testABackupWhileAnotherServerWritesHoldsOneCommit() throws {
    let source = try Store(path: pg.storeURL)
    defer { source.close() }
    _ = try source.define(Self.v1)
    // The export's header line (format and schema), then a tag and the notes.
    var lines = [String(try export(source).split(separator: "\n")[0]), #"{"_id":"Tag/1","_entity":"Tag","label":"t"}"#]
    for i in 1...5000 { lines.append(#"{"_id":"Note/\#(i + 100)","_entity":"Note","text":"note \#(i)","n":\#(i),"tags":["Tag/1"]}"#) }
    _ = try source.importObjects(.bytes(Array(lines.joined(separator: "\n").utf8)), mode: .insert)
    let before = try export(source)
    let historyBefore = try historyCount(source)

    let writer = try Store(path: pg.storeURL)
    defer { writer.close() }
    var written = 0
    source.cancellationProbe = {
      guard written < 20 else { return }
      written += 1
      _ = try? writer.add("Note", ["text": .string("during \(written)"), "n": .int(Int64(-written))])
    }
    let file = dir.file("backup.msto")
    let (path, bytes) = try source.backup(to: file)
    source.cancellationProbe = nil
    XCTAssertEqual(path, file)
    XCTAssertGreaterThan(bytes, 0)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file + "-wal"), "closed: its WAL folded in")
    XCTAssertGreaterThan(written, 1, "the other server committed while the backup ran")
    XCTAssertEqual(try source.entityCounts().first { $0.entity == "Note" }?.count, 5000 + written)

    let backup = try Store(path: file, options: Store.OpenOptions(readOnly: true, create: false))
    XCTAssertEqual(try export(backup), before, "the backup is the store as of one commit, before the other server's")
    XCTAssertEqual(try historyCount(backup), historyBefore, "and its history is that commit's")
    backup.close()

    // Copied back into a new schema, it is the store as it was.
    let back = try PostgresTestSchema("backup_back")
    others.append(back)
    let summary = try StoreCopy.run(from: file, to: back.storeURL, options: StoreCopy.Options(history: true))
    XCTAssertEqual(summary.totalObjects, 5001)
    let restored = try Store(path: back.storeURL, options: Store.OpenOptions(readOnly: true, create: false))
    XCTAssertEqual(try export(restored), before)
    XCTAssertEqual(try historyCount(restored), historyBefore)
    restored.close()
  }

  /// Refusals as on SQLite: an existing file, inside a client transaction; a failure
  /// (cancelled) leaves no file.
  func testABackupIsRefusedOrLeavesNothing() throws {
    let source = try Store(path: pg.storeURL)
    defer { source.close() }
    _ = try source.define(Self.v1)
    _ = try source.add("Tag", ["label": "t"])
    let taken = dir.file("taken.msto")
    XCTAssertTrue(FileManager.default.createFile(atPath: taken, contents: Data("x".utf8)))
    expectStoreError(.invalidArgument) { try source.backup(to: taken) }
    _ = try source.begin()
    expectStoreError(.transaction) { try source.backup(to: dir.file("in-transaction.msto")) }
    _ = try source.rollback()
    source.interrupt()
    let cancelled = dir.file("cancelled.msto")
    expectStoreError(.cancelled) { try source.backup(to: cancelled) }
    source.connection.clearInterrupt()
    XCTAssertFalse(FileManager.default.fileExists(atPath: cancelled))
  }

  /// `migration.apply {backup: true}`: a copy into `SCHEMA_before_1_to_2` beside the
  /// store, which opens as the store at version 1; a refused migration removes it.
  func testAMigrationBacksUpIntoASchemaBesideTheStore() throws {
    let source = try Store(path: pg.storeURL)
    defer { source.close() }
    _ = try source.define(Self.v1)
    _ = try source.add("Tag", ["label": "t"])
    let before = try export(source)
    let v2 = schema(
      entity(
        "Note", [attr("text", "string"), attr("n", "int64"), attr("extra", "string", default: "x")],
        relationships: [rel("tags", "Tag", inverse: "notes", toMany: true)]),
      entity("Tag", [attr("label", "string", unique: true)], relationships: [rel("notes", "Note", inverse: "tags", toMany: true)]),
      version: "2")
    let chain = try source.decodeChain([Self.v1, v2], path: ErrorPlace(.schemas))
    // A schema of the first name exists (empty, someone else's): the backup takes the next.
    let taken = PostgresTestSchema(adopting: "\(pg.name)_before_1_to_2", clusterURL: pg.clusterURL)
    others.append(taken)
    XCTAssertEqual(try PostgresTestCluster.psql("CREATE SCHEMA \"\(taken.name)\"", url: pg.clusterURL).status, 0)
    let result = try source.migrate(chain: chain, stages: [], options: MigrationOptions(backup: true))
    let backupName = "\(pg.name)_before_1_to_2_2"
    let backupSchema = PostgresTestSchema(adopting: backupName, clusterURL: pg.clusterURL)
    XCTAssertEqual(
      try taken.psql("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(taken.name)'")
        .stdout, "0")
    others.append(backupSchema)
    XCTAssertEqual(result.backupPath, PostgresTestCluster.adding("schema=\(backupName)", to: pg.clusterURL))
    let backup = try Store(path: backupSchema.storeURL, options: Store.OpenOptions(readOnly: true, create: false))
    XCTAssertEqual(backup.schema?.version, "1")
    XCTAssertEqual(try export(backup), before)
    backup.close()

    // A migration whose stage fails (a uniqueness two notes break) removes its backup.
    _ = try source.add("Note", ["text": "same", "n": 1])
    _ = try source.add("Note", ["text": "same", "n": 2])
    let v3 = schema(
      entity(
        "Note", [attr("text", "string", unique: true), attr("n", "int64"), attr("extra", "string", default: "x")],
        relationships: [rel("tags", "Tag", inverse: "notes", toMany: true)]),
      entity("Tag", [attr("label", "string", unique: true)], relationships: [rel("notes", "Note", inverse: "tags", toMany: true)]),
      version: "3")
    let failingChain = try source.decodeChain([Self.v1, v2, v3], path: ErrorPlace(.schemas))
    let pattern = "\(pg.name)\\_before\\_2\\_to\\_3%"
    func backups() throws -> String {
      try PostgresTestCluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname LIKE '\(pattern)'", url: pg.clusterURL).stdout
    }
    var seenDuringStage = false
    source.cancellationProbe = {
      if !seenDuringStage && source.isMigrating { seenDuringStage = (try? backups()) == "1" }
    }
    XCTAssertThrowsError(try source.migrate(chain: failingChain, stages: [], options: MigrationOptions(backup: true)))
    source.cancellationProbe = nil
    XCTAssertTrue(seenDuringStage, "the backup was there while the stage ran")
    let left = try backups()
    XCTAssertEqual(left, "0")
  }
}
