/// Where a migration's backup went: a file beside a store file, or a schema beside a
/// PostgreSQL store's (in its database).
enum MigrationBackup {
  case file(String)
  /// `location` opens it (the password kept); `shown` is its URL without the password.
  case schema(location: String, shown: String)

  /// What the result's `backupPath` shows.
  var shown: String {
    switch self {
    case .file(let path): return path
    case .schema(_, let shown): return shown
    }
  }

  /// A version as a part of a backup's name: letters, digits, `.` and `-` kept, anything
  /// else `_`.
  static func safe(_ version: String) -> String {
    String(version.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
  }
}

extension Store {
  /// A PostgreSQL store's backup before a migration: a copy of the whole store, history
  /// included, read in one snapshot, into the new schema `SCHEMA_before_FROM_to_TO` of
  /// the same database (`_2`, `_3`... when a schema of that name exists, even empty, so
  /// that dropping an unused backup never drops a schema of someone else's; a name
  /// longer than PostgreSQL's 63 bytes in its short form, `Identifier.fitted`), made and filled in
  /// one transaction (`StoreCopy`). It opens as a store (`?schema=NAME`) and copies back
  /// with `modelstore copy --force`.
  func backupSchemaBeforeMigration(_ server: PostgresDatabase, from: String, to: String) throws -> MigrationBackup {
    let base = "\(server.postgres.schema)_before_\(MigrationBackup.safe(from))_to_\(MigrationBackup.safe(to))"
    for n in 1...100 {
      let name = connection.dialect.storedName(n == 1 ? base : "\(base)_\(n)")
      if try server.schemaExists(name) { continue }
      let location = server.location(schema: name)
      do {
        _ = try StoreCopy.backup(self, intoServer: location)
        return .schema(location: location, shown: Store.displayName(of: location))
      } catch let e as StoreError where e.details["reason"] == "exists" || e.kind == .notAStore {
        continue
      }
    }
    throw StoreError(.storage, "the migration's backup found no free schema: '\(base)' to '\(base)_100' are all taken")
  }
}
