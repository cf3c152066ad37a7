import CoreDataTooling
import DatabaseKit
import JSONCore
import SchemaModel

/// The model a Core Data store is read with (`import.coreData` and `store.open` with
/// `model`): its path, the version to use if the caller names one, and the versions'
/// order if the caller gives it.
public struct CoreDataModelRequest: Sendable {
  public var path: String
  public var version: String?
  public var versionOrder: [String]?

  public init(path: String, version: String? = nil, versionOrder: [String]? = nil) {
    self.path = path
    self.version = version
    self.versionOrder = versionOrder
  }

  /// The request for `model`, nil without one; `version` or `versionOrder` without a
  /// model is refused (they would mean nothing).
  init?(model: String?, version: String?, versionOrder: [String]?) throws {
    guard let model else {
      if version != nil { throw StoreError(.invalidArgument, at: ErrorPlace(.modelVersion), "names a version of a model; give the model") }
      if versionOrder != nil {
        throw StoreError(.invalidArgument, at: ErrorPlace(.versionOrder), "orders the versions of a model; give the model")
      }
      return nil
    }
    self.init(path: model, version: version, versionOrder: versionOrder)
  }
}

/// Which version of a model a store was written with, and why. Core Data itself compares
/// the store's entity version hashes with each version's; ModelStore cannot compute
/// Apple's hashes, so it compares what the tables show:
/// 1. a version named by the caller (`modelVersion`) is used (it must have the store's
///    entities);
/// 2. otherwise, of the versions whose entity names are exactly the store's, the one whose
///    properties and the store's columns match best (fewest properties without a column
///    plus columns without a property); a tie goes to the version whose identifier the
///    store's metadata names (`NSStoreModelVersionIdentifiers`), then, when the tied
///    versions read a column as different types, to the one that reads every column as
///    the type its declaration says (Core Data declares INTEGER, FLOAT, DECIMAL, TIMESTAMP,
///    VARCHAR or BLOB), then to the current version, then to the newest.
/// A version that could not be used (it has errors) is listed with its reason, and named
/// in a warning when it has the store's entities, never skipped silently.
struct CoreDataModelChoice {
  var mapping: CoreDataMapping
  var version: String
  var confidence: String
  var reason: String
  /// Every version considered, oldest first: `{name, entities, missing?, unmapped?, excluded?}`.
  var candidates: [JSONValue]
  /// Notes for the caller beside the mapping's own warnings.
  var warnings: [String]

  var json: JSONValue {
    .object([
      "name": .string(version), "confidence": .string(confidence), "reason": .string(reason), "candidates": .array(candidates),
    ])
  }

