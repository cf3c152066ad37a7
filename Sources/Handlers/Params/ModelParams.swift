import CodeGeneration
import CoreDataTooling
import Diagrams
import JSONCore
import RPCCore
import StoreEngine

/// A schema the engine reads (`model.define`'s `schema`); missing is `missing schema object`.
struct SchemaJSON: ParamValue {
  let json: JSONValue
  static var schema: JSONValue { JSONSchema.ref("Schema") }
  static var expected: String { "schema object" }
  static var placeholder: SchemaJSON { SchemaJSON(param: .null) }
  init(param v: JSONValue, path: @autoclosure () -> String = "") { json = v }
}

/// `model.define`.
struct ModelDefineParams: MethodParams {
  static let method = "model.define"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelDefineResult
  let schema: SchemaJSON
  init(_ r: ParamReader) throws { schema = try r.require("schema") }
}

/// `model.get`.
struct ModelGetParams: NoParams {
  static let method = "model.get"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelGetResult
}

/// `model.diff`.
struct ModelDiffParams: MethodParams {
  static let method = "model.diff"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelDiffResult
  /// Absent: the store's schema.
  let from: SchemaJSON?
  let to: SchemaJSON
  init(_ r: ParamReader) throws {
    from = try r.read("from")
    to = try r.require("to")
  }
}

/// `model.validate`.
struct ModelValidateParams: MethodParams {
  static let method = "model.validate"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelValidateResult
  let schema: SchemaJSON
  init(_ r: ParamReader) throws { schema = try r.require("schema") }
}

/// The model a Core Data method reads: exactly one of `path` (a `.xcdatamodeld` bundle, a
/// `.xcdatamodel` directory or a `contents` file), `xml` (the text of a `contents` file,
/// named by `name`) or, where allowed, `schema` (a ModelStore schema). With `required:
/// false` none may be given (`isGiven` false: the method then uses the open store's model).
struct ModelSource {
  let path: String?
  let xml: String?
  let name: String?
  let schema: SchemaJSON?
  /// The versions' names, oldest first (`VersionOrder`); only with `path`.
  let versionOrder: [String]?

  var isGiven: Bool { path != nil || xml != nil || schema != nil }

  init(_ r: ParamReader, allowSchema: Bool, required: Bool = true) throws {
    try r.refuseWithout("name", "xml", schema: JSONSchema.string)
    try r.refuseWithout("versionOrder", "path", schema: JSONSchema.array(JSONSchema.string))
    let given = ["path", "xml"] + (allowSchema ? ["schema"] : [])
    let list = allowSchema ? "'path', 'xml' or 'schema'" : "'path' or 'xml'"
    let count = given.filter { r.has($0) }.count
    try r.check(
      count == 1 || (!required && count == 0),
      RPCError.invalidParams("give \(required ? "exactly" : "at most") one of \(list)", ["path": "params"]))
    path = try r.read("path", schema: JSONSchema.filePath)
    xml = try r.read("xml")
    name = try r.read("name")
    schema = allowSchema ? try r.read("schema") : nil
    versionOrder = try r.read("versionOrder")
  }

  /// Reads the model (a file, the text, or the schema).
  func load() throws -> ImportedModel {
    if let path { return try CoreDataModelImporter.importModel(at: path, versionOrder: versionOrder) }
    if let xml { return CoreDataModelImporter.importContents(Array(xml.utf8), name: name ?? "Model") }
    return ImportedModel.fromSchema(schema?.json ?? .null, path: "params.schema")
  }
}

/// `model.importXcdatamodel`.
struct ModelImportXcdatamodelParams: MethodParams {
  static let method = "model.importXcdatamodel"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ImportedModelJSON
  let source: ModelSource
  init(_ r: ParamReader) throws { source = try ModelSource(r, allowSchema: false) }
}

/// `model.audit`.
struct ModelAuditParams: MethodParams {
  static let method = "model.audit"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelAuditResult
  let source: ModelSource
  let cloudKit: Bool?
  /// A path to another model, or a schema object.
  let compareWith: JSONValue?
  init(_ r: ParamReader) throws {
    source = try ModelSource(r, allowSchema: true)
    cloudKit = try r.read("cloudKit")
    compareWith = r.value("compareWith", schema: JSONSchema.oneOf(JSONSchema.filePath, JSONSchema.ref("Schema")))
  }
}

