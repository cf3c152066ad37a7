import DatabaseKit

/// Primary keys of hierarchy tables, never reused and without per-insert bookkeeping (Core
/// Data's `Z_PRIMARYKEY.Z_MAX`): `_ms_keys` holds, per table, the largest key ever
/// committed. The first key a write transaction takes for a table is
/// `max(stored max, max(_pk)) + 1`; later ones count up in memory; the maxima of the
/// tables it touched are written once, just before COMMIT (`flush`, run by the
/// connection's `willCommit`). A transaction that ends any other way forgets its counters
/// (`reset`), and a savepoint rolled back inside one leaves a gap. Every insert into a
/// hierarchy table takes its key here, or reports a key it chose (`noteUsed`).
final class KeyAllocator {
  static let table = "_ms_keys"
  static let createSQL = "CREATE TABLE \"_ms_keys\" (\"name\" TEXT PRIMARY KEY, \"max\" INTEGER NOT NULL) WITHOUT ROWID"
  /// Raises a recorded maximum (never lowers it): the one statement that writes `_ms_keys`.
  /// Standard SQL that SQLite and PostgreSQL read alike (an upsert whose update only runs
  /// for a larger value).
  private static let raiseSQL =
    "INSERT INTO \"_ms_keys\" (\"name\", \"max\") VALUES (?, ?) ON CONFLICT (\"name\") DO UPDATE SET \"max\" = excluded.\"max\" WHERE excluded.\"max\" > \"_ms_keys\".\"max\""

  private unowned let connection: any DatabaseConnection
  /// The next key per table (unquoted name), for the open write transaction only.
  private var next: [String: Int64] = [:]

  init(connection: any DatabaseConnection) { self.connection = connection }

  /// A new key for a row of `table`.
  func allocate(_ table: String) throws -> Int64 {
    // One hash per insert: the counter is found once and raised in place.
    if let i = next.index(forKey: table) {
      let key = next.values[i]
      next.values[i] = key + 1
      return key
    }
    let key = try start(table)
    next[table] = key + 1
    return key
  }

  /// A row of `table` was written with a key of the caller's choosing (an import keeping
  /// ids): later keys go above it, and the maximum is written at commit.
  func noteUsed(_ table: String, key: Int64) throws {
    let current = try next[table] ?? start(table)
    next[table] = max(current, key + 1)
  }

  /// Rows were copied into `table` with their own keys (`INSERT ... SELECT`).
  func noteCopied(_ table: String) throws {
    let top = try connection.prepare("SELECT max(\"_pk\") FROM \(Identifier.quote(table))").first([], { $0.isNull(0) ? nil : $0.int(0) })
    if let top = top ?? nil { try noteUsed(table, key: top) }
  }

  private func start(_ table: String) throws -> Int64 {
    // The larger of the two as an aggregate: SQLite's two-argument max() is GREATEST in PostgreSQL.
    let sql =
      "SELECT max(\"m\") FROM (SELECT coalesce((SELECT \"max\" FROM \"_ms_keys\" WHERE \"name\" = ?), 0) AS \"m\" UNION ALL SELECT coalesce((SELECT max(\"_pk\") FROM \(Identifier.quote(table))), 0)) AS \"k\""
    return (try connection.cached(sql).first([.text(table)]) { $0.int(0) } ?? 0) + 1
  }

  /// Writes the largest key taken per touched table and forgets the counters (inside
  /// the transaction: before COMMIT, or before a table is renamed).
  func flush() throws {
    guard !next.isEmpty else { return }
    for (table, key) in next.sorted(by: { $0.key < $1.key }) { try Self.raise(table, to: key - 1, connection: connection) }
    next = [:]
  }

  /// Forgets the counters: the transaction they were valid in has ended.
  func reset() { next = [:] }

  /// Records that keys (or history tokens, under `_ms_history`) up to `max` were given
  /// for `name`, keeping a larger maximum already recorded.
  static func raise(_ name: String, to max: Int64, connection: any DatabaseConnection) throws {
    try connection.cached(raiseSQL).execute([.text(name), .integer(max)])
  }

  /// The largest key recorded for `name`, 0 when none is.
  static func recorded(_ name: String, connection: any DatabaseConnection) throws -> Int64 {
    if case .integer(let n)? = try connection.scalar("SELECT \"max\" FROM \"_ms_keys\" WHERE \"name\" = ?", [.text(name)]) { return n }
    return 0
  }

  /// A hierarchy table renamed from `from` to `to` keeps its maximum (flush first). A
  /// maximum left under `to` by a dropped table is kept if larger, so no key is reused.
  static func renameTable(from: String, to: String, connection: any DatabaseConnection) throws {
    let top = try recorded(from, connection: connection)
    if top > 0 { try raise(to, to: top, connection: connection) }
    try connection.run("DELETE FROM \"_ms_keys\" WHERE \"name\" = ?", [.text(from)])
  }
}
