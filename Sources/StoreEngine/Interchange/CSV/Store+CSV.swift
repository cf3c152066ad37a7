import JSONCore
import SchemaModel

/// CSV import and export of one entity, through the interchange machinery: a CSV file is
/// turned into interchange records (values converted by the schema's attribute types)
/// and imported by `importObjects`, so it gets the same checks, modes and atomicity; an
/// export runs `export` and writes each record as a CSV row. Errors name the CSV line and
/// column (`line 4, column 3 (priority): ...`).
extension Store {
  /// Imports a CSV file of `entity`'s objects, all or nothing. The first record is the
  /// header: each column names a stored attribute of the entity (or of a sub-entity), or
  /// `_id` (an id of the entity or a sub-entity: kept by `replace`, matched within the
  /// file otherwise). The store must have a schema (a CSV carries no types). The records
  /// are converted in memory before the import starts.
  public func importCSV(
    _ input: ImportInput, entity: String, mode: ImportMode,
    progress: ((_ phase: ImportPhase, _ done: Int, _ total: Int?) -> Void)? = nil
  ) throws -> ImportSummary {
    try checkWritable()
    if catalog.graph == nil && catalog.reloadFailure == nil {
      throw StoreError(
        .noSchema,
        "the store has no schema yet, and a CSV file carries none: define the schema first (or import an export, which carries it)")
    }
    let graph = try catalog.requireGraph()
    guard let model = graph[entity] else {
      throw StoreError(.notFound, "unknown entity '\(entity)'", ["entity": .string(entity), "what": "entity"])
    }
    let columns = CSVColumns(model, graph: graph)
    var header: [String]?
    var lines: [Int] = []  // the CSV line of each record, by its position
    var w = JSONWriter(capacity: 1 << 16)
    w.write(InterchangeFormat.header(schema: graph.schema, entities: model.concreteNames))
    w.bytes.append(0x0A)
    try CSVText.forEachRecord(input) { record in
      guard let names = header else {
        header = try Self.csvHeader(record, columns)
        return
      }
      guard record.fields.count == names.count else {
        throw CSVText.error(
          record.line, min(record.fields.count, names.count) + 1,
          "the record has \(record.fields.count) fields; the header has \(names.count)")
      }
      lines.append(record.line)
      w.write(try Self.csvRecord(record, names, columns, number: lines.count))
      w.bytes.append(0x0A)
    }
    guard let names = header else { throw StoreError(.invalidArgument, "the CSV is empty: it has no header row", ["line": 1]) }
    do {
      return try importObjects(.bytes(w.bytes), mode: mode, progress: progress)
    } catch let e as StoreError {
      throw Self.csvLocated(e, lines: lines, header: names)
    }
  }

  /// Writes `entity`'s objects (and its sub-entities'), filtered by `predicate`, as CSV
  /// with a header row (`CSVColumns`). The summary's `bytes` are the CSV's.
  public func exportCSV(
    entity: String, predicate: Predicate? = nil, predicateLocations: [ErrorPlace]? = nil, to sink: ByteSink,
    progress: ((Int, Int) -> Void)? = nil
  ) throws -> ExportSummary {
    // The columns are those of the schema the export's snapshot sees.
    try readingOneSnapshot(rerunnable: false) {
      let graph = try requireGraph()
      guard let model = graph[entity] else {
        throw StoreError(
          .notFound, at: ErrorPlace(.entities).index(0), "unknown entity '\(entity)'", ["entity": .string(entity), "what": "entity"],
          placeInData: false)
      }
      var options = ExportOptions(entities: [entity], predicate: predicate, layout: .ndjson)
      options.predicateLocations = predicateLocations
      let csv = CSVSink(CSVColumns(model, graph: graph), to: sink)
      var summary = try export(options, to: csv, progress: progress)
      summary.bytes = csv.bytes
      return summary
    }
  }

