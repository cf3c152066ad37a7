import CodeGeneration
import CoreDataTooling
import JSONCore
import RPCCore
import SchemaModel
import StoreEngine

/// `model.importXcdatamodel`, `model.audit`, `model.generate`: the Core Data model bridge.
/// They need no open store. A model comes from `path` (a `.xcdatamodeld` bundle, a
/// `.xcdatamodel` directory or a `contents` file), `xml` (the text of a `contents` file) or,
/// for audit and generate, `schema` (a ModelStore schema).
extension ModelHandlers {
  static func coreDataMethods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "model.importXcdatamodel",
        { p, _ in
          try p.rejectUnknown(["path", "xml", "name"])
          return try source(p, allowSchema: false).json
        }
      ),
      (
        "model.audit",
        { p, _ in
          try p.rejectUnknown(["path", "xml", "name", "schema", "cloudKit", "compareWith"])
          let model = try source(p, allowSchema: true)
          let audit = try model.audit(cloudKit: try p.bool("cloudKit"))
          guard case .object(var o) = audit.json else { return audit.json }
          o.append("current", model.current.map { .string($0.name) } ?? .null)
          if let other = p.value("compareWith") {
            o.append("coexistence", try coexistence(model, other))
          }
          return .object(o)
        }
      ),
      (
        "model.generate",
        { p, _ in
          try p.rejectUnknown(["path", "xml", "name", "schema", "target", "baseName"])
          let targetName = try p.requireString("target")
          guard let target = CodeGenerator.Target(rawValue: targetName) else {
            throw RPCError.invalidParams(
              "params.target: expected one of swiftdata, coredata, typescript, python, got '\(targetName)'",
              ["path": "params.target", "expected": "swiftdata, coredata, typescript or python", "actual": .string(targetName)])
          }
          let baseName = try p.string("baseName")
          if baseName != nil && target != .swiftdata {
            throw RPCError.invalidParams(
              "params.baseName: only target swiftdata writes versioned schemas to name, not \(target.rawValue)", ["path": "params.baseName"])
          }
          let model = try source(p, allowSchema: true)
          let (files, skipped) = try model.generate(target, baseName: baseName)
          if baseName != nil && model.versions.count - skipped.count < 2 {
            throw RPCError.invalidParams(
              "params.baseName: one version of the model is generated, so there are no versioned schemas or migration plan to name",
              ["path": "params.baseName"])
          }
          var o: JSONObject = ["target": .string(target.rawValue), "files": .array(files.map(\.json))]
          if !skipped.isEmpty { o.append("skippedVersions", .array(skipped.map(\.json))) }
          return .object(o)
        }
      ),
    ]
  }

  /// The model named by exactly one of `path`, `xml` or (when allowed) `schema`.
  static func source(_ p: JSONReader, allowSchema: Bool) throws -> ImportedModel {
    try RequestParsing.refuseWithout(p, "name", "xml")
    let given = ["path", "xml"] + (allowSchema ? ["schema"] : [])
    let present = given.filter { p.has($0) }
    guard present.count == 1 else {
      let list = allowSchema ? "'path', 'xml' or 'schema'" : "'path' or 'xml'"
      throw RPCError.invalidParams("give exactly one of \(list)", ["path": "params"])
    }
    switch present[0] {
    case "path": return try CoreDataModelImporter.importModel(at: try p.requireString("path"))
    case "xml": return CoreDataModelImporter.importContents(Array(try p.requireString("xml").utf8), name: try p.string("name") ?? "Model")
    default: return ImportedModel.fromSchema(try p.require("schema", expected: "schema object"), path: "params.schema")
    }
  }

  /// `compareWith`: a path to another model, or a schema object.
  static func coexistence(_ model: ImportedModel, _ other: JSONValue) throws -> JSONValue {
    let second: ImportedModel
    switch other {
    case .string(let path): second = try CoreDataModelImporter.importModel(at: path)
    case .object: second = ImportedModel.fromSchema(other, path: "params.compareWith")
    default:
      throw RPCError.invalidParams(
        "params.compareWith: expected a path (string) or a schema (object), got \(other.typeName)",
        ["path": "params.compareWith", "expected": "string or object", "actual": .string(other.typeName)])
    }
    guard let a = model.current?.readSchema else { return .null }
    guard let b = second.current?.readSchema else {
      throw StoreError(
        .invalidModel, "the model to compare with could not be read",
        ["issues": .array(second.allErrors.map(\.json))])
    }
    let differences = ModelCoexistence.compare(a, b)
    return .object(["compatible": .bool(differences.isEmpty), "differences": .array(differences.map(\.json))])
  }
}
