import CoreDataTooling
import JSONCore
import SchemaModel

/// Source code generated from a schema: `model.generate`'s result. Output is deterministic
/// (same schema, same bytes) so it can be checked in and diffed.
public enum CodeGenerator {
  public enum Target: String, CaseIterable, Sendable {
    /// `@Model` classes (one file per entity), or `VersionedSchema` enums and a
    /// `SchemaMigrationPlan` when given several versions.
    case swiftdata
    /// Manual `NSManagedObject` subclasses with `@NSManaged` properties.
    case coredata
    /// TypeScript types of the objects the clients send and receive.
    case typescript
    /// Python `TypedDict`s of the same.
    case python
  }

  public struct File: Equatable, Sendable {
    public var name: String
    public var text: String
    public init(name: String, text: String) {
      self.name = name
      self.text = text
    }
    public var json: JSONValue { .object(["name": .string(name), "text": .string(text)]) }
  }

  /// One named schema version (oldest first when several).
  public struct Version: Sendable {
    public var name: String
    public var schema: Schema
    /// What the model file adds (class names, scalar and external-storage attributes).
    public var details: ModelDetails
    /// The import's findings: what SwiftData cannot express becomes a comment at its place.
    public var issues: [ModelImportIssue]
    public init(name: String, schema: Schema, details: ModelDetails = ModelDetails(), issues: [ModelImportIssue] = []) {
      self.name = name
      self.schema = schema
      self.details = details
      self.issues = issues
    }
  }

  /// Generates `target` for `versions` (the last is the one the single-version targets use).
  /// `baseName` names the versioned schema enums and the migration plan (`<Base>SchemaV1`).
  public static func generate(_ target: Target, versions: [Version], baseName: String = "Model") -> [File] {
    guard let latest = versions.last else { return [] }
    switch target {
    case .swiftdata:
      if versions.count > 1 { return SwiftDataGenerator.versioned(versions, baseName: SwiftNames.typeName(baseName)) }
      return SwiftDataGenerator(schema: latest.schema, details: latest.details, issues: latest.issues).files()
    case .coredata: return CoreDataClassGenerator(schema: latest.schema, details: latest.details).files()
    case .typescript: return [TypeScriptGenerator.file(latest.schema)]
    case .python: return [PythonGenerator.file(latest.schema)]
    }
  }
}

/// What the Swift generators read: the schema (it has passed `SchemaValidator`), what the
/// model file adds, and the inheritance graph.
struct GeneratorSource {
  let schema: Schema
  let details: ModelDetails
  let graph: ModelGraph

  init(schema: Schema, details: ModelDetails) {
    self.schema = schema
    self.details = details
    graph = ModelGraph(schema)
  }
}
