import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

/// Files written by format 1 (Tests/Fixtures/Format1, by commit 00ceadf) are upgraded in
/// place when opened for writing: every object, link and history transaction is still
/// there and reads the same, keys go on above AUTOINCREMENT's counters, and a backup of
/// the old file is kept.
final class FormatUpgradeTests: XCTestCase {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/Format1")

  private func copy(_ name: String) throws -> String {
    let source = Self.fixtures.appendingPathComponent(name).path
    guard fileExists(source) else { throw XCTSkip("fixture \(source) is missing") }
    let path = temporaryPath(self, name)
    let data = try Data(contentsOf: URL(fileURLWithPath: source))
    try data.write(to: URL(fileURLWithPath: path))
    return path
  }

  /// Every row of every table of a format-1 file in a comparable form: entity names as
  /// they were, uuids as text (their columns named in `uuidColumns`), the rest as stored.
  private func formatOneRows(_ path: String, uuidColumns: Set<String>) throws -> [String: [[String: SQLValue]]] {
    let c = try Connection(file: path, options: Connection.Options(readOnly: true, create: false))
    defer { c.close() }
    return try rows(c, skip: ["_ms_meta", "_ms_history", "_ms_schema_versions", "sqlite_sequence"]) { _, column, value in
      if uuidColumns.contains(column), case .text(let s) = value { return .text(s) }
      return value
    }
  }

