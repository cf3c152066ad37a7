import JSONCore
import SchemaModel

/// Audit and code generation over an import: the one code path behind `model.audit`,
/// `model.generate` and `modelstore xcdatamodel --audit / --generate`.
extension ImportedModel {
  /// The current version, or an `invalidModel` error naming what went wrong.
  func requireCurrent() throws -> ImportedModelVersion {
    guard let current else {
      let errors = issues.filter { $0.severity == .error }
      throw StoreError(
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
      throw StoreError(
        .invalidModel, "version '\(version.name)' could not be read: \(version.errors.first?.message ?? "unknown reason")",
        ["issues": .array(version.errors.map(\.json))])
    }
    return ModelAudit(
      schema: schema, importIssues: version.issues, details: version.details, cloudKit: cloudKit ?? version.details.usedWithCloudKit)
  }

  /// A version left out of a versioned generation, and why.
  public struct SkippedVersion: Sendable {
    public var name: String
    public var reason: String
    public var json: JSONValue { .object(["name": .string(name), "reason": .string(reason)]) }
  }

  /// Code for `target`. For the `swiftdata` target a bundle gives its versions up to the
  /// current one (natural name order) that are free of errors: versioned schemas and a
  /// migration plan; the versions left out are listed. The other targets use the current
  /// version, which must be free of errors.
  public func generate(_ target: CodeGenerator.Target, baseName: String? = nil) throws -> (
    files: [CodeGenerator.File], skipped: [SkippedVersion]
  ) {
    let current = try requireCurrent()
    guard let schema = current.schema else {
      throw StoreError(
        .invalidModel, "version '\(current.name)' has \(current.errors.count) error(s); first: \(current.errors.first?.description ?? "")",
        ["issues": .array(current.errors.map(\.json))])
    }
    let base = baseName ?? (kind == .bundle ? Self.bundleBaseName(path) : "Model")
    guard target == .swiftdata && kind == .bundle && versions.count > 1 else {
      let only = CodeGenerator.Version(name: current.name, schema: schema, details: current.details)
      return (CodeGenerator.generate(target, versions: [only], baseName: base), [])
    }
    var chain: [CodeGenerator.Version] = []
    var skipped: [SkippedVersion] = []
    var afterCurrent = false
    for v in versions {
      if afterCurrent {
        skipped.append(.init(name: v.name, reason: "it comes after the current version '\(current.name)' in name order"))
      } else if let s = v.schema {
        chain.append(.init(name: v.name, schema: s, details: v.details))
      } else {
        skipped.append(.init(name: v.name, reason: v.errors.first.map { "it has errors; first: \($0.message)" } ?? "it could not be read"))
      }
      if v.isCurrent { afterCurrent = true }
    }
    return (CodeGenerator.generate(target, versions: chain, baseName: base), skipped)
  }

  /// "Model" for ".../Model.xcdatamodeld".
  static func bundleBaseName(_ path: String) -> String {
    let base = ModelFiles.baseName(path)
    return base.hasSuffix(".xcdatamodeld") ? String(base.dropLast(".xcdatamodeld".count)) : base
  }
}
