import DatabaseKit

/// `_opt`, each row's change counter (Core Data's `Z_OPT`, the `_version` of `ifVersion`),
/// is a column a hierarchy's table gets with the first update of one of its rows:
/// `ALTER TABLE ... ADD COLUMN "_opt" INTEGER NOT NULL DEFAULT 1`, in the updating
/// transaction, which rewrites no row (SQLite, PostgreSQL 11 and later). Until then every
/// row is at version 1 and pays no byte for it; rows inserted afterwards store their 1.
///
/// Exactness across processes and servers: a table without `_opt` has never had a row
/// updated, so version 1 is every row's. Whether the column exists is asked of the
/// database in the snapshot or write transaction that reads or raises versions (`has`),
/// never taken from memory while it may be missing, so a column another process added a
/// moment ago is seen by the same snapshot that sees its updated rows. Only its presence is
/// remembered (no statement removes `_opt`), and only once it is committed: a column this
/// connection added in the open transaction may still be rolled back with it.
final class VersionColumns {
  /// Tables known to have a committed `_opt` column.
  private var committed: Set<String> = []
  /// Tables this connection gave `_opt` in the open transaction.
  private var added: Set<String> = []

  /// Forgets what is known (a schema change may have dropped and created tables).
  func forget() { committed = [] }

  /// The open transaction ended, committed or rolled back.
  func endTransaction() { added = [] }

  /// Whether hierarchy table `table` (unquoted) has `_opt` as `connection` sees it now.
  func has(_ table: String, _ connection: any DatabaseConnection) throws -> Bool {
    if committed.contains(table) { return true }
    var found = false
    try connection.forEachColumn(of: table) { name, _ in if name == "_opt" { found = true } }
    if found && !added.contains(table) { committed.insert(table) }
    return found
  }

  /// Gives `table` its `_opt` column unless it has one: before any update of its rows.
  func ensure(_ table: String, _ connection: any DatabaseConnection) throws {
    if try has(table, connection) { return }
    try connection.execute(Self.addColumnSQL(table, connection.dialect))
    added.insert(table)
  }

  static func addColumnSQL(_ table: String, _ dialect: any SQLDialect) -> String {
    "ALTER TABLE \(Identifier.quote(table)) ADD COLUMN \"_opt\" \(dialect.columnType(.integer)) NOT NULL DEFAULT 1"
  }

  /// The SQL giving a row's version: `alias."_opt"`, or 1 where the table has no `_opt`.
  func expression(_ table: String, alias: String?, _ connection: any DatabaseConnection) throws -> String {
    guard try has(table, connection) else { return "1" }
    return alias.map { "\($0).\"_opt\"" } ?? "\"_opt\""
  }
}

extension Store {
  /// `"_opt" = "_opt" + 1`, for the SET of an UPDATE of rows of hierarchy table `table`
  /// (unquoted), once the table has the column (`VersionColumns.ensure`).
  func versionBump(_ table: String) throws -> String {
    try catalog.versions.ensure(table, connection)
    return "\"_opt\" = \"_opt\" + 1"
  }
}
