import JSONCore
import RPCCore
import StoreEngine

/// `export.json` and `import.json`: the JSON bridge (protocol.md, "Interchange format").
enum InterchangeHandlers {
  /// Largest export answered inline; above it the client must give `path`, so a reply
  /// never holds a whole large store.
  static let inlineLimit = 8 << 20

  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      ("export.json", { p, context in try export(s, p, context) }),
      ("import.json", { p, context in try importJSON(s, p, context) }),
      ("import.coreData", { p, context in try importCoreData(s, p, context) }),
    ]
  }

  private static func export(_ s: Session, _ p: JSONReader, _ context: RequestContext) throws -> JSONValue {
    try p.rejectUnknown(["entities", "where", "args", "variables", "format", "path", "progressToken", "withRelated"])
    let store = try s.requireStore()
    var options = ExportOptions(entities: try p.stringArray("entities"), layout: try layout(p))
    options.withRelated = try p.bool("withRelated") ?? false
    if let condition = try RequestParsing.condition(p) {
      options.predicate = condition.predicate
      options.predicateLocations = condition.locations
    }
    let token = try RequestParsing.progressToken(p)
    let path = try p.string("path")
    let memory = path == nil ? MemorySink(limit: inlineLimit) : nil
    let sink: ByteSink = try memory ?? FileSink.create(path: path!, place: ErrorPlace(.path))
    let summary = try store.export(
      options, to: sink,
      progress: token.map { t in { done, total in context.progress(token: t, done: done, total: total, message: "export") } })
    var result: JSONObject = [
      "format": .string(options.layout.rawValue), "objects": .int(Int64(summary.objects)),
      "counts": .object(JSONObject(summary.counts.map { .init($0.entity, .int(Int64($0.count))) })),
      "bytes": .int(Int64(summary.bytes)),
    ]
    if let memory {
      result.append("data", .string(String(decoding: memory.bytes, as: UTF8.self)))
    } else {
      result.append("path", .string(path!))
    }
    return .object(result)
  }

  private static func importJSON(_ s: Session, _ p: JSONReader, _ context: RequestContext) throws -> JSONValue {
    try p.rejectUnknown(["path", "data", "mode", "progressToken"])
    let store = try s.requireStore()
    let path = try p.string("path")
    let data = try p.string("data")
    guard (path == nil) != (data == nil) else {
      throw RPCError.invalidParams("give exactly one of 'path' (a file) or 'data' (the export's text)", ["path": "params"])
    }
    let modeName = try p.string("mode") ?? ImportMode.insert.rawValue
    guard let mode = ImportMode(rawValue: modeName) else {
      throw RPCError.invalidParams(
        "params.mode: expected one of insert, upsert, replace, got '\(modeName)'",
        ["path": "params.mode", "expected": "insert, upsert or replace", "actual": .string(modeName)])
    }
    let token = try RequestParsing.progressToken(p)
    let input: ImportInput = path.map { .file(path: $0) } ?? .bytes(Array(data!.utf8))
    let summary = try store.importObjects(
      input, mode: mode,
      progress: token.map { t in { phase, done, total in context.progress(token: t, done: done, total: total, message: phase.rawValue) } })
    return .object([
      "format": .string(summary.layout.rawValue), "mode": .string(summary.mode.rawValue), "objects": .int(Int64(summary.objects)),
      "inserted": .int(Int64(summary.inserted)), "updated": .int(Int64(summary.updated)), "deleted": .int(Int64(summary.deleted)),
      "schemaDefined": .bool(summary.schemaDefined), "migrated": .array(summary.migrated.map(\.json)),
    ])
  }

  private static func layout(_ p: JSONReader) throws -> InterchangeFormat.Layout {
    let name = try p.string("format") ?? InterchangeFormat.Layout.ndjson.rawValue
    guard let layout = InterchangeFormat.Layout(rawValue: name) else {
      throw RPCError.invalidParams(
        "params.format: expected \"ndjson\" or \"json\", got '\(name)'",
        ["path": "params.format", "expected": "ndjson or json", "actual": .string(name)])
    }
    return layout
  }
}
