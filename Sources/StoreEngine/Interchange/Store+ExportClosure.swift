import DatabaseKit
import JSONCore
import SchemaModel

/// `withRelated`: the chosen objects plus everything they reach through relationships,
/// collected as `(table, key)` rows of a temporary table by set-based SQL, one statement
/// per relationship and pass, until a pass adds nothing (passes = the depth of the graph).
extension Store {
  /// The temporary table of `(root table, key)` rows.
  var closureTable: String { connection.dialect.temporaryTable("_ms_export_closure") }

  /// Fills the closure table; returns the concrete entities it holds objects of.
  func collectClosure(_ seeds: [EntityModel], _ options: ExportOptions) throws -> Set<String> {
    let graph = try requireGraph()
    let d = connection.dialect
    try connection.execute("DROP TABLE IF EXISTS \(closureTable)")
    try connection.execute(
      "CREATE TEMP TABLE \"_ms_export_closure\" (\"root\" \(d.columnType(.text)) NOT NULL, \"pk\" \(d.columnType(.integer)) NOT NULL, PRIMARY KEY (\"root\", \"pk\"))\(d.keyOnlyTableOptions)"
    )
    for m in seeds {
      let (plan, filter, args) = try exportFilter(m, options)
      try connection.prepare(
        connection.dialect.insertSkippingDuplicates(
          "\(closureTable) SELECT \(StringLiteral.quote(m.root.name)), t.\"_pk\" FROM \(plan.table) t" + filter)
      ).execute(args)
    }
    let steps = try graph.ordered.flatMap { m in m.entity.relationships.map { closureStep(m, $0, graph) } }.map {
      try connection.prepare($0)
    }
    while true {
      try checkCancelled()
      let before = connection.totalChanges
      for step in steps { try step.execute() }
      if connection.totalChanges == before { break }
    }
    var reached: Set<String> = []
    for root in graph.ordered where root.isRoot {
      try connection.prepare(
        "SELECT DISTINCT \(entityCodes.column(root.name, alias: "t")) FROM \(Identifier.quote(root.name)) t JOIN \(closureTable) c ON c.\"root\" = ? AND c.\"pk\" = t.\"_pk\""
      ).forEachRow([.text(root.name)]) { reached.insert(entityCodes.name($0, 0)) }
    }
    return reached
  }

  /// One pass over relationship `r` of `m`: the destinations of closure members.
  private func closureStep(_ m: EntityModel, _ r: Relationship, _ graph: ModelGraph) -> String {
    let source = StringLiteral.quote(m.root.name)
    let destRoot = StringLiteral.quote(graph[r.destination]!.root.name)
    let insert = "\(closureTable) "
    return connection.dialect.insertSkippingDuplicates(closureSelect(m, r, graph, into: insert, source: source, destRoot: destRoot))
  }

  private func closureSelect(
    _ m: EntityModel, _ r: Relationship, _ graph: ModelGraph, into insert: String, source: String, destRoot: String
  )
    -> String
  {
    switch StorageLayout.storage(of: r, in: m, graph: graph) {
    case .foreignKey(let column):
      let c = Identifier.quote(column)
      return insert
        + "SELECT \(destRoot), t.\(c) FROM \(Identifier.quote(m.root.name)) t JOIN \(closureTable) k ON k.\"root\" = \(source) AND k.\"pk\" = t.\"_pk\" WHERE t.\(c) IS NOT NULL AND \(entityCodes.filter(entityCodes.column(m.root.name, alias: "t"), m.concreteNames))"
    case .inverseForeignKey(let table, let column, _):
      return insert
        + "SELECT \(destRoot), d.\"_pk\" FROM \(Identifier.quote(table)) d JOIN \(closureTable) k ON k.\"root\" = \(source) AND k.\"pk\" = d.\(Identifier.quote(column))"
        + StorageLayout.sharedInverseColumnFilter(of: r, destination: graph[r.destination]!, table: table, alias: "d", codes: entityCodes)
    case .joinTable(let table, let s, let d, _):
      return insert
        + "SELECT \(destRoot), j.\"\(d)\" FROM \(Identifier.quote(table)) j JOIN \(closureTable) k ON k.\"root\" = \(source) AND k.\"pk\" = j.\"\(s)\""
    }
  }

  /// The select and count of one concrete entity's objects in the closure, by key.
  func closureQuery(_ model: EntityModel, _ graph: ModelGraph) -> (select: String, count: String, args: [SQLValue]) {
    let plan = catalog.plans[model.name]!
    let from =
      " WHERE \(entityCodes.column(plan.tableName, alias: "t")) = ? AND t.\"_pk\" IN (SELECT \"pk\" FROM \(closureTable) WHERE \"root\" = ?)"
    return (
      readPlan(for: plan).selectSQL(for: model.name, keys: InterchangeFormat.writtenKeys(model, graph: graph)) + from
        + " ORDER BY t.\"_pk\"",
      "SELECT count(*) FROM \(plan.table) t" + from, [.integer(plan.code), .text(model.root.name)]
    )
  }
}
