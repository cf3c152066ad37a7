import CoreDataTooling
import Diagrams
import JSONCore
import SchemaModel
import StoreEngine

/// The versions a diagram can draw, one of them current: a model file's (each version of a
/// bundle), a store's (every schema it has held) or schema documents' (a migration plan's
/// chain). `model.diagram` and `modelstore diagram` pick from them by name.
public struct ModelVersions {
  public struct Version {
    public var name: String
    /// Nil when the version has errors (`issues`).
    public var schema: Schema?
    public var issues: [JSONValue]
  }

  public var versions: [Version]
  public var current: Int?
  /// What holds the versions, for messages: `the store`, `the model`, a file name.
  public var origin: String

  public init(_ versions: [Version], current: Int?, origin: String) {
    self.versions = versions
    self.current = current
    self.origin = origin
  }

  /// Every schema `store` has held, named by their `version`; its current schema is current.
  public static func store(_ store: Store, origin: String = "the store") throws -> ModelVersions {
    // The schema and the versions held as one snapshot has them.
    let (schema, versions) = try store.readingOneSnapshot { (store.schema, store.schema == nil ? [] : try store.heldSchemas()) }
    guard let now = schema else {
      throw StoreError(.noSchema, "\(origin) has no schema yet: there is nothing to draw")
    }
    var held = versions
    // A Core Data store opened in place has its model but no versions table rows.
    if !held.contains(where: { $0.versionHash == now.versionHash }) { held.append(now) }
    let current = held.lastIndex { $0.versionHash == now.versionHash }
    return ModelVersions(held.map { Version(name: $0.version, schema: $0, issues: []) }, current: current, origin: origin)
  }

  /// The versions of a model file (or of a schema given as one, `ImportedModel.fromSchema`).
  public static func model(_ model: ImportedModel, origin: String = "the model") -> ModelVersions {
    ModelVersions(
      model.versions.map { Version(name: $0.name, schema: $0.schema, issues: $0.issues.map(\.json)) },
      current: model.versions.firstIndex { $0.isCurrent }, origin: origin)
  }

  /// Schema documents, oldest first, named by their `version`; the last is current.
  public static func schemas(_ list: [Schema], origin: String) -> ModelVersions {
    ModelVersions(
      list.map { Version(name: $0.version, schema: $0, issues: []) }, current: list.isEmpty ? nil : list.count - 1, origin: origin)
  }

  /// The version named `name` (the last of that name), or the current one.
  func pick(_ name: String?, at place: ErrorPlace) throws -> (name: String, schema: Schema) {
    let index: Int
    if let name {
      guard let i = versions.lastIndex(where: { $0.name == name }) else {
        let names = versions.map { "'\($0.name)'" }.joined(separator: ", ")
        throw StoreError(.invalidArgument, at: place, "\(origin) has no version '\(name)' (its versions: \(names))")
      }
      index = i
    } else {
      guard let current else { throw StoreError(.invalidModel, "\(origin) has no current version") }
      index = current
    }
    let v = versions[index]
    guard let schema = v.schema else {
      let first = v.issues.first?["message"]?.stringValue ?? "it could not be read"
      throw StoreError(
        .invalidModel, "version '\(v.name)' of \(origin) has \(v.issues.count) problem(s); first: \(first)", ["issues": .array(v.issues)])
    }
    return (v.name, schema)
  }
}

/// Draws what `model.diagram` and `modelstore diagram` ask for: one version, or two side by
/// side (a migration), in a format.
public enum ModelDiagrams {
  /// A version named in `versions`, or a schema given whole.
  public enum VersionRef {
    case name(String)
    case schema(JSONValue)
  }

  public enum Kind: String, CaseIterable, Sendable { case model, migration }

  public struct Drawing {
    public var kind: Kind
    /// The version drawn (`model`), or the two (`migration`).
    public var version: String?
    public var from: String?
    public var to: String?
    public var bytes: [UInt8]
    /// With `measureOn`: the stored data the migration drops, as the dry run found it.
    public var dataLoss: [JSONValue]?
  }

  /// One version (`version`, default the current one) or, when `from` or `to` is given, a
  /// migration between them (each defaulting to the current version). `versions` is read
  /// only when a version is named or defaulted (two schemas given whole need no store).
  /// `measureOn` runs the migration as a dry run on that store, whose schema must be
  /// `from`, and marks the data it drops; `render` writes the places of its blockers.
  public static func draw(
    _ versions: () throws -> ModelVersions, format: DiagramFormat, version: String? = nil, from: VersionRef? = nil,
    to: VersionRef? = nil, measureOn store: Store? = nil, render: (ErrorPlace) -> String = \.description
  ) throws -> Drawing {
    guard from != nil || to != nil else {
      let (name, schema) = try versions().pick(version, at: ErrorPlace(.version))
      return Drawing(kind: .model, version: name, bytes: try format.render(Diagram(schema: schema, name: name)))
    }
    let old = try resolve(from, versions, ErrorPlace(.from))
    let new = try resolve(to, versions, ErrorPlace(.to))
    var measured: [Diagram.MeasuredLoss]?
    var blockers: [String] = []
    var dataLoss: [JSONValue]?
    if let store {
      guard store.schema?.versionHash == old.schema.versionHash else {
        throw StoreError(
          .invalidArgument, at: ErrorPlace(.from),
          "the store is at version '\(store.schema?.version ?? "none")', not at '\(old.name)': a measured migration starts from the store's schema"
        )
      }
      // Planned as allowed to drop data, so that every loss is measured; a plain
      // migration.apply would refuse them, which the notes say.
      let planned = try store.migrate(
        chain: [old.schema, new.schema], stages: [], options: MigrationOptions(allowDataLoss: true, dryRun: true))
      let report = planned.stages.first?.report ?? MigrationReport()
      dataLoss = report.dataLoss
      measured = report.dataLoss.map { loss in
        Diagram.MeasuredLoss(
          entity: loss["entity"]?.stringValue ?? "", property: loss["attribute"]?.stringValue ?? loss["relationship"]?.stringValue,
          message: loss["message"]?.stringValue ?? "")
      }
      blockers = report.blockers(rendering: render).compactMap { $0["message"]?.stringValue }
      if !report.dataLoss.isEmpty {
        blockers.insert("the migration drops stored data" + MigrationReport.dataLossAdvice.rendered(render), at: 0)
      }
    }
    let diagram = Diagram(
      migrationFrom: old.schema, to: new.schema, names: (old.name, new.name), measured: measured, blockers: blockers)
    return Drawing(kind: .migration, from: old.name, to: new.name, bytes: try format.render(diagram), dataLoss: dataLoss)
  }

  private static func resolve(_ ref: VersionRef?, _ versions: () throws -> ModelVersions, _ place: ErrorPlace) throws -> (
    name: String, schema: Schema
  ) {
    switch ref {
    case .name(let name)?: return try versions().pick(name, at: place)
    case .schema(let json)?:
      let schema = try Store.decodeSchema(json, path: place)
      return (schema.version, schema)
    case nil: return try versions().pick(nil, at: place)
    }
  }
}