  /// The header's column names, each an attribute of the entity's columns or `_id`.
  private static func csvHeader(_ record: CSVText.Record, _ columns: CSVColumns) throws -> [String] {
    var names: [String] = []
    for (i, f) in record.fields.enumerated() {
      let name = f.text
      guard name == "_id" || columns.attributes[name] != nil else {
        let what =
          columns.entity.relationship(name) != nil
          ? "'\(name)' is a relationship: a CSV holds attribute values only"
          : "'\(name)' is not a stored attribute of entity '\(columns.entity.name)' (columns: \(columns.names.joined(separator: ", ")))"
        throw CSVText.error(record.line, i + 1, what)
      }
      guard !names.contains(name) else { throw CSVText.error(record.line, i + 1, "column '\(name)' appears twice") }
      names.append(name)
    }
    return names
  }

  /// One record as an interchange record: its `_id` (the `_id` column's, or the entity's
  /// with the record's position as key) and its converted values.
  private static func csvRecord(_ record: CSVText.Record, _ names: [String], _ columns: CSVColumns, number: Int) throws -> JSONValue {
    var id = ObjectID(entity: columns.entity.name, pk: Int64(number))
    var values = JSONObject()
    for (i, f) in record.fields.enumerated() {
      if names[i] == "_id" {
        guard !f.text.isEmpty else { continue }
        guard let given = ObjectID(f.text), columns.entity.concreteNames.contains(given.entity) else {
          throw CSVText.error(
            record.line, i + 1,
            "'\(f.text.prefix(80))' is not an id of \(columns.entity.concreteNames.map { "'\($0)'" }.joined(separator: " or ")) (Entity/123)"
          )
        }
        id = given
      } else if let v = try CSVColumns.value(f, columns.attributes[names[i]]!, line: record.line, column: i + 1) {
        values.append(names[i], v)
      }
    }
    var o: JSONObject = ["_id": .string(id.description), "_entity": .string(id.entity)]
    for m in values.members { o.append(m.key, m.value) }
    return .object(o)
  }

  /// An import error about interchange line N (record N - 1) at `/key`, renamed to the
  /// CSV's line and the key's column.
  private static func csvLocated(_ e: StoreError, lines: [Int], header: [String]) -> StoreError {
    guard case .int(let n)? = e.details["line"], n >= 2, Int(n) - 2 < lines.count else { return e }
    let line = lines[Int(n) - 2]
    let pointer = e.details["pointer"]?.stringValue ?? ""
    let prefix = RecordLocation(layout: .ndjson, number: Int(n)).describe(pointer) + ": "
    var body = e.text.description
    if body.hasPrefix(prefix) { body.removeFirst(prefix.count) }
    let key = pointer.split(separator: "/").first.map { String($0).replacing("~1", with: "/").replacing("~0", with: "~") }
    var out = e
    out.details["pointer"] = nil
    out.details["line"] = .int(Int64(line))
    if let key, let column = header.firstIndex(of: key) {
      out.details["column"] = .int(Int64(column + 1))
      out.text = ErrorText("line \(line), column \(column + 1) (\(key)): " + body)
    } else {
      out.text = ErrorText("line \(line): " + body)
    }
    return out
  }
}

/// Turns an ndjson export into CSV as it is written: the header line is dropped, each
/// record becomes a row of `columns`.
final class CSVSink: ByteSink {
  private let columns: CSVColumns
  private let target: ByteSink
  private var pending: [UInt8] = []
  private var sawHeader = false
  private(set) var bytes = 0

  init(_ columns: CSVColumns, to target: ByteSink) {
    self.columns = columns
    self.target = target
  }

  func write(_ chunk: [UInt8]) throws {
    pending.append(contentsOf: chunk)
    var start = 0
    var out = ""
    while let nl = pending[start...].firstIndex(of: 0x0A) {
      defer { start = nl + 1 }
      guard sawHeader else {
        // The interchange header: the CSV's own header row takes its place.
        sawHeader = true
        out += CSVText.line(columns.names)
        continue
      }
      let record = try pending[start..<nl].withUnsafeBytes { try JSONParser.parse($0, maxDepth: ImportRecords.maxDepth) }
      out += CSVText.line(columns.names.map { CSVText.text(record[$0]) })
    }
    pending.removeFirst(start)
    let bytes = Array(out.utf8)
    self.bytes += bytes.count
    try target.write(bytes)
  }

  func finish() throws { try target.finish() }
  func abandon() { target.abandon() }
}
