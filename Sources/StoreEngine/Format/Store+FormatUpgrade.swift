import DatabaseKit
import JSONCore
import SchemaModel

#if canImport(Glibc)
  import Glibc
#endif

/// What the upgrade of a format-1 file did (`Store.formatUpgrade`, `modelstore upgrade`).
public struct FormatUpgradeReport {
  /// The copy of the format-1 file made first (`PATH.format1-backup`).
  public var backup: String
  /// Hierarchy tables rebuilt, and the objects they hold.
  public var tables: [String] = []
  public var objects: Int64 = 0
  /// History transactions whose changes were re-encoded.
  public var historyTransactions: Int64 = 0
}

/// Format 1 is ModelStore's first file layout: entity names as text in `_ent`, uuids as
/// 36-character text, AUTOINCREMENT keys, history changes as JSON text. A writable file
/// of format 1 is upgraded in place when it is opened, once:
///
/// 1. A copy of the whole file is written first (`VACUUM INTO` a partial name, synced,
///    then linked to `PATH.format1-backup`; an existing backup is kept, never replaced).
/// 2. One write transaction rebuilds each hierarchy table (renamed aside, created in the
///    format-2 layout, filled with `INSERT ... SELECT` mapping names to codes and uuid
///    text to bytes, the old one dropped, indexes built), fills `_ms_entities` and
///    `_ms_keys` (from AUTOINCREMENT's counters, so no key is ever reused), re-encodes the
///    history, and sets `formatVersion` to 2. SQLite's transaction makes it all or
///    nothing: a process killed at any point leaves the format-1 file (upgraded again at
///    the next open) or the format-2 one.
/// 3. `VACUUM` returns the old tables' pages (also atomic).
///
/// Several processes opening the file at once: the first to take the write lock upgrades;
/// the others find formatVersion 2 under the lock and do nothing.
extension Store {
  static func format1BackupPath(_ path: String) -> String { path + ".format1-backup" }

  /// Upgrades this (writable, file) store from format 1; nil when another process did it
  /// first.
  func upgradeFormat1() throws -> FormatUpgradeReport? {
    guard let path else { return nil }
    let backup = try backUpFormat1(path)
    try registerUpgradeFunctions()
    let report: FormatUpgradeReport? = try connection.inTransaction {
      guard try meta("formatVersion") == "1" else { return nil }
      var report = FormatUpgradeReport(backup: backup)
      try convertFormat1(&report)
      try setMeta("formatVersion", String(Store.formatVersion))
      try setMeta("upgradedFromFormat1At", ISODate.format(currentTimeSeconds()))
      return report
    }
    // The upgrade is committed; VACUUM only gives the old tables' pages back, so a file
    // it cannot rewrite now (a full disk) is still a whole format-2 store.
    if report != nil { try? connection.execute("VACUUM") }
    return report
  }

  /// `PATH.format1-backup`, written whole before it gets its name, so a backup that
  /// exists is complete.
  private func backUpFormat1(_ path: String) throws -> String {
    let final = Store.format1BackupPath(path)
    if access(final, F_OK) == 0 { return final }
    let partial = "\(final).partial-\(getpid())"
    unlink(partial)
    do {
      try connection.run("VACUUM INTO ?", [.text(SQLiteDatabase.fileName(forPath: partial))])
      try Store.syncFile(partial)
    } catch {
      unlink(partial)
      throw StoreError(
        .storage, "cannot back up '\(path)' before upgrading it to formatVersion \(Store.formatVersion): \(error); it was not changed",
        ["path": .string(path), "backup": .string(final)])
    }
    // link() does not replace: a backup another process finished first is kept.
    if link(partial, final) != 0 && errno != EEXIST {
      let reason = String(cString: strerror(errno))
      unlink(partial)
      throw StoreError(.storage, "cannot name the backup '\(final)': \(reason); '\(path)' was not changed", ["path": .string(path)])
    }
    unlink(partial)
    try Store.syncFile(Store.directory(of: final))
    return final
  }

  private static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  private static func syncFile(_ path: String) throws {
    let fd = Glibc.open(path, O_RDONLY)
    guard fd >= 0 else { throw StoreError(.storage, "cannot open '\(path)' to sync it: \(String(cString: strerror(errno)))") }
    defer { Glibc.close(fd) }
    guard fsync(fd) == 0 else { throw StoreError(.storage, "cannot sync '\(path)': \(String(cString: strerror(errno)))") }
  }

  /// `ms_format1_uuid(x)`: uuid text as its 16 bytes, anything else as it is;
  /// `ms_format1_changes(x)`: a history row's JSON text as the change blob, text that does
  /// not parse as it is (reported as damaged when read, as before).
  private func registerUpgradeFunctions() throws {
    try connection.createFunction("ms_format1_uuid", argumentCount: 1) { args in
      guard case .text(let s) = args[0], let bytes = UUIDText.bytes(s) else { return args[0] }
      return .blob(bytes)
    }
    try connection.createFunction("ms_format1_changes", argumentCount: 1) { args in
      guard case .text(let s) = args[0], let groups = try? JSONParser.parse(s), case .array = groups else { return args[0] }
      return .blob(ChangeEncoding.encode(groups))
    }
  }

