import DatabaseKit
import JSONCore
import SchemaModel

/// What `import.coreData` did.
public struct CoreDataImportSummary {
  /// Objects per concrete entity, each equal to the source's `count(*) ... WHERE Z_ENT = n`.
  public var counts: [(entity: String, count: Int)] = []
  /// Rows per many-to-many join table, equal to the source table's.
  public var links: [(relationship: String, count: Int)] = []
  public var objects = 0
  public var schemaDefined = false
  /// Core Data's own tables left out (persistent history), with their row counts.
  public var skipped: [(entity: String, table: String, rows: Int)] = []
  /// Values kept as null (a decimal NaN, a missing external file) and inference notes.
  public var warnings: [JSONValue] = []
  /// The source's `store.info`-style facts (store UUID, model version hash keys, ...).
  public var source: JSONObject = [:]
}

extension Store {
  /// Copies a Core Data SQLite store into this store, schema included, all or nothing:
  /// one transaction that defines the inferred schema (when the store has none), copies
  /// every hierarchy table and join table through the conversion views (`CoreDataViews`)
  /// with `INSERT ... SELECT`, and checks each entity's count against the source. Object
  /// ids keep their key: Core Data's `<Entity>/p<Z_PK>` becomes `<Entity>/<Z_PK>`, so
  /// the imported entities must have no objects yet. `model` (a .xcdatamodel(d) path)
  /// gives exact names and types instead of inferring them, read with the version
  /// `modelVersion` names or the one that fits the store (`CoreDataModelChoice`), its
  /// versions in `versionOrder` if given. `progress(phase, done, total)` reports `rows`
  /// after every chunk of 50,000 keys of a table.
  public func importCoreData(
    path: String, model: String? = nil, modelVersion: String? = nil, versionOrder: [String]? = nil,
    progress: ((_ phase: ImportPhase, _ done: Int, _ total: Int?) -> Void)? = nil
  ) throws -> CoreDataImportSummary {
    try checkWritable()
    if !database.attachesSQLiteFiles {
      throw StoreError(
        .invalidArgument,
        "import.coreData reads a Core Data file by attaching it to an SQLite store's database, which a \(database.engineName) store cannot: import into a store file, then export.json from it and import.json into this store",
        ["reason": "unsupported"])
    }
    if writes.userTransactions > 0 {
      throw StoreError(
        .transaction, "import.coreData cannot run inside a client transaction (it attaches the source file); commit or roll back first")
    }
    let request = try CoreDataModelRequest(model: model, version: modelVersion, versionOrder: versionOrder)
    let source = try CoreDataSource(path: path, model: request, connection: connection, schemaName: "ms_coredata_source")
    defer { source.close(connection) }
    var summary = CoreDataImportSummary()
    summary.source = source.metadataJSON
    summary.warnings = source.mapping.warnings.map { .object(["message": .string($0)]) }
    let sourceCounts = try translatingErrors { try checkSource(source, &summary) }
    let total = sourceCounts.values.reduce(0, +)
    let target = ModelGraph(source.schema)
    // Built once the schema is defined: `_ent` gets this store's codes.
    var views: [CoreDataViews.View] = []
    var defines = false
    do {
      summary = try write {
        var s = summary
        // The schema of the write transaction, under the write lock.
        defines = graph == nil
        if let graph,
          let refusal = SchemaComparison.refusal(
            file: source.schema, store: graph.schema, what: "the schema of '\(path)'", advice: "; import into an empty store",
            ["path": .string(path)])
        {
          throw refusal
        }
        if defines {
          _ = try define(source.schemaJSON)
          s.schemaDefined = true
        }
        for root in target.ordered where root.isRoot {
          let n = try connection.scalar("SELECT count(*) FROM main.\(Identifier.quote(root.name))")
          if case .integer(let rows)? = n, rows > 0 {
            throw StoreError(
              .conflict,
              "the store already holds \(rows) object\(rows == 1 ? "" : "s") of the '\(root.name)' hierarchy; import.coreData keeps Core Data's keys, so it needs those entities empty",
              ["entity": .string(root.name)])
          }
        }
        var done = 0
        progress?(.rows, 0, total)
        views = CoreDataViews.views(source.mapping, graph: target, prefix: "_ms_coredata_", codes: entityCodes)
        for view in views {
          // Core Data's rows carry their versions (`Z_OPT`): the tables keep them.
          if target[view.table] != nil { try catalog.versions.ensure(view.table, connection) }
          try connection.execute(view.sql)
          let copied = try copy(view, path: path, isHierarchy: target[view.table] != nil) { n in
            done += n
            progress?(.rows, done, total)
          }
          if target[view.table] != nil {
            try keys.noteCopied(view.table)  // Core Data's keys are kept: new ones go above them
          } else {
            s.links.append((view.table.hasPrefix("_J_") ? String(view.table.dropFirst(3)) : view.table, copied))
          }
        }
        try checkCounts(source, target, sourceCounts, &s)
        s.warnings += try clearDanglingKeys(target)
        // History gets one summary of the import (as for import.json), not an entry per object.
        writes.requestLog.addBulk([
          "op": "bulk", "kind": "import", "mode": "insert", "entities": .array(s.counts.map { .string($0.entity) }),
          "inserted": .int(Int64(s.objects)), "updated": 0, "deleted": 0,
        ])
        return s
      }
    } catch {
      if defines { reloadSchemaAfterRollback() }
      dropViews(views)
      throw error
    }
    dropViews(views)
    return summary
  }

