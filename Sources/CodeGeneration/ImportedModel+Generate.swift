import CoreDataTooling
import JSONCore
import SchemaModel

/// Code generation over an import: the one code path behind `model.generate` and
/// `modelstore xcdatamodel --generate` (the audit over an import is in CoreDataTooling).
extension ImportedModel {
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
      throw ToolingError(
        .invalidModel, "version '\(current.name)' has \(current.errors.count) error(s); first: \(current.errors.first?.description ?? "")",
        ["issues": .array(current.errors.map(\.json))])
    }
    let base = baseName ?? (kind == .bundle ? Self.bundleBaseName(path) : "Model")
    guard target == .swiftdata && kind == .bundle && versions.count > 1 else {
      let only = CodeGenerator.Version(name: current.name, schema: schema, details: current.details, issues: current.issues)
      return (CodeGenerator.generate(target, versions: [only], baseName: base), [])
    }
    var chain: [CodeGenerator.Version] = []
    var skipped: [SkippedVersion] = []
    var afterCurrent = false
    for v in versions {
      if afterCurrent {
        skipped.append(.init(name: v.name, reason: "it comes after the current version '\(current.name)' in the versions' order"))
      } else if let s = v.schema {
        chain.append(.init(name: v.name, schema: s, details: v.details, issues: v.issues))
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
