import DatabaseKit
import JSONCore
import SchemaModel

/// One committed transaction as `history.fetch` reports it.
public struct HistoryTransaction {
  public var token: Int64
  public var timestamp: Double
  public var author: String?
  /// The stored compact form (`ChangeLog.encoded`).
  public var changes: JSONValue

  /// Every entity the transaction changed.
  public var entities: Set<String> {
    Set(
      (changes.arrayValue ?? []).flatMap { c -> [String] in
        if let e = c["entity"]?.stringValue { return [e] }
        return (c["entities"]?.arrayValue ?? []).compactMap(\.stringValue)
      })
  }

  /// The most ids one transaction's changes are spelled out to. Runs of keys are stored
  /// compactly (`[first, last]`), so a damaged or hostile history row could otherwise ask
  /// for billions (`[1, 9223372036854775807]`).
  public static let maxSpelledIDs = 10_000_000

  /// The key runs of each entry with an entity, checked: `last >= first`, both integers.
  private var runs: [(entity: String, first: Int64, last: Int64)] {
    (changes.arrayValue ?? []).flatMap { c -> [(entity: String, first: Int64, last: Int64)] in
      guard let e = c["entity"]?.stringValue, let pks = c["pks"]?.arrayValue else { return [] }
      return pks.compactMap { r in
        guard case .int(let a)? = r.arrayValue?.first, case .int(let b)? = r.arrayValue?.last, b >= a else { return nil }
        return (e, a, b)
      }
    }
  }

  /// How many ids the runs spell out, stopping (overflow-safe) once past `maxSpelledIDs`.
  private var spelledCount: Int64 {
    var total: Int64 = 0
    for r in runs {
      let (width, overflow) = r.last.subtractingReportingOverflow(r.first)
      if overflow || width >= Int64(Self.maxSpelledIDs) { return Int64(Self.maxSpelledIDs) + 1 }
      total += width + 1
      if total > Int64(Self.maxSpelledIDs) { return total }
    }
    return total
  }

  /// The ids of changed objects (bulk entries name none; nor does a transaction listing
  /// more than `maxSpelledIDs`, which `hasBulk` then reports as changing everything).
  public var ids: [String] {
    guard spelledCount <= Int64(Self.maxSpelledIDs) else { return [] }
    return runs.flatMap { r in (r.first...r.last).map { ObjectID.text(r.entity, $0) } }
  }

  /// True when a bulk entry (import, migration) changed objects without listing them, or
  /// the ids are too many to list.
  public var hasBulk: Bool {
    (changes.arrayValue ?? []).contains { $0["op"] == "bulk" } || spelledCount > Int64(Self.maxSpelledIDs)
  }

  /// The wire form: changes with their ids spelled out; refused past `maxSpelledIDs`.
  public func json() throws -> JSONValue {
    guard spelledCount <= Int64(Self.maxSpelledIDs) else {
      throw StoreError(
        .storage,
        "history transaction \(token) lists more than \(Self.maxSpelledIDs) object ids: its history row is damaged (or too large to send); delete it with history.delete",
        ["token": .int(token)])
    }
    var list: [JSONValue] = []
    for c in changes.arrayValue ?? [] {
      guard var o = c.objectValue else { continue }
      if let e = o["entity"]?.stringValue, let pks = o["pks"]?.arrayValue {
        var ids: [JSONValue] = []
        for r in pks {
          guard case .int(let a)? = r.arrayValue?.first, case .int(let b)? = r.arrayValue?.last, b >= a else { continue }
          for pk in a...b { ids.append(.string(ObjectID.text(e, pk))) }
        }
        o["pks"] = nil
        o.append("ids", .array(ids))
      }
      list.append(.object(o))
    }
    var t: JSONObject = ["token": .int(token), "timestamp": ISODate.wireValue(timestamp)]
    t.append("author", author.map { .string($0) } ?? .null)
    t.append("changes", .array(list))
    return .object(t)
  }
}

extension Store {
  static let historyTable = "_ms_history"

  /// The history's tokens are one past the newest row's; once the rows that held the
  /// largest are deleted, `_ms_keys` keeps it under this table's name (KeyAllocator), so
  /// tokens are never handed out twice. Made when missing, in a write transaction: under
  /// the store's write lock, so servers opening a new store at once do not race (on
  /// PostgreSQL two `CREATE TABLE IF NOT EXISTS` at once can both try to create it).
  func createHistoryTable() throws {
    guard try !connection.hasTable(Store.historyTable) else { return }
    let d = connection.dialect
    try connection.inTransaction {
      try connection.execute(
        "CREATE TABLE IF NOT EXISTS \(Store.historyTable) (\"token\" \(d.columnType(.integer)) PRIMARY KEY, \"timestamp\" \(d.columnType(.real)) NOT NULL, \"author\" \(d.columnType(.text)), \"changes\" \(d.columnType(.bytes)) NOT NULL)"
      )
    }
  }

  /// How much history this process keeps (`HistorySettings`).
  public var historyRetention: HistoryRetention {
    get { historySettings.retention }
    set { historySettings.retention = newValue }
  }
  /// The author recorded for the running request's commit (the session's when nil).
  public var requestAuthor: String? {
    get { historySettings.requestAuthor }
    set { historySettings.requestAuthor = newValue }
  }
  /// The session's author, recorded when a request names none.
  public var defaultAuthor: String? {
    get { historySettings.defaultAuthor }
    set { historySettings.defaultAuthor = newValue }
  }

  /// Called when a write's body succeeded, inside its transaction: the request's changes
  /// join the client transaction, or become a history transaction now (same SQLite
  /// transaction as the data, so both commit or neither).
  func settleRequestLog() throws {
    guard !writes.requestLog.isEmpty else { return }
    if let open = writes.transactionLogs.last {
      open.merge(writes.requestLog)
    } else {
      try appendHistory(writes.requestLog)
    }
    writes.requestLog.removeAll()
  }

