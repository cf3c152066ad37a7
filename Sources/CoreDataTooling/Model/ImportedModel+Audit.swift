import JSONCore
import SchemaModel

/// The audit of an import: the code path behind `model.audit` and
/// `modelstore xcdatamodel --audit` (code generation over an import is in CodeGeneration).
extension ImportedModel {
  /// The current version, or an `invalidModel` error naming what went wrong.
  package func requireCurrent() throws -> ImportedModelVersion {
    guard let current else {
      let errors = issues.filter { $0.severity == .error }
      throw ToolingError(
        .invalidModel, errors.first.map { "the model has no current version: \($0.message)" } ?? "the model has no current version",
        ["issues": .array(errors.map(\.json))])
    }
    return current
  }

  /// The audit of the current version, on the schema as read (also when ModelStore found
  /// errors in it: they become findings). `cloudKit` nil means the model's own
  /// `usedWithCloudKit` flag.
  public func audit(cloudKit: Bool? = nil) throws -> ModelAudit {
    let version = try requireCurrent()
    guard let schema = version.readSchema else {
      throw ToolingError(
        .invalidModel, "version '\(version.name)' could not be read: \(version.errors.first?.message ?? "unknown reason")",
        ["issues": .array(version.errors.map(\.json))])
    }
    return ModelAudit(
      schema: schema, importIssues: version.issues, details: version.details, cloudKit: cloudKit ?? version.details.usedWithCloudKit)
  }
}
