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
  static func coreDataMethods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ModelImportXcdatamodelParams.self) { p, _ in ImportedModelJSON(try p.source.load().json) },
      MethodEntry(ModelAuditParams.self) { p, _ in
        let model = try p.source.load()
        let audit = try model.audit(cloudKit: p.cloudKit)
        return ModelAuditResult(
          audit: audit.json.objectValue ?? [:], current: model.current?.name,
          coexistence: try p.compareWith.map { try coexistence(model, $0) })
      },
      MethodEntry(ModelGenerateParams.self) { p, _ in
        let model = try p.source.load()
        let (files, skipped) = try model.generate(p.target, baseName: p.baseName)
        if p.baseName != nil && model.versions.count - skipped.count < 2 {
          throw RPCError.invalidParams(
            "params.baseName: one version of the model is generated, so there are no versioned schemas or migration plan to name",
            ["path": "params.baseName"])
        }
        return ModelGenerateResult(target: p.target, files: files, skipped: skipped)
      },
    ]
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
