import CodeGeneration
import CoreDataTooling
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
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelDefineResult
  let schema: SchemaJSON
  init(_ r: ParamReader) throws { schema = try r.require("schema") }
}

/// `model.get`.
struct ModelGetParams: NoParams {
  static let method = "model.get"
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelGetResult
}

/// `model.diff`.
struct ModelDiffParams: MethodParams {
  static let method = "model.diff"
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
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelValidateResult
  let schema: SchemaJSON
  init(_ r: ParamReader) throws { schema = try r.require("schema") }
}

/// The model a Core Data method reads: exactly one of `path` (a `.xcdatamodeld` bundle, a
/// `.xcdatamodel` directory or a `contents` file), `xml` (the text of a `contents` file,
/// named by `name`) or, where allowed, `schema` (a ModelStore schema).
struct ModelSource {
  let path: String?
  let xml: String?
  let name: String?
  let schema: SchemaJSON?
  /// The versions' names, oldest first (`VersionOrder`); only with `path`.
  let versionOrder: [String]?

  init(_ r: ParamReader, allowSchema: Bool) throws {
    try r.refuseWithout("name", "xml", schema: JSONSchema.string)
    try r.refuseWithout("versionOrder", "path", schema: JSONSchema.array(JSONSchema.string))
    let given = ["path", "xml"] + (allowSchema ? ["schema"] : [])
    let list = allowSchema ? "'path', 'xml' or 'schema'" : "'path' or 'xml'"
    try r.check(given.filter { r.has($0) }.count == 1, RPCError.invalidParams("give exactly one of \(list)", ["path": "params"]))
    path = try r.read("path")
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
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ImportedModelJSON
  let source: ModelSource
  init(_ r: ParamReader) throws { source = try ModelSource(r, allowSchema: false) }
}

/// `model.audit`.
struct ModelAuditParams: MethodParams {
  static let method = "model.audit"
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ModelAuditResult
  let source: ModelSource
  let cloudKit: Bool?
  /// A path to another model, or a schema object.
  let compareWith: JSONValue?
  init(_ r: ParamReader) throws {
    source = try ModelSource(r, allowSchema: true)
    cloudKit = try r.read("cloudKit")
    compareWith = r.value("compareWith", schema: JSONSchema.oneOf(JSONSchema.string, JSONSchema.ref("Schema")))
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