  private func convertFormat1(_ report: inout FormatUpgradeReport) throws {
    try connection.execute(EntityCodes.createSQL)
    try connection.execute(KeyAllocator.createSQL)
    if let text = try meta("schema") {
      let (schema, issues) = SchemaValidator.check(try JSONParser.parse(text))
      if let e = issues.first(where: { $0.severity == .error }) {
        throw StoreError(.schemaMismatch, "the schema stored in this file does not validate: \(e.message); it was not upgraded")
      }
      let graph = ModelGraph(schema)
      try EntityCodes.assign(schema, connection: connection)
      let roots = graph.ordered.filter(\.isRoot)
      // Rows of an entity no schema lists (another program's) keep a code of their own.
      for root in roots where try connection.hasTable(root.name) {
        try connection.run(
          connection.dialect.insertSkippingDuplicates(
            "\(EntityCodes.table) (\"name\") SELECT DISTINCT \"_ent\" FROM \(Identifier.quote(root.name)) WHERE \"_ent\" IS NOT NULL"
          ))
      }
      let codes = try EntityCodes(connection: connection)
      for root in roots { try rebuildFormat1Table(root, graph: graph, codes: codes, &report) }
    }
    try rebuildFormat1History(&report)
  }

  /// AUTOINCREMENT's counter for `table`: the largest key it ever gave.
  private func autoincrementMax(_ table: String) throws -> Int64 {
    guard try connection.hasTable("sqlite_sequence") else { return 0 }
    if case .integer(let n)? = try connection.scalar("SELECT \"seq\" FROM sqlite_sequence WHERE \"name\" = ?", [.text(table)]) { return n }
    return 0
  }

  private func rebuildFormat1Table(_ root: EntityModel, graph: ModelGraph, codes: EntityCodes, _ report: inout FormatUpgradeReport) throws {
    let table = root.name
    let aside = "_ms_format1_\(table)"
    let exists = try connection.hasTable(table)
    var oldColumns: Set<String> = []
    let counter = try autoincrementMax(table)
    if exists {
      try connection.prepare("SELECT \"name\" FROM pragma_table_info(?)").forEachRow([.text(table)]) { oldColumns.insert($0.text(0)) }
      try connection.execute("ALTER TABLE \(Identifier.quote(table)) RENAME TO \(Identifier.quote(aside))")
    }
    // `_ent` where the hierarchy has several entities (or rows of another entity are
    // there), `_opt` where a row was updated: the layout a new table of this version has.
    let old = Identifier.quote(aside)
    let foreign =
      oldColumns.contains("_ent") ? try connection.scalar("SELECT 1 FROM \(old) WHERE \"_ent\" <> ? LIMIT 1", [.text(table)]) : nil
    let updated = oldColumns.contains("_opt") ? try connection.scalar("SELECT 1 FROM \(old) WHERE \"_opt\" <> 1 LIMIT 1") : nil
    let tagged = root.hasSubentities || foreign != nil
    let versioned = updated != nil
    try connection.execute(
      StorageLayout.createTableSQL(root, graph: graph, dialect: connection.dialect, entityColumn: tagged, versionColumn: versioned))
    codes.setTagged(table, tagged)
    if exists {
      let uuids = Set(root.hierarchy.flatMap { $0.entity.attributes.filter { $0.type == .uuid && !$0.transient }.map(\.name) })
      // Every name in `_ent` has a code (convertFormat1 gave the unknown ones theirs).
      let entity = "(SELECT \"code\" FROM \(EntityCodes.table) WHERE \"name\" = t.\"_ent\")"
      var targets = ["\"_pk\""]
      var sources = ["t.\"_pk\""]
      if tagged {
        targets.append("\"_ent\"")
        sources.append(entity)
      }
      if versioned {
        targets.append("\"_opt\"")
        sources.append("t.\"_opt\"")
      }
      for c in StorageLayout.columns(ofHierarchy: root, graph: graph) where oldColumns.contains(c.name) {
        let q = Identifier.quote(c.name)
        targets.append(q)
        sources.append(uuids.contains(c.name) ? "ms_format1_uuid(t.\(q))" : "t.\(q)")
      }
      try connection.execute(
        "INSERT INTO \(Identifier.quote(table)) (\(targets.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(Identifier.quote(aside)) t"
      )
      report.objects += Int64(connection.changes)
      try connection.execute("DROP TABLE \(Identifier.quote(aside))")
    }
    for sql in StorageLayout.indexSQL(root, graph: graph, codes: codes) { try connection.execute(sql) }
    let top = try connection.scalar("SELECT max(coalesce(max(\"_pk\"), 0), ?) FROM \(Identifier.quote(table))", [.integer(counter)])
    if case .integer(let largest)? = top, largest > 0 {
      try KeyAllocator.raise(table, to: largest, connection: connection)
    }
    report.tables.append(table)
  }

  private func rebuildFormat1History(_ report: inout FormatUpgradeReport) throws {
    guard try connection.hasTable(Store.historyTable) else { return }
    let counter = try autoincrementMax(Store.historyTable)
    let aside = "_ms_format1_history"
    try connection.execute("ALTER TABLE \(Store.historyTable) RENAME TO \(aside)")
    try createHistoryTable()
    try connection.execute(
      "INSERT INTO \(Store.historyTable) (\"token\", \"timestamp\", \"author\", \"changes\") SELECT \"token\", \"timestamp\", \"author\", ms_format1_changes(\"changes\") FROM \(aside)"
    )
    report.historyTransactions = Int64(connection.changes)
    try connection.execute("DROP TABLE \(aside)")
    if counter > 0 {
      try KeyAllocator.raise(Store.historyTable, to: counter, connection: connection)
    }
  }
}