  /// Writes `log` as one history transaction (nothing when it is empty).
  func appendHistory(_ log: ChangeLog) throws {
    guard !log.isEmpty else { return }
    guard historySettings.enabled else {
      outsideHistory.ownCommits += 1
      return
    }
    // The next token: one past the newest row, or past the largest token ever committed
    // when every row has been deleted (a deletion records it first, see `deleteHistory`).
    // Nothing reads its outcome: a server's connection sends it with the COMMIT (`executeLater`).
    try connection.cached(
      """
      INSERT INTO \(Store.historyTable) ("token", "timestamp", "author", "changes") VALUES (coalesce((SELECT max("token") FROM \(Store.historyTable)), \
      (SELECT "max" FROM \(KeyAllocator.table) WHERE "name" = '\(Store.historyTable)'), 0) + 1, ?, ?, ?)
      """
    ).executeLater([
      .real(currentTimeSeconds()), historySettings.author.map { .text($0) } ?? .null, .blob(ChangeEncoding.encode(log.encoded())),
    ])
    try applyHistoryRetention()
  }

  /// The newest token handed out (0 when none): the newest row's, or the largest a
  /// deletion recorded when no row is left.
  public func latestHistoryToken() throws -> Int64 {
    guard historySettings.enabled else { return 0 }
    return max(try newestHistoryToken(below: nil) ?? 0, try KeyAllocator.recorded(Store.historyTable, connection: connection))
  }

  /// The newest history row's token (below `limit` when given); nil without one.
  private func newestHistoryToken(below limit: Int64?) throws -> Int64? {
    let sql = "SELECT max(\"token\") FROM \(Store.historyTable)" + (limit == nil ? "" : " WHERE \"token\" < ?")
    if case .integer(let n)? = try connection.scalar(sql, limit.map { [.integer($0)] } ?? []) { return n }
    return nil
  }

  /// Transactions after `after`, oldest first, filtered by author and entity.
  public func history(after: Int64 = 0, author: String? = nil, entities: Set<String>? = nil, limit: Int? = nil) throws
    -> [HistoryTransaction]
  {
    guard historySettings.enabled else { return [] }
    var out: [HistoryTransaction] = []
    var sql = "SELECT \"token\", \"timestamp\", \"author\", \"changes\" FROM \(Store.historyTable) WHERE \"token\" > ?"
    var args: [SQLValue] = [.integer(after)]
    if let author {
      sql += " AND \"author\" = ?"
      args.append(.text(author))
    }
    sql += " ORDER BY \"token\""
    try translatingErrors {
      try connection.prepare(sql).forEachRow(args) { row in
        if let limit, out.count >= limit { return }
        let t = HistoryTransaction(
          token: row.int(0), timestamp: row.double(1), author: row.isNull(2) ? nil : row.text(2),
          changes: try Store.historyChanges(row, 3, token: row.int(0)))
        if let entities, t.entities.isDisjoint(with: entities) { return }
        out.append(t)
      }
    }
    return out
  }

  /// Purges transactions before `token`; returns how many went.
  public func deleteHistory(before token: Int64) throws -> Int {
    try checkWritable()
    guard historySettings.enabled else { return 0 }
    return try write { try deleteHistoryRows(before: token) }
  }

  /// Deletes the rows before `token` inside the running write, first recording the
  /// largest token in `_ms_keys` so that it is not handed out again once its row is gone.
  func deleteHistoryRows(before token: Int64) throws -> Int {
    if let top = try newestHistoryToken(below: token) { try KeyAllocator.raise(Store.historyTable, to: top, connection: connection) }
    try connection.cached("DELETE FROM \(Store.historyTable) WHERE \"token\" < ?").execute([.integer(token)])
    return connection.changes
  }

  /// The changes column of a history row: the compact blob, or JSON text in a row a
  /// format-1 store wrote. A row that cannot be read is an error naming its token, never
  /// "no changes" (a live query would miss what it changed).
  static func historyChanges(_ row: any ResultRow, _ column: Int, token: Int64) throws -> JSONValue {
    do {
      switch row.storageClass(column) {
      case .blob: return try ChangeEncoding.decode(row.blob(column))
      case .text:
        if case .array(let a) = try JSONParser.parse(row.text(column)) { return .array(a) }
      default: break
      }
      throw ChangeEncoding.Damaged(reason: "it holds neither a change list nor JSON")
    } catch let e as ChangeEncoding.Damaged {
      throw historyDamaged(token, e.reason)
    } catch {
      throw historyDamaged(token, "its JSON does not parse")
    }
  }

  private static func historyDamaged(_ token: Int64, _ reason: String) -> StoreError {
    StoreError(
      .storage, "history transaction \(token) cannot be read (\(reason)): its history row is damaged; delete it with history.delete",
      ["token": .int(token)])
  }

  /// The values a delete's tombstone keeps: the object's unique attributes.
  func tombstone(_ id: ObjectID, _ plan: EntityPlan) throws -> JSONObject? {
    let keys = Set(plan.model.uniqueness.joined()).sorted().compactMap { plan.model.attribute($0) }.filter { !$0.transient }
    guard !keys.isEmpty else { return nil }
    let cols = keys.map { "t.\(Identifier.quote($0.name))" }.joined(separator: ", ")
    return try connection.cached("SELECT \(cols) FROM \(plan.table) t WHERE t.\"_pk\" = ?").first([.integer(id.pk)]) { row in
      var o = JSONObject()
      for (i, a) in keys.enumerated() { o.append(a.name, a.type.decode(row.value(i))) }
      return o
    } ?? nil
  }
}
