import JSONCore
import SchemaModel

/// An import file opened for reading: its layout, its checked header, and a way to visit
/// its object records (any number of times) with their positions.
struct ImportRecords {
  let input: ImportInput
  let layout: InterchangeFormat.Layout
  let schema: Schema
  /// The schema as written in the file (installed as is when the store has none).
  let schemaJSON: JSONValue
  /// The concrete entities the file holds, as its header lists them (under the store's
  /// names once a migration is set).
  private(set) var entities: [String]
  /// Set when the file's schema is older than the store's: records are migrated as read.
  private(set) var migration: RecordMigration?
  /// The line of the header (ndjson); records follow it.
  private let headerLine: Int
  /// The records of a `json` document, parsed one at a time from its text as they are
  /// read (a whole tree of a large document takes ten times its size), or parsed with the
  /// document when the scanner finds no `objects` array.
  private let objects: JSONElementsSource

  /// Deep enough for any `json` attribute value a store accepts inside a record.
  static let maxDepth = 512

  /// Reads the header. The layout is recognised from the first non-blank line: a complete
  /// JSON object without `objects` is an ndjson header; anything else is read as one
  /// `json` document.
  init(_ input: ImportInput) throws {
    self.input = input
    var first: (number: Int, value: JSONValue?)? = nil
    try input.forEachLine { number, line in
      if ImportInput.isBlank(line) { return true }
      // A line with `objects` starts a json document (which may be all on that line): not
      // parsed here, where it would be parsed whole.
      let isDocument = line.withUnsafeBytes { JSONParser.hasRootMember($0, "objects") }
      first = (number, isDocument ? nil : try? line.withUnsafeBytes { try JSONParser.parse($0, maxDepth: Self.maxDepth) })
      return false
    }
    guard let first else { throw StoreError(.invalidArgument, "the import is empty: it has no header", ["line": 1]) }
    let header: JSONObject
    if case .object(let o)? = first.value, o["objects"] == nil {
      layout = .ndjson
      headerLine = first.number
      header = o
      objects = .parsed([])
    } else {
      layout = .json
      headerLine = 0
      (header, objects) = try Self.readDocument(try input.readAll())
    }
    do {
      (schema, schemaJSON, entities) = try Self.checkHeader(header, layout: layout, line: headerLine)
    } catch {
      throw objects.firstError.map(Self.notJSON) ?? error
    }
  }

  /// A `json` document's header members and its records.
  private static func readDocument(_ bytes: [UInt8]) throws -> (JSONObject, JSONElementsSource) {
    let document: JSONValue
    let records: JSONElementsSource
    do {
      if let streamed = try JSONParser.parse(bytes, streaming: ["objects"], maxDepth: maxDepth) {
        document = streamed.skeleton
        records = .streamed(streamed.elements)
      } else {
        document = try JSONParser.parse(bytes, maxDepth: maxDepth)
        records = .parsed(document["objects"]?.arrayValue ?? [])
      }
    } catch let e as JSONParseError {
      throw notJSON(e)
    }
    guard case .object(let o) = document else {
      throw StoreError(
        .invalidArgument, "the import is not a ModelStore export: expected a JSON object, got \(document.typeName)", ["pointer": ""])
    }
    guard case .array? = o["objects"] else {
      throw StoreError(.invalidArgument, "/objects: expected the array of objects", ["pointer": "/objects"])
    }
    return (o, records)
  }

  /// A document that is not JSON, where a whole parse finds the first error.
  static func notJSON(_ e: JSONParseError) -> StoreError {
    StoreError(
      .invalidArgument, "line \(e.line): not valid JSON: \(e.message) (column \(e.column))",
      ["line": .int(Int64(e.line)), "column": .int(Int64(e.column)), "position": .int(Int64(e.position))])
  }

  /// The error that makes a `json` document's records not JSON, if any (read again to
  /// find it): it comes before any other, as when the document was parsed whole first.
  var firstJSONError: StoreError? { objects.firstError.map(Self.notJSON) }