  /// Rows per `INSERT ... SELECT` of a hierarchy table: progress and cancellation are
  /// looked at between chunks. (A table whose keys are stored as text is copied at once:
  /// its keys are no rowid to seek by.)
  static let coreDataChunkKeys: Int64 = 50_000

  /// Copies one view into its table: a hierarchy in ranges of `Z_PK` (the view's `_pk`,
  /// Core Data's rowid, so each range is a direct seek), a join table at once. Returns the
  /// rows written; `copied(n)` follows each hierarchy chunk.
  private func copy(_ view: CoreDataViews.View, path: String, isHierarchy: Bool, copied: (Int) -> Void) throws -> Int {
    let insert =
      "INSERT INTO main.\(Identifier.quote(view.table)) (\(view.columns.map(Identifier.quote).joined(separator: ", "))) SELECT * FROM temp.\(Identifier.quote("_ms_coredata_" + view.table))"
    do {
      guard isHierarchy, view.keyedByRowid,
        let (low, high) = try connection.prepare("SELECT min(\"Z_PK\"), max(\"Z_PK\") FROM \(view.source)").first(
          [], { $0.isNull(0) ? nil : ($0.int(0), $0.int(1)) }) ?? nil
      else {
        try connection.execute(insert)
        try checkCancelled()
        return connection.changes
      }
      let chunk = try connection.prepare(insert + " WHERE \"_pk\" > ? AND \"_pk\" <= ?")
      var total = 0
      var start = low - 1
      while start < high {
        let end = start + min(Self.coreDataChunkKeys, high - start)
        try chunk.execute([.integer(start), .integer(end)])
        total += connection.changes
        copied(connection.changes)
        try checkCancelled()
        start = end
      }
      return total
    } catch let e as any DatabaseError where e.isConstraint {
      throw StoreError(
        .constraint, "copying '\(view.table)' from '\(path)' broke a constraint of the schema: \(e.message)",
        ["entity": .string(view.table), "path": .string(path)])
    }
  }

  private func dropViews(_ views: [CoreDataViews.View]) {
    connection.clearCache()
    for view in views { try? connection.execute("DROP VIEW IF EXISTS temp.\(Identifier.quote("_ms_coredata_" + view.table))") }
  }