  private func rows(
    _ c: any DatabaseConnection, skip: Set<String>, _ map: (String, String, SQLValue) throws -> SQLValue
  ) throws -> [String: [[String: SQLValue]]] {
    var tables: [String] = []
    try c.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").forEachRow {
      tables.append($0.text(0))
    }
    var out: [String: [[String: SQLValue]]] = [:]
    for t in tables where !skip.contains(t) {
      let statement = try c.prepare("SELECT * FROM \(Identifier.quote(t)) ORDER BY 1, 2")
      var list: [[String: SQLValue]] = []
      try statement.forEachRow { row in
        var o: [String: SQLValue] = [:]
        for i in 0..<row.count { o[statement.columnName(i)] = try map(t, statement.columnName(i), row.value(i)) }
        list.append(o)
      }
      out[t] = list
    }
    return out
  }

  private func check(fixture: String, uuidColumns: Set<String>) throws -> Store {
    let path = try copy(fixture)
    let expected = try formatOneRows(path, uuidColumns: uuidColumns)
    let oldHistory: [(Int64, String)] = try {
      let c = try Connection(file: path, options: Connection.Options(readOnly: true, create: false))
      defer { c.close() }
      var out: [(Int64, String)] = []
      try c.prepare("SELECT token, changes FROM _ms_history ORDER BY token").forEachRow { out.append(($0.int(0), $0.text(1))) }
      return out
    }()
    let sequence: [String: Int64] = try {
      let c = try Connection(file: path, options: Connection.Options(readOnly: true, create: false))
      defer { c.close() }
      var out: [String: Int64] = [:]
      try c.prepare("SELECT name, seq FROM sqlite_sequence").forEachRow { out[$0.text(0)] = $0.int(1) }
      return out
    }()

    let store = try Store(path: path)
    let report = try XCTUnwrap(store.formatUpgrade, "opening for writing upgrades")
    XCTAssertEqual(report.backup, path + ".format1-backup")
    XCTAssertEqual(try store.meta("formatVersion"), "2")
    let checked = try store.check()
    XCTAssertEqual(checked["ok"], true, "\(checked)")

    // The same rows, with names and uuid text read back from codes and bytes.
    let codes = store.entityCodes
    let upgraded = try rows(store.connection, skip: ["_ms_meta", "_ms_history", "_ms_schema_versions", "_ms_entities", "_ms_keys"]) {
      _, column, value in
      if column == "_ent", case .integer(let n) = value { return .text(codes.name(n)) }
      if uuidColumns.contains(column), case .blob(let b) = value, b.count == 16 { return .text(UUIDText.text(b)) }
      return value
    }
    XCTAssertEqual(Set(upgraded.keys), Set(expected.keys))
    // Format 2 leaves `_ent` out of a one-entity table and `_opt` out of a table whose rows
    // were never updated: compared without the values those columns would hold then.
    func layoutFree(_ table: String, _ list: [[String: SQLValue]]) -> [[String: SQLValue]] {
      list.map { row in
        var r = row
        if r["_ent"] == .text(table) { r["_ent"] = nil }
        if r["_opt"] == .integer(1) { r["_opt"] = nil }
        return r
      }
    }
    for (table, list) in expected { XCTAssertEqual(layoutFree(table, upgraded[table]!), layoutFree(table, list), table) }
    // uuid columns hold 16 bytes now.
    for column in uuidColumns {
      for (table, list) in try rows(store.connection, skip: [], { _, _, v in v }) where list.first?[column] != nil {
        for row in list {
          guard let v = row[column], v != .null else { continue }
          if case .blob(let b) = v { XCTAssertEqual(b.count, 16, "\(table).\(column)") } else { XCTFail("\(table).\(column) holds \(v)") }
        }
      }
    }

    // History: every transaction, with the same changes.
    let history = try store.history()
    XCTAssertEqual(history.map(\.token), oldHistory.map(\.0))
    for (t, (_, text)) in zip(history, oldHistory) { XCTAssertEqual(t.changes, try JSONParser.parse(text), "token \(t.token)") }
    XCTAssertEqual(report.historyTransactions, Int64(oldHistory.count))

    // AUTOINCREMENT's counters carried over: keys and tokens go on above them.
    for (name, seq) in sequence where name != "_ms_schema_versions" {
      XCTAssertEqual(try store.connection.scalar("SELECT max FROM _ms_keys WHERE name = ?", [.text(name)]), .integer(seq), name)
    }

    // The backup is the format-1 file: same rows.
    XCTAssertEqual(try formatOneRows(report.backup, uuidColumns: uuidColumns), expected)
    return store
  }

  func testTheSeedsStoreIsUpgradedWithEveryObjectAndTransaction() throws {
    let store = try check(fixture: "seeds.store", uuidColumns: ["id"])
    // Task 13 was the newest and was deleted: its key is not given again.
    let t = try store.insert(entity: "Task", values: ["title": "new", "category": "Category/1"])
    XCTAssertEqual(t["_id"], "Task/14")
    let c = try store.insert(entity: "Category", values: ["name": "again"])
    XCTAssertEqual(c["_id"], "Category/4")
    let h = try store.history()
    XCTAssertEqual(h.suffix(2).map(\.token), [22, 23])
    // Queries on uuids compare bytes.
    let hit = try store.fetch(
      FetchRequest(entity: "Category", predicate: try PredicateParser.parse("id == '5b2a0c1e-8d4f-4c7a-9e21-3f6b7a8c9d01'")))
    XCTAssertEqual(hit.map { $0["name"] }, ["Home"])
    // The unique index on the uuid holds.
    XCTAssertThrowsError(try store.insert(entity: "Category", values: ["name": "dup", "id": "5B2A0C1E-8D4F-4C7A-9E21-3F6B7A8C9D01"]))
  }

  func testEveryTypeInheritanceAndRelationshipKindSurvives() throws {
    let store = try check(fixture: "everything.store", uuidColumns: ["u", "tag"])
    let dogs = try store.fetch(FetchRequest(entity: "Pet"))
    XCTAssertEqual(Set(dogs.map { $0["_entity"]?.stringValue ?? "" }), ["Pet", "Dog", "Cat"])
    let rex = try XCTUnwrap(dogs.first { $0["name"] == "Rex" })
    XCTAssertEqual(rex["tag"], "11111111-2222-4333-8444-555555555555")
    let ann = try store.get(id: "Person/1", toMany: .ids)
    XCTAssertEqual(ann["pets"], ["Dog/1", "Cat/2"])
    XCTAssertEqual(ann["steps"]?.arrayValue?.count, 3)
    let thing = try store.get(id: "Thing/1", toMany: .ids)
    XCTAssertEqual(thing["u"], "A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D")
    XCTAssertEqual(thing["i64"], .int(Int64.min))
    XCTAssertEqual(thing["dec"], "12.5", "the canonical decimal format 1 stored")
    XCTAssertEqual(thing["friends"], ["Thing/2"])
    // A sub-entity's partial unique index works on codes.
    XCTAssertThrowsError(try store.insert(entity: "Dog", values: ["name": "Rex 2", "tag": "11111111-2222-4333-8444-555555555555"]))
  }

  func testAStoreWithoutASchemaIsUpgradedToo() throws {
    let path = try copy("empty.store")
    let store = try Store(path: path)
    XCTAssertNotNil(store.formatUpgrade)
    XCTAssertEqual(try store.meta("formatVersion"), "2")
    _ = try store.define(taskCategorySchema)
    XCTAssertEqual(try store.insert(entity: "Category", values: ["name": "a"])["_id"], "Category/1")
  }

  func testAnExistingBackupIsKeptNotReplaced() throws {
    let path = try copy("seeds.store")
    let backup = Store.format1BackupPath(path)
    try Data("an earlier backup".utf8).write(to: URL(fileURLWithPath: backup))
    _ = try Store(path: path)
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: backup)), Data("an earlier backup".utf8))
  }

  func testABackupThatCannotBeWrittenStopsTheUpgradeWithTheFileUnchanged() throws {
    let path = try copy("seeds.store")
    // A directory where the partial backup would go: VACUUM INTO cannot write it.
    let partial = Store.format1BackupPath(path) + ".partial-\(getpid())"
    XCTAssertEqual(mkdir(partial, 0o700), 0)
    defer { rmdir(partial) }
    let e = expectStoreError(.storage) { try Store(path: path) }
    XCTAssertTrue(e?.message.contains("cannot back up") ?? false, e?.message ?? "")
    let c = try Connection(file: path, options: Connection.Options(readOnly: true, create: false))
    defer { c.close() }
    XCTAssertEqual(try c.scalar("SELECT value FROM _ms_meta WHERE key = 'formatVersion'"), .text("1"))
  }
}