  static func choose(_ request: CoreDataModelRequest, _ layout: CoreDataLayout, _ c: any DatabaseConnection) throws -> CoreDataModelChoice {
    let path = request.path
    let model: ImportedModel
    do {
      model = try CoreDataModelImporter.importModel(at: path, versionOrder: request.versionOrder)
    } catch let e as ToolingError {
      throw StoreError(e)
    }
    let stored = Set(layout.entities.map(\.name))
    if let name = request.version { return try given(name, model, stored, layout, c) }
    let readable = model.versions.filter { $0.schema != nil }
    guard !readable.isEmpty else {
      let reason = model.current?.unsupportedReason ?? model.allErrors.first?.description ?? "no version could be read"
      throw StoreError(
        .invalidModel, at: ErrorPlace(.model), "'\(path)' has no usable model version: \(reason)", ["path": .string(path)],
        placeInData: false)
    }
    let storeIdentifiers = Set(
      layout.metadata?["NSStoreModelVersionIdentifiers"].flatMap { v -> [String]? in
        guard case .array(let a) = v else { return nil }
        return a.compactMap { if case .string(let s) = $0, !s.isEmpty { return s } else { return nil } }
      } ?? [])
    var candidates: [JSONValue] = []
    var warnings: [String] = []
    var scored: [(version: ImportedModelVersion, mapping: CoreDataMapping, score: Int)] = []
    for version in model.versions {
      let entities = (version.readSchema?.entities.map(\.name)).map(Set.init)
      var o: JSONObject = ["name": .string(version.name), "entities": .bool(entities == stored)]
      if let schema = version.schema {
        if entities == stored {
          let m = try CoreDataMapping(layout: layout, model: schema, details: version.details, connection: c)
          o.append("missing", .int(Int64(m.missingColumns)))
          o.append("unmapped", .int(Int64(m.unmappedColumns)))
          scored.append((version, m, m.missingColumns + m.unmappedColumns))
        }
      } else {
        let why = version.unsupportedReason ?? version.errors.first.map { "\($0.message) [\($0.code)]" } ?? "it could not be read"
        o.append("excluded", .string(why))
        if entities == stored {
          warnings.append("model version '\(version.name)' has the store's entities but was left out: \(why)")
        }
      }
      candidates.append(.object(o))
    }
    guard let best = scored.map(\.score).min() else {
      throw StoreError(
        .invalidModel, at: ErrorPlace(.model),
        "no version of '\(path)' (\(readable.map(\.name).joined(separator: ", "))) has exactly the store's entities (\(stored.sorted().joined(separator: ", ")))"
          + (warnings.isEmpty ? "" : "; " + warnings.joined(separator: "; ")),
        ["path": .string(path), "candidates": .array(candidates)], placeInData: false)
    }
    let tied = scored.filter { $0.score == best }
    let byIdentifier = tied.filter { $0.version.details.versionIdentifier.map(storeIdentifiers.contains) == true }
    let pick: (version: ImportedModelVersion, mapping: CoreDataMapping, score: Int)
    var reason: String
    var confidence: String
    let fit =
      best == 0
      ? "every property has its column and every column its property"
      : "\(best) propert\(best == 1 ? "y or column does" : "ies or columns do") not match"
    if tied.count == 1 {
      pick = tied[0]
      let others = scored.filter { $0.score != best }.map(\.score).min()
      reason = "the only version that fits best: \(fit)" + (others.map { " (the next best misses \($0))" } ?? "")
      confidence = best == 0 ? "high" : "medium"
    } else {
      let names = tied.map { "'\($0.version.name)'" }.joined(separator: ", ")
      let sameColumns = Set(tied.map { $0.mapping.columnFingerprint }).count == 1
      // Versions that read a column as different types: those that read every column as
      // the type the table declares it with (or the fewest otherwise) stay in the running.
      let fewestMismatches = tied.map(\.mapping.declaredTypeMismatches).min()!
      let byTypes = sameColumns ? tied : tied.filter { $0.mapping.declaredTypeMismatches == fewestMismatches }
      let typesSay =
        byTypes.count == tied.count
        ? ""
        : "; "
          + (byTypes.count == 1
            ? "only '\(byTypes[0].version.name)' reads" : "\(byTypes.map { "'\($0.version.name)'" }.joined(separator: ", ")) read")
          + (fewestMismatches == 0
            ? " every column as the type the store declares it with"
            : " the fewest columns (\(fewestMismatches)) as another type than the store declares them with")
      let alike = Set(byTypes.map { $0.mapping.columnFingerprint }).count == 1
      if byIdentifier.count == 1 {
        pick = byIdentifier[0]
        reason =
          "\(tied.count) versions fit equally (\(names)): \(fit); the store's metadata names the identifier '\(pick.version.details.versionIdentifier!)'"
        confidence = best == 0 ? "high" : "medium"
      } else if byTypes.count == 1 {
        pick = byTypes[0]
        reason = "\(tied.count) versions fit equally (\(names)) but read different columns: \(fit)\(typesSay)"
        confidence = best == 0 && fewestMismatches == 0 ? "high" : "medium"
      } else {
        pick = byTypes.first { $0.version.isCurrent } ?? byTypes.last!
        let rule = pick.version.isCurrent ? "the current version" : "the newest"
        if alike {
          reason =
            sameColumns
            ? "\(tied.count) versions fit equally (\(names)) and read the same columns: \(fit); \(rule) is used"
            : "\(tied.count) versions fit equally (\(names)) but read different columns: \(fit)\(typesSay), and those read the same columns; \(rule) of them is used"
          confidence = best == 0 && fewestMismatches == 0 ? "high" : "medium"
        } else {
          reason =
            "\(tied.count) versions fit equally (\(names)) but read different columns: \(fit)\(typesSay); \(rule)\(byTypes.count == tied.count ? "" : " of those") is used"
          confidence = "low"
          warnings.append(
            "the model version is uncertain: \(reason); name the version the store was written with (modelVersion) if it is another")
        }
      }
    }
    return CoreDataModelChoice(
      mapping: pick.mapping, version: pick.version.name, confidence: confidence, reason: reason, candidates: candidates,
      warnings: warnings)
  }

