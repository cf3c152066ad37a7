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

  /// The version named `name`, or an `invalidArgument` error (about `modelVersion`)
  /// listing the versions there are.
  public func requireVersion(named name: String) throws -> ImportedModelVersion {
    let wanted = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    guard let version = versions.first(where: { $0.name == wanted }) else {
      throw ToolingError(
        .invalidArgument,
        "'\(path)' has no version '\(wanted)' (its versions: \(versions.map { "'\($0.name)'" }.joined(separator: ", ")))",
        ["versions": .array(versions.map { .string($0.name) })], argument: "modelVersion")
    }
    return version
  }

  /// The audit of the current version (or of the version named `version`), on the schema
  /// as read (also when ModelStore found errors in it: they become findings). `cloudKit`
  /// nil means the model's own `usedWithCloudKit` flag.
  public func audit(cloudKit: Bool? = nil, version name: String? = nil) throws -> ModelAudit {
    let version = try name.map(requireVersion(named:)) ?? requireCurrent()
    guard let schema = version.readSchema else {
      throw ToolingError(
        .invalidModel, "version '\(version.name)' could not be read: \(version.errors.first?.message ?? "unknown reason")",
        ["issues": .array(version.errors.map(\.json))])
    }
    return ModelAudit(
      schema: schema, importIssues: version.issues, details: version.details, cloudKit: cloudKit ?? version.details.usedWithCloudKit)
  }
}