  /// Refuses rows that cannot be converted (naming entity, Z_PK and column) or whose
  /// `Z_ENT` is no entity of the table; notes lossy values; returns each entity's count.
  private func checkSource(_ source: CoreDataSource, _ summary: inout CoreDataImportSummary) throws -> [String: Int] {
    let m = source.mapping
    let schema = m.layout.schema
    let rows = m.rows
    var counts: [String: Int] = [:]
    try checkTextKeys(m, rows, &summary)
    let modelGraph = m.modelSchema.map { ModelGraph($0) }
    for system in m.layout.systemEntities {
      let table = "A" + system.name
      if m.layout.tables[table] != nil,
        case .integer(let n)? = try connection.scalar("SELECT count(*) FROM \(schema).\(Identifier.quote(table))")
      {
        summary.skipped.append((system.name, table, Int(n)))
      }
    }
    for table in Set(m.entities.map(\.table)).sorted() {
      let from = rows.source(table, m.layout)
      let members = m.entities.filter { $0.table == table }
      var known = Set<Int64>()
      for e in members { known.insert(e.entity.number) }
      try connection.prepare("SELECT \"Z_ENT\", count(*) FROM \(from) GROUP BY \"Z_ENT\"").forEachRow { row in
        let ent = row.int(0)
        if let e = members.first(where: { $0.entity.number == ent }) { counts[e.entity.name] = Int(row.int(1)) }
      }
      let list = known.sorted().map(String.init).joined(separator: ", ")
      if members.count == 1, let only = members.first {
        // One entity per table: Core Data reads every row as it (see CoreDataViews).
        counts[only.entity.name] = try connection.prepare("SELECT count(*) FROM \(from)").first([], { Int($0.int(0)) }) ?? 0
        if let odd = try connection.prepare("SELECT count(*), min(\"Z_PK\") FROM \(from) WHERE \"Z_ENT\" IS NOT \(only.entity.number)")
          .first([], { ($0.int(0), $0.int(1)) }), odd.0 > 0
        {
          summary.warnings.append(
            .object([
              "message": .string(
                "\(table): \(odd.0) row\(odd.0 == 1 ? "" : "s") (first Z_PK \(odd.1)) have a Z_ENT other than \(only.entity.name)'s \(only.entity.number); read as \(only.entity.name), as Core Data does for a table of one entity"
              ), "entity": .string(only.entity.name), "count": .int(odd.0), "zpk": .int(odd.1),
            ]))
        }
      } else if let bad = try connection.prepare(
        "SELECT \"Z_PK\", \"Z_ENT\" FROM \(from) WHERE \"Z_ENT\" IS NULL OR \"Z_ENT\" NOT IN (\(list)) LIMIT 1"
      )
      .first([], { ($0.int(0), $0.isNull(1) ? "NULL" : String($0.int(1))) }) {
        throw StoreError(
          .validation, "\(table) row Z_PK \(bad.0) has Z_ENT \(bad.1), which is not an entity of that table (\(list))",
          ["table": .string(table), "zpk": .int(bad.0), "column": "Z_ENT"])
      }
      func entityName(_ ent: Int64) -> String { members.first { $0.entity.number == ent }?.entity.name ?? table }
      for a in m.attributes where members.contains(where: { $0.entity.name == a.entity }) {
        let col = "t." + Identifier.quote(a.column)
        if let condition = CoreDataValues.invalidCondition(a.kind, col),
          let bad = try connection.prepare(
            "SELECT t.\"Z_PK\", t.\"Z_ENT\", typeof(\(col)), length(\(col)) FROM \(from) t WHERE \(condition) LIMIT 1"
          )
          .first([], { ($0.int(0), $0.int(1), $0.text(2), $0.int(3)) })
        {
          let entity = entityName(bad.1)
          throw StoreError(
            .validation,
            "\(entity) Z_PK \(bad.0), column \(a.column) (\(entity).\(a.name), \(a.type.rawValue)): cannot convert a \(bad.2) of \(bad.3) bytes; nothing was imported",
            ["entity": .string(entity), "zpk": .int(bad.0), "column": .string(a.column), "attribute": .string(a.name)])
        }
        if let model = m.modelSchema,
          let declared = model.entities.first(where: { $0.name == a.entity })?.attributes.first(where: { $0.name == a.name }),
          !declared.optional
        {
          let numbers = modelGraph?[a.entity]?.concreteNames.compactMap { m.number(of: $0) }.map(String.init) ?? []
          if let missing = try connection.prepare(
            "SELECT t.\"Z_PK\", t.\"Z_ENT\" FROM \(from) t WHERE \(col) IS NULL AND t.\"Z_ENT\" IN (\(numbers.joined(separator: ", "))) LIMIT 1"
          ).first([], { ($0.int(0), $0.int(1)) }) {
            let entity = entityName(missing.1)
            throw StoreError(
              .validation,
              "\(entity) Z_PK \(missing.0), column \(a.column): \(entity).\(a.name) is required by the model but has no value; nothing was imported",
              ["entity": .string(entity), "zpk": .int(missing.0), "column": .string(a.column), "attribute": .string(a.name)])
          }
        }
        if let condition = CoreDataValues.lossyCondition(a.kind, col),
          let lossy = try connection.prepare("SELECT count(*), min(t.\"Z_PK\") FROM \(from) t WHERE \(condition)").first(
            [], { ($0.int(0), $0.int(1)) }),
          lossy.0 > 0
        {
          let what = a.kind == .decimal ? "decimal values that are not finite numbers (NaN)" : "external data files that are missing"
          summary.warnings.append(
            .object([
              "message": .string("\(table).\(a.column): \(lossy.0) \(what) became null (first at Z_PK \(lossy.1))"),
              "entity": .string(a.entity), "attribute": .string(a.name), "column": .string(a.column), "count": .int(lossy.0),
              "zpk": .int(lossy.1),
            ]))
        }
      }
    }
    return counts
  }

