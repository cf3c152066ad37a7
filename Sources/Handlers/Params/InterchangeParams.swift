import JSONCore
import RPCCore
import StoreEngine

extension InterchangeFormat.Layout: ParamValue {
  static var schema: JSONValue { JSONSchema.enumeration(["ndjson", "json"]) }
  static var expected: String { "string" }
  static var placeholder: InterchangeFormat.Layout { .ndjson }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let name = try String(param: v, path: path())
    guard let layout = InterchangeFormat.Layout(rawValue: name) else {
      throw RPCError.invalidParams(
        "params.format: expected \"ndjson\" or \"json\", got '\(name)'",
        ["path": "params.format", "expected": "ndjson or json", "actual": .string(name)])
    }
    self = layout
  }
}

extension ImportMode: ParamValue {
  static var schema: JSONValue { JSONSchema.enumeration(["insert", "upsert", "replace"]) }
  static var expected: String { "string" }
  static var placeholder: ImportMode { .insert }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let name = try String(param: v, path: path())
    guard let mode = ImportMode(rawValue: name) else {
      throw RPCError.invalidParams(
        "params.mode: expected one of insert, upsert, replace, got '\(name)'",
        ["path": "params.mode", "expected": "insert, upsert or replace", "actual": .string(name)])
    }
    self = mode
  }
}

/// `export.json`.
struct ExportJSONParams: MethodParams {
  static let method = "export.json"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ExportJSONResult
  var options: ExportOptions
  let progressToken: JSONValue?
  let path: String?
  init(_ r: ParamReader) throws {
    options = ExportOptions(entities: try r.read("entities"), layout: try r.read("format") ?? .ndjson)
    options.withRelated = try r.read("withRelated") ?? false
    if let condition = try RequestParsing.condition(r) {
      options.predicate = condition.predicate
      options.predicateLocations = condition.locations
    }
    progressToken = try (r.read("progressToken") as ProgressToken?)?.value
    path = try r.read("path", schema: JSONSchema.filePath)
  }
}

/// `import.json`: exactly one of `path` and `data`.
struct ImportJSONParams: MethodParams {
  static let method = "import.json"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ImportJSONResult
  let input: ImportInput
  let mode: ImportMode
  let progressToken: JSONValue?
  init(_ r: ParamReader) throws {
    let path: String? = try r.read("path", schema: JSONSchema.filePath)
    let data: String? = try r.read("data")
    try r.check(
      (path == nil) != (data == nil),
      RPCError.invalidParams("give exactly one of 'path' (a file) or 'data' (the export's text)", ["path": "params"]))
    input = path.map { .file(path: $0) } ?? .bytes(Array((data ?? "").utf8))
    mode = try r.read("mode") ?? .insert
    progressToken = try (r.read("progressToken") as ProgressToken?)?.value
  }
}

/// `import.coreData`.
struct ImportCoreDataParams: MethodParams {
  static let method = "import.coreData"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ImportCoreDataResult
  let store: String
  let progressToken: JSONValue?
  let model: String?
  /// With `model`: the version the store was written with, and the versions' order.
  let modelVersion: String?
  let versionOrder: [String]?
  init(_ r: ParamReader) throws {
    store = try r.require("store", schema: JSONSchema.filePath)
    progressToken = try (r.read("progressToken") as ProgressToken?)?.value
    model = try r.read("model", schema: JSONSchema.filePath)
    try r.refuseWithout("modelVersion", "model", schema: JSONSchema.string)
    try r.refuseWithout("versionOrder", "model", schema: JSONSchema.array(JSONSchema.string))
    modelVersion = try r.read("modelVersion")
    versionOrder = try r.read("versionOrder")
  }
}