extension CodeGenerator.Target: ParamValue {
  static var schema: JSONValue { JSONSchema.enumeration(["swiftdata", "coredata", "typescript", "python"]) }
  static var expected: String { "string" }
  static var placeholder: CodeGenerator.Target { .swiftdata }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let name = try String(param: v, path: path())
    guard let target = CodeGenerator.Target(rawValue: name) else {
      throw RPCError.invalidParams(
        "params.target: expected one of swiftdata, coredata, typescript, python, got '\(name)'",
        ["path": "params.target", "expected": "swiftdata, coredata, typescript or python", "actual": .string(name)])
    }
    self = target
  }
}

/// `model.generate`.
struct ModelGenerateParams: MethodParams {
  static let method = "model.generate"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelGenerateResult
  let target: CodeGenerator.Target
  let baseName: String?
  let source: ModelSource
  init(_ r: ParamReader) throws {
    target = try r.require("target")
    baseName = try r.read("baseName")
    try r.check(
      baseName == nil || target == .swiftdata,
      RPCError.invalidParams(
        "params.baseName: only target swiftdata writes versioned schemas to name, not \(target.rawValue)", ["path": "params.baseName"]))
    source = try ModelSource(r, allowSchema: true)
  }
}

extension DiagramFormat: ParamValue {
  /// `png` is binary, so the protocol draws up to SVG; `modelstore diagram` writes PNG.
  static let words = ["mermaid", "dot", "svg"]
  static var schema: JSONValue { JSONSchema.enumeration(words) }
  static var expected: String { "string" }
  static var placeholder: DiagramFormat { .mermaid }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let name = try String(param: v, path: path())
    guard let format = DiagramFormat(rawValue: name), Self.words.contains(name) else {
      let why =
        name == "png"
        ? "png is binary: ask for svg, or run modelstore diagram --format png" : "expected one of mermaid, dot, svg, got '\(name)'"
      throw RPCError.invalidParams(
        "\(path()): \(why)", ["path": .string(path()), "expected": "mermaid, dot or svg", "actual": .string(name)])
    }
    self = format
  }
}

/// A version to draw: its name in the model or store, or a whole schema.
struct DiagramVersionParam: ParamValue {
  let ref: ModelDiagrams.VersionRef
  static var schema: JSONValue { JSONSchema.oneOf(JSONSchema.string, JSONSchema.ref("Schema")) }
  static var expected: String { "version name (string) or schema (object)" }
  static var placeholder: DiagramVersionParam { DiagramVersionParam(ref: .name("")) }
  init(ref: ModelDiagrams.VersionRef) { self.ref = ref }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    switch v {
    case .string(let name): ref = .name(name)
    case .object: ref = .schema(v)
    default:
      throw RPCError.invalidParams(
        "\(path()): expected a version name (string) or a schema (object), got \(v.typeName)",
        ["path": .string(path()), "expected": "string or object", "actual": .string(v.typeName)])
    }
  }
}

/// `model.diagram`.
struct ModelDiagramParams: MethodParams {
  static let method = "model.diagram"
  /// `measure` runs a dry run, rolled back: nothing the store keeps changes.
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelDiagramResult
  let format: DiagramFormat?
  /// Not given: the open store's versions.
  let source: ModelSource
  let version: String?
  let from: DiagramVersionParam?
  let to: DiagramVersionParam?
  let measure: Bool?
  init(_ r: ParamReader) throws {
    format = try r.read("format")
    source = try ModelSource(r, allowSchema: true, required: false)
    version = try r.read("version")
    from = try r.read("from")
    to = try r.read("to")
    measure = try r.read("measure")
    try r.check(
      version == nil || (from == nil && to == nil),
      RPCError.invalidParams(
        "params.version: give version (one diagram) or from / to (a migration), not both", ["path": "params.version"]))
    try r.check(
      measure != true || ((from != nil || to != nil) && !source.isGiven),
      RPCError.invalidParams(
        "params.measure: measures a migration of the open store: give from or to, and no path, xml or schema", ["path": "params.measure"]))
  }
}
