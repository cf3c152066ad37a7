import DatabaseKit
import FileAccess
import JSONCore
import SchemaModel

#if canImport(Glibc)
  import Glibc
#endif

/// Store-level facts and maintenance: info, integrity check, online backup.
extension Store {
  /// Why a migration cannot back the store up first (into a file beside it, or another
  /// schema of a PostgreSQL store's database); nil when it can.
  public var migrationBackupRefusal: String? {
    if path != nil || database.backsUpByCopyingRows { return nil }
    return "an in-memory store cannot be backed up"
  }

  /// Whether `migration.apply` backs the store up unless told otherwise: a file store.
  public var migrationBacksUpByDefault: Bool { path != nil }

  /// Objects per concrete entity. A table that holds one entity is counted with a plain
  /// `count(*)`, which SQLite answers from its smallest b-tree (a million rows: 3 to 20 ms
  /// instead of 400 ms for the grouping by `_ent` that a shared table needs; a table of one
  /// entity holds only its objects, whatever a foreign writer put in `_ent`, as reading does).
  public func entityCounts() throws -> [(entity: String, count: Int)] {
    guard let graph else { return [] }
    var counts: [String: Int] = [:]
    for root in graph.ordered where root.isRoot {
      let table = Identifier.quote(root.name)
      if !root.hasSubentities {
        if case .integer(let n)? = try connection.scalar("SELECT count(*) FROM \(table)") { counts[root.name] = Int(n) }
        continue
      }
      try connection.cached("SELECT \"_ent\", count(*) FROM \(table) GROUP BY \"_ent\"").forEachRow {
        counts[entityCodes.name($0, 0)] = Int($0.int(1))
      }
    }
    return graph.ordered.filter { !$0.entity.abstract }.map { ($0.name, counts[$0.name] ?? 0) }
  }

  public func info() throws -> JSONObject {
    try readingOneSnapshot {
      // A file's path, or a server's URL without its password; null in memory.
      let location = database.isShared ? JSONValue.string(database.displayName) : .null
      var o: JSONObject = [
        "path": location, "memory": .bool(location == .null), "readOnly": .bool(isReadOnly),
        "format": "modelstore", "formatVersion": .int(Int64(Store.formatVersion)),
      ]
      if let coreData {
        o["format"] = "coredata"
        o["formatVersion"] = nil
        o["path"] = coreData["path"] ?? .null
        o["memory"] = false
        o.append("coreData", .object(coreData))
      }
      if let schema {
        o.append("schemaVersion", .string(schema.version))
        o.append("schemaHash", .string(schema.versionHash))
      } else {
        o.append("schemaVersion", .null)
        o.append("schemaHash", .null)
      }
      var counts = JSONObject()
      for (e, n) in try entityCounts() { counts.append(e, .int(Int64(n))) }
      o.append("counts", .object(counts))
      for fact in try database.facts() { o.append(fact.key, fact.value) }
      o.append("openTransactions", .int(Int64(writes.userTransactions)))
      o.append("sqliteVersion", .string(Store.sqliteVersion))
      return o
    }
  }

  /// The engine's integrity check (SQLite's; none on PostgreSQL) plus ModelStore's own
  /// consistency checks: every table and column the schema needs exists, and no
  /// relationship points at a missing object.
  public func check() throws -> JSONObject {
    try readingOneSnapshot {
      let lines = try database.integrityCheck()
      let integrity: [JSONValue] = (lines ?? []).map { .string($0) }
      var problems: [JSONValue] = []
      if let schema {
        // The hashes recorded at define time must still describe the stored schema.
        if let text = try meta("entityHashes"), let recorded = try? JSONParser.parse(text), recorded != Store.entityHashes(schema) {
          problems.append(.object(["message": .string("the recorded entity version hashes do not match the stored schema")]))
        }
        if let hash = try meta("schemaHash"), hash != schema.versionHash {
          problems.append(.object(["message": .string("the recorded schema hash does not match the stored schema")]))
        }
      }
      if let graph {
        for root in graph.ordered where root.isRoot {
          let existing = try database.columnNames(root.name)
          if existing.isEmpty {
            problems.append(.object(["entity": .string(root.name), "message": .string("table '\(root.name)' is missing")]))
            continue
          }
          for c in StorageLayout.columns(ofHierarchy: root, graph: graph)
          where !existing.contains(connection.dialect.storedName(c.name)) {
            problems.append(
              .object(["entity": .string(root.name), "attribute": .string(c.name), "message": .string("column '\(c.name)' is missing")]))
          }
        }
        for m in graph.ordered {
          let plan = catalog.plans[m.name]!
          for r in m.entity.relationships where !r.toMany {
            let dest = catalog.plans[r.destination]!
            let col = Identifier.quote(r.name)
            let n =
              try connection.prepare(
                "SELECT count(*) FROM \(plan.table) t WHERE t.\(col) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(dest.table) d WHERE d.\"_pk\" = t.\(col))"
              ).first([], { $0.int(0) }) ?? 0
            if n > 0 {
              problems.append(
                .object([
                  "entity": .string(m.name), "relationship": .string(r.name), "count": .int(n),
                  "message": .string(
                    "\(n) object\(n == 1 ? "" : "s") of '\(m.name)' point through '\(r.name)' at missing \(r.destination) objects"),
                ]))
            }
          }
        }
      }
      let ok = (lines == nil || integrity == [.string("ok")]) && problems.isEmpty
      return ["ok": .bool(ok), "integrity": .array(integrity), "problems": .array(problems)]
    }
  }

  /// A consistent copy of the store at `destination`: SQLite's online backup, or for a
  /// PostgreSQL store a new SQLite store file holding its rows as of one snapshot
  /// (`StoreCopy.backup`). Refuses to overwrite anything: the file is created exclusively
  /// first (`createBackupFile`).
  public func backup(to destination: String) throws -> (path: String, bytes: Int64) {
    if coreData != nil {
      throw StoreError(
        .invalidArgument,
        "store.backup copies a ModelStore store; this is a Core Data store opened in place: use import.coreData to copy it")
    }
    if writes.userTransactions > 0 {
      throw StoreError(
        .transaction, "store.backup cannot run inside a client transaction (it would copy uncommitted work); commit or roll back first")
    }
    try createBackupFile(destination, place: ErrorPlace(.to))
    do {
      if database.backsUpByCopyingRows {
        _ = try StoreCopy.backup(self, intoFile: destination)
      } else {
        try connection.backup(to: destination)
      }
    } catch {
      for suffix in ["", "-wal", "-shm", "-journal"] { unlink(destination + suffix) }
      if let e = error as? any DatabaseError {
        throw StoreError(.storage, "backup to '\(destination)' failed: \(e.message)", ["path": .string(destination)])
      }
      throw error
    }
    var st = stat()
    _ = stat(destination, &st)
    return (destination, Int64(st.st_size))
  }
}

extension Store {
  /// Creates the (empty) file a backup is copied into, atomically refusing anything
  /// already at `path`: a file, a directory, a link (dangling or not). SQLite then opens
  /// that file by its path, never as a URI.
  func createBackupFile(_ path: String, place: ErrorPlace?) throws {
    do {
      Glibc.close(try UserPath.createNew(path, what: "the backup file"))
    } catch let e as FileAccessError {
      throw StoreError(e, place: place)
    }
  }
}