  /// Checks `format`, `version`, `schema` and `entities`; unknown members are refused.
  private static func checkHeader(_ h: JSONObject, layout: InterchangeFormat.Layout, line: Int) throws -> (
    Schema, JSONValue, [String]
  ) {
    func fail(_ pointer: String, _ message: String, _ extra: JSONObject = [:]) -> StoreError {
      var details = extra
      if layout == .ndjson { details["line"] = .int(Int64(line)) }
      details["pointer"] = .string(pointer)
      let place = layout == .ndjson ? "line \(line) at \(pointer)" : pointer
      return StoreError(.invalidArgument, "\(place): \(message)", details)
    }
    let known = layout == .json ? ["format", "version", "schema", "entities", "objects"] : ["format", "version", "schema", "entities"]
    for m in h.members where !known.contains(m.key) {
      throw fail("/\(m.key)", "unknown header member '\(m.key)' (expected \(known.joined(separator: ", ")))")
    }
    guard h["format"] == .string(InterchangeFormat.name) else {
      throw fail(
        "/format", "not a ModelStore export: format must be '\(InterchangeFormat.name)', got \(h["format"].map { "\($0)" } ?? "nothing")")
    }
    guard h["version"] == .int(InterchangeFormat.version) else {
      throw fail(
        "/version",
        "unsupported format version \(h["version"].map { "\($0)" } ?? "(missing)"); this server reads version \(InterchangeFormat.version)")
    }
    guard let schemaJSON = h["schema"], case .object = schemaJSON else { throw fail("/schema", "expected the schema object") }
    let (schema, issues) = SchemaValidator.check(schemaJSON)
    if let issue = issues.first(where: { $0.severity == .error }) {
      var e = fail("/schema", "the file's schema is not valid: \(issue.path): \(issue.message)", ["issues": .array(issues.map(\.json))])
      e.kind = .invalidModel
      throw e
    }
    guard case .array(let list)? = h["entities"] else { throw fail("/entities", "expected the array of exported entity names") }
    let graph = ModelGraph(schema)
    var names: [String] = []
    for (i, v) in list.enumerated() {
      guard case .string(let name) = v, let m = graph[name], !m.entity.abstract else {
        throw fail("/entities/\(i)", "\(v) is not a concrete entity of the file's schema")
      }
      guard !names.contains(name) else { throw fail("/entities/\(i)", "'\(name)' is listed twice") }
      names.append(name)
    }
    return (schema, schemaJSON, names)
  }

  /// Reads every record through `m` from now on.
  mutating func migrate(with m: RecordMigration) {
    migration = m
    entities = entities.filter(m.keeps).map(m.entity)
  }

  /// Calls `body` with every object record in file order. ndjson lines are parsed one
  /// at a time (blank lines are skipped but counted); bad JSON names its line.
  func forEach(_ body: (RecordLocation, JSONValue) throws -> Void) throws {
    switch layout {
    case .json:
      var records = objects.elements()
      var i = 0
      do {
        while let v = try records.next() {
          let location = RecordLocation(layout: .json, number: i)
          try body(location, try migration?.migrate(v, at: location) ?? v)
          i += 1
        }
      } catch {
        // Text that is not JSON anywhere in the records comes first, as it did when the
        // document was parsed whole before anything was imported.
        throw records.finish().map(Self.notJSON) ?? error
      }
    case .ndjson:
      try input.forEachLine { number, line in
        if number <= headerLine || ImportInput.isBlank(line) { return true }
        let value: JSONValue
        do {
          value = try line.withUnsafeBytes { try JSONParser.parse($0, maxDepth: Self.maxDepth) }
        } catch let e as JSONParseError {
          throw StoreError(
            .invalidArgument, "line \(number): not valid JSON: \(e.message) (column \(e.column))",
            ["line": .int(Int64(number)), "column": .int(Int64(e.column))])
        }
        let location = RecordLocation(layout: .ndjson, number: number)
        try body(location, try migration?.migrate(value, at: location) ?? value)
        return true
      }
    }
  }

  /// The number of records, when known without reading the input again.
  var knownCount: Int? { layout == .json ? objects.count : nil }
}

/// A `json` document's records: streamed from its text, or parsed with it.
enum JSONElementsSource {
  case streamed(JSONArrayStream)
  case parsed([JSONValue])

  /// The records from the first (a stream is read again from its start each time).
  func elements() -> JSONElements {
    switch self {
    case .streamed(let s): return JSONElements(s.rereading())
    case .parsed(let items): return JSONElements(items)
    }
  }

  var count: Int {
    switch self {
    case .streamed(let s): return s.expectedCount
    case .parsed(let items): return items.count
    }
  }

  /// The first error that makes the records not JSON (or nest too deep).
  var firstError: JSONParseError? {
    guard case .streamed(let s) = self else { return nil }
    return s.rereading().finish()
  }
}