  /// Each concrete entity's objects must equal its source rows; a difference is an error.
  private func checkCounts(_ source: CoreDataSource, _ target: ModelGraph, _ expected: [String: Int], _ s: inout CoreDataImportSummary)
    throws
  {
    var actual: [String: Int] = [:]
    for root in target.ordered where root.isRoot {
      try connection.prepare(entityCodes.countsSQL(root.name, from: "main.\(Identifier.quote(root.name))")).forEachRow {
        if !$0.isNull(0) { actual[entityCodes.name($0, 0)] = Int($0.int(1)) }
      }
    }
    for (e, _, table) in source.mapping.entities {
      let want = expected[e.name] ?? 0
      let got = actual[e.name] ?? 0
      guard want == got else {
        throw StoreError(
          .storage, "\(e.name): the source table \(table) has \(want) rows with Z_ENT \(e.number) but \(got) objects were written",
          ["entity": .string(e.name), "expected": .int(Int64(want)), "actual": .int(Int64(got))])
      }
      s.counts.append((e.name, got))
      s.objects += got
    }
    let rows = source.mapping.rows
    for j in source.mapping.joins {
      let links = j.ownerKey.map { " WHERE \(Identifier.quote($0)) IS NOT NULL" } ?? ""
      guard
        case .integer(let n)? = try connection.scalar("SELECT count(*) FROM \(rows.source(j.table, source.mapping.layout))\(links)")
      else { continue }
      let name = "\(j.sides[0].owner).\(j.sides[0].name)"
      let written = s.links.first {
        $0.relationship.hasSuffix(name) || $0.relationship.hasSuffix("\(j.sides[1].owner).\(j.sides[1].name)")
      }?.count
      guard written == Int(n) else {
        throw StoreError(
          .storage, "join table \(j.table) has \(n) rows but \(written ?? 0) links were written", ["table": .string(j.table)])
      }
    }
  }
}
