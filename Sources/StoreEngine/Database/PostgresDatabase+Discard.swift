import DatabaseKit

/// Taking back a store that was made for something that then failed: the schema a failed
/// `modelstore import` or `import-coredata` created (as a store file the command created
/// is removed), and the backup schema of a migration refused before any stage was applied.
extension PostgresDatabase {
  /// Drops the schema this opening created (`createdSchema`), with the store's tables and
  /// functions, when it is still as it was made: under the store's write lock, only when
  /// no write transaction committed to it since `commits` was read (another server that
  /// opened the new store and wrote to it keeps it) and it holds nothing but the store's
  /// bookkeeping tables and functions. True when it was dropped.
  func discardCreated(commits: Int64?) throws -> Bool {
    guard createdSchema, let commits else { return false }
    return try dropStoreSchema(tables: []) { try dataVersion() == commits }
  }

  /// Drops the store's schema with its tables (the bookkeeping tables and `tables`) and
  /// functions, in one transaction under the store's write lock, when `stillSo` holds
  /// there and the schema holds nothing else: `DROP SCHEMA` without `CASCADE`, so anything
  /// else in it, or anything elsewhere that depends on it, keeps it. True when dropped.
  func dropStoreSchema(tables storeTables: Set<String>, when stillSo: () throws -> Bool = { true }) throws -> Bool {
    let schema = postgres.schema
    // The commit counts no commit in `_ms_meta`, which it drops.
    let prelude = postgres.commitPrelude
    postgres.commitPrelude = nil
    defer { postgres.commitPrelude = prelude }
    return try postgres.inTransaction {
      guard case .store = try contents(), try stillSo() else { return false }
      let own = storeTables.union([
        StorageLayout.metaTable, StorageLayout.versionsTable, EntityCodes.table, KeyAllocator.table, Store.historyTable,
      ])
      var tables: [String] = []
      try postgres.prepare(
        """
        SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
        WHERE n.nspname = ? AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY c.relname
        """
      ).forEachRow([.text(schema)]) { tables.append($0.text(0)) }
      guard tables.allSatisfy({ own.contains($0) }) else { return false }
      var functions: [String] = []
      try postgres.prepare(
        """
        SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace \
        WHERE n.nspname = ? AND p.proname LIKE 'ms\\_%' ORDER BY 1
        """
      ).forEachRow([.text(schema)]) { functions.append($0.text(0)) }
      var statements: [String] = []
      if !tables.isEmpty { statements.append("DROP TABLE \(tables.map(Identifier.quote).joined(separator: ", "))") }
      if !functions.isEmpty { statements.append("DROP FUNCTION \(functions.joined(separator: ", "))") }
      statements.append("DROP SCHEMA \(Identifier.quote(schema))")
      try postgres.execute(statements.joined(separator: "; "))
      return true
    }
  }
}

extension Store {
  /// Takes back the PostgreSQL store this opening made (its schema created by it), for a
  /// command that failed after making it: true when the schema was dropped. A schema that
  /// was there before, or that another server wrote to since, or that holds anything but
  /// the store, stays; so does a file store (the command removes a file it created).
  public func discardCreatedStore() -> Bool {
    guard let server = database as? PostgresDatabase, writes.atRest else { return false }
    return (try? server.discardCreated(commits: createdStoreCommits)) ?? false
  }

  /// Drops the PostgreSQL store at `location` (a migration's backup that was not needed),
  /// its schema with it, when it holds only the store. Best effort: it is only a copy.
  static func dropBackupStore(_ location: String) {
    guard let store = try? Store(path: location, options: OpenOptions(create: false)) else { return }
    defer { store.close() }
    guard let server = store.database as? PostgresDatabase else { return }
    var tables: Set<String> = []
    if let graph = store.graph {
      tables = Set(graph.ordered.filter(\.isRoot).map(\.name))
      tables.formUnion(StorageLayout.joinTables(graph, dialect: store.connection.dialect).map(\.name))
    }
    _ = try? server.dropStoreSchema(tables: tables)
  }
}