  /// The version the caller named: it must be readable and have the store's entities.
  private static func given(
    _ name: String, _ model: ImportedModel, _ stored: Set<String>, _ layout: CoreDataLayout, _ c: any DatabaseConnection
  ) throws -> CoreDataModelChoice {
    let version: ImportedModelVersion
    do {
      version = try model.requireVersion(named: name)
    } catch let e as ToolingError {
      throw StoreError(e)
    }
    guard let schema = version.schema else {
      let why = version.unsupportedReason ?? version.errors.first?.description ?? "it could not be read"
      throw StoreError(.invalidModel, at: ErrorPlace(.modelVersion), "version '\(version.name)' cannot be used: \(why)")
    }
    let entities = Set(schema.entities.map(\.name))
    guard entities == stored else {
      throw StoreError(
        .invalidModel, at: ErrorPlace(.modelVersion),
        "version '\(version.name)' has the entities \(entities.sorted().joined(separator: ", ")), but the store has \(stored.sorted().joined(separator: ", "))"
      )
    }
    let m = try CoreDataMapping(layout: layout, model: schema, details: version.details, connection: c)
    return CoreDataModelChoice(
      mapping: m, version: version.name, confidence: "high", reason: "named by modelVersion",
      candidates: [
        .object([
          "name": .string(version.name), "entities": true, "missing": .int(Int64(m.missingColumns)),
          "unmapped": .int(Int64(m.unmappedColumns)),
        ])
      ],
      warnings: [])
  }
}

extension CoreDataMapping {
  /// The attribute columns whose declared type is not the one Core Data declares for the
  /// attribute the mapping reads from them (INTEGER for integers and booleans, FLOAT,
  /// DECIMAL, TIMESTAMP, VARCHAR for strings and URIs, BLOB for data and UUIDs): of two
  /// versions that fit a store equally but read a column as different types, the one the
  /// store was written with has none.
  var declaredTypeMismatches: Int {
    let table = Dictionary(entities.map { ($0.entity.name, $0.table) }, uniquingKeysWith: { first, _ in first })
    return attributes.filter { a in
      guard let t = table[a.entity], let declared = layout.tables[t]?.columns.first(where: { $0.name == a.column })?.type else {
        return false
      }
      return declared != Self.declaredType(a.type)
    }.count
  }

  /// The column type Core Data declares for an attribute ModelStore reads as `type`.
  static func declaredType(_ type: AttributeType) -> String {
    switch type {
    case .int, .int16, .int32, .int64, .bool: return "INTEGER"
    case .double, .float: return "FLOAT"
    case .decimal: return "DECIMAL"
    case .date: return "TIMESTAMP"
    case .string, .url: return "VARCHAR"
    case .data, .uuid, .json: return "BLOB"
    }
  }

  /// The columns the mapping reads and what it reads them as: two versions with the same
  /// fingerprint read a store alike.
  var columnFingerprint: [String] {
    (attributes.map { "\($0.entity).\($0.name)=\($0.column):\($0.type.rawValue)" }
      + toOnes.map { "\($0.entity).\($0.name)=\($0.column)->\($0.destination)" }
      + joins.flatMap { j in j.sides.map { "\(j.table):\($0.owner).\($0.name)=\($0.column)" } }).sorted()
  }
}
