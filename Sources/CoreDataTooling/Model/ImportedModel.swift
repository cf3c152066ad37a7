import JSONCore
import SchemaModel

/// What `model.importXcdatamodel` reads from one `.xcdatamodel`: the ModelStore schema (nil
/// when the version could not be read or has errors) and everything found on the way.
public struct ImportedModelVersion: Sendable {
  /// The version's name: its directory name without `.xcdatamodel`.
  public var name: String
  /// The file the version was read from (`.../Name.xcdatamodel/contents`).
  public var file: String
  public var isCurrent: Bool
  /// The schema as read, even when it has errors (nil when the file could not be read at all).
  public var readSchema: Schema?
  public var issues: [ModelImportIssue] = []
  /// Why the version could not be read at all (an Xcode 3 binary model, a missing or malformed file).
  public var unsupportedReason: String?
  public var details = ModelDetails()

  public var errors: [ModelImportIssue] { issues.filter { $0.severity == .error } }
  public var warnings: [ModelImportIssue] { issues.filter { $0.severity == .warning } }
  public var hasErrors: Bool { unsupportedReason != nil || issues.contains { $0.severity == .error } }
  /// The schema, only when it is free of errors (it then passes `SchemaValidator`).
  public var schema: Schema? { hasErrors ? nil : readSchema }

  public init(name: String, file: String, isCurrent: Bool = false) {
    self.name = name
    self.file = file
    self.isCurrent = isCurrent
  }
}

/// Facts about a Core Data model that the schema has no place for but the audit and the
/// code generators use.
public struct ModelDetails: Equatable, Sendable {
  /// `userDefinedModelVersionIdentifier`, when not empty.
  public var versionIdentifier: String?
  public var usedWithCloudKit = false
  /// Named configurations and their member entities, in file order.
  public var configurations: [(name: String, entities: [String])] = []
  /// Entities whose `representedClassName` differs from their name: entity -> class.
  public var classNames: [String: String] = [:]
  /// `Entity.attribute` keys of attributes with `usesScalarValueType="YES"` (Core Data code
  /// generation then uses Swift scalars instead of `NSNumber`).
  public var scalarAttributes: Set<String> = []
  /// `Entity.attribute` keys of attributes with `allowsExternalBinaryDataStorage="YES"`.
  public var externalStorage: Set<String> = []
  /// `Entity.attribute` keys of stored derived attributes: left out of the schema, but Core
  /// Data keeps their values in a column of the store.
  public var derivedAttributes: Set<String> = []
  /// The Swift types of transformable and composite values (for the SwiftData generator).
  public var valueTypes = ModelValueTypes()

  public init() {}

  public static func == (l: ModelDetails, r: ModelDetails) -> Bool {
    l.versionIdentifier == r.versionIdentifier && l.usedWithCloudKit == r.usedWithCloudKit && l.classNames == r.classNames
      && l.scalarAttributes == r.scalarAttributes && l.externalStorage == r.externalStorage && l.valueTypes == r.valueTypes
      && l.derivedAttributes == r.derivedAttributes
      && l.configurations.map(\.name) == r.configurations.map(\.name)
      && l.configurations.map(\.entities) == r.configurations.map(\.entities)
  }
}

/// A whole import: one version for a `.xcdatamodel`, every version for a `.xcdatamodeld`.
public struct ImportedModel: Sendable {
  public enum Kind: String, Sendable { case bundle, model }

  public var path: String
  public var kind: Kind
  /// Oldest first, as `order` says (Core Data records no order).
  public var versions: [ImportedModelVersion] = []
  /// How `versions` were ordered.
  public var order = VersionOrder(rule: .names, confidence: .high, reason: "one version")
  /// Findings about the bundle itself (`.xccurrentversion`).
  public var issues: [ModelImportIssue] = []

  public init(path: String, kind: Kind) {
    self.path = path
    self.kind = kind
  }

  public var current: ImportedModelVersion? { versions.first { $0.isCurrent } }

  /// True when the current version imported without errors and the bundle has none.
  public var ok: Bool { current.map { !$0.hasErrors } ?? false && !issues.contains { $0.severity == .error } }

  /// Every error, of the bundle and of every version.
  public var allErrors: [ModelImportIssue] { issues.filter { $0.severity == .error } + versions.flatMap(\.errors) }
}
