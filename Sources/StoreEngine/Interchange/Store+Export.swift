import DatabaseKit
import JSONCore
import SchemaModel

/// What `export.json` writes: which objects, in which layout.
public struct ExportOptions {
  /// Entities to export (each with its sub-entities); nil: every entity.
  public var entities: [String]?
  /// A filter; only with exactly one entity in `entities`.
  public var predicate: Predicate?
  /// The places of the predicate's nodes when it came in JSON form (error positions).
  public var predicateLocations: [ErrorPlace]?
  public var layout: InterchangeFormat.Layout
  /// Also export every object the chosen ones reach through relationships, transitively,
  /// so that the file has no reference to an object outside it.
  public var withRelated = false

  public init(entities: [String]? = nil, predicate: Predicate? = nil, layout: InterchangeFormat.Layout = .ndjson) {
    self.entities = entities
    self.predicate = predicate
    self.layout = layout
  }
}

/// What an export wrote.
public struct ExportSummary {
  public var objects = 0
  /// Objects per concrete entity, in file order.
  public var counts: [(entity: String, count: Int)] = []
  public var bytes = 0
}

extension Store {
  /// Objects between two progress reports of `export.json` and `import.json`.
  public static let interchangeProgressInterval = 1000

  /// Writes the objects chosen by `options` to `sink` in the interchange format: entities
  /// in schema order, each entity's objects by ascending key, so the same store always
  /// gives the same bytes. Rows are read with one cursor per entity and written one by
  /// one, so memory does not grow with the store. Runs in one read transaction (a
  /// consistent snapshot, taking no write lock: writers go on meanwhile). On failure the sink is abandoned (a partial file is removed).
  /// `progress(done, total)` is called every `interchangeProgressInterval` objects and
  /// at the end.
  public func export(_ options: ExportOptions, to sink: ByteSink, progress: ((Int, Int) -> Void)? = nil) throws -> ExportSummary {
    do {
      // Written out as it is read: the schema is checked before anything is written.
      let summary = try readingOneSnapshot(rerunnable: false) { try writeExport(options, sink, progress) }
      try sink.finish()
      return summary
    } catch {
      sink.abandon()
      throw error
    }
  }

  private func writeExport(_ options: ExportOptions, _ sink: ByteSink, _ progress: ((Int, Int) -> Void)?) throws -> ExportSummary {
    let graph = try requireGraph()
    var models = try exportedEntities(options)
    let queries: [(select: String, count: String, args: [SQLValue])]
    if options.withRelated {
      let reached = try collectClosure(models, options)
      models = graph.ordered.filter { m in !m.entity.abstract && (reached.contains(m.name) || models.contains { $0 === m }) }
      queries = models.map { closureQuery($0, graph) }
    } else {
      queries = try models.map { try exportQuery($0, options, graph) }
    }
    var total = 0
    if progress != nil {
      for q in queries { total += Int(try connection.prepare(q.count).first(q.args) { $0.int(0) } ?? 0) }
    }
    var summary = ExportSummary()
    var w = JSONWriter(capacity: 1 << 16)
    w.write(InterchangeFormat.header(schema: graph.schema, entities: models.map(\.name)))
    if options.layout == .json {
      w.bytes.removeLast()  // the header's closing brace: the objects array goes inside
      w.bytes.append(contentsOf: Array(",\"objects\":[".utf8))
    } else {
      w.bytes.append(UInt8(ascii: "\n"))
    }
    try emit(&w, sink, &summary)
    for (model, query) in zip(models, queries) {
      let rowWriter = ExportRowWriter(
        entity: model.name, read: readPlan(for: try plan(model.name)), keys: InterchangeFormat.writtenKeys(model, graph: graph))
      var count = 0
      try connection.prepare(query.select).forEachRow(query.args) { row in
        if options.layout == .json {
          if summary.objects > 0 { w.bytes.append(UInt8(ascii: ",")) }
          w.bytes.append(UInt8(ascii: "\n"))
        }
        rowWriter.write(row, to: &w)
        if options.layout == .ndjson { w.bytes.append(UInt8(ascii: "\n")) }
        if w.bytes.count >= 1 << 15 { try emit(&w, sink, &summary) }  // the sink sees chunks, not rows
        summary.objects += 1
        count += 1
        if summary.objects % Store.interchangeProgressInterval == 0 {
          try checkCancelled()
          progress?(summary.objects, total)
        }
      }
      summary.counts.append((model.name, count))
    }
    if options.layout == .json { w.bytes.append(contentsOf: Array("\n]}\n".utf8)) }
    try emit(&w, sink, &summary)
    progress?(summary.objects, total)
    return summary
  }

  private func emit(_ w: inout JSONWriter, _ sink: ByteSink, _ summary: inout ExportSummary) throws {
    try sink.write(w.bytes)
    summary.bytes += w.bytes.count
    w.bytes.removeAll(keepingCapacity: true)
  }

  /// The concrete entities to export, in schema order.
  private func exportedEntities(_ options: ExportOptions) throws -> [EntityModel] {
    let graph = try requireGraph()
    guard let names = options.entities else {
      if options.predicate != nil {
        throw StoreError(.invalidArgument, at: ErrorPlace(.where), "a filter needs exactly one entity in \(place: ErrorPlace(.entities))")
      }
      return graph.ordered.filter { !$0.entity.abstract }
    }
    if options.predicate != nil && names.count != 1 {
      throw StoreError(
        .invalidArgument, at: ErrorPlace(.where),
        "a filter needs exactly one entity in \(place: ErrorPlace(.entities)) (got \(names.count))")
    }
    var wanted: Set<String> = []
    for (i, name) in names.enumerated() {
      guard let m = graph[name] else {
        throw StoreError(
          .notFound, at: ErrorPlace(.entities).index(i), "unknown entity '\(name)'", ["entity": .string(name), "what": "entity"],
          placeInData: false)
      }
      wanted.formUnion(m.concreteNames)
    }
    return graph.ordered.filter { wanted.contains($0.name) }
  }

  /// The select (by key) and count statements for one concrete entity's exported objects.
  /// The select computes only the columns the export writes (`ReadPlan.selectSQL(for:keys:)`).
  private func exportQuery(_ model: EntityModel, _ options: ExportOptions, _ graph: ModelGraph) throws -> (
    select: String, count: String, args: [SQLValue]
  ) {
    let (plan, from, args) = try exportFilter(model, options)
    return (
      readPlan(for: plan).selectSQL(for: model.name, keys: InterchangeFormat.writtenKeys(model, graph: graph)) + from
        + " ORDER BY t.\"_pk\"", "SELECT count(*) FROM \(plan.table) t" + from, args
    )
  }

  /// The joins and WHERE clause choosing one concrete entity's exported objects (`where`).
  func exportFilter(_ model: EntityModel, _ options: ExportOptions) throws -> (plan: EntityPlan, sql: String, args: [SQLValue]) {
    let plan = try self.plan(model.name)
    var request = FetchRequest(entity: model.name, predicate: options.predicate)
    request.predicateLocations = options.predicateLocations
    request.includeSubentities = false
    var builder = SQLBuilder(catalog: catalog, base: plan)
    let filter = try whereClause(request, plan, &builder)
    return (plan, builder.joinSQL + filter, builder.args)
  }
}
