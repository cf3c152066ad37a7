import JSONCore
import SchemaModel

extension ImportedModel {
  /// A ModelStore schema given as JSON, in the shape of an import with one version, so that
  /// `model.audit` and `model.generate` treat it like a model file. Its issues carry the
  /// JSON path of the problem in `file`.
  public static func fromSchema(_ json: JSONValue, path: String = "schema") -> ImportedModel {
    let (schema, issues) = SchemaValidator.check(json, path: path)
    var model = ImportedModel(path: "", kind: .model)
    var version = ImportedModelVersion(name: schema.version, file: path, isCurrent: true)
    version.readSchema = schema
    version.issues = issues.map {
      ModelImportIssue(
        $0.severity == .error ? .error : .warning, $0.code, $0.message, file: $0.path, entity: $0.entity, property: $0.property)
    }
    model.versions = [version]
    return model
  }
}
