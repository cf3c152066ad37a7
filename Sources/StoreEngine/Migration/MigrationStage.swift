import JSONCore
import SchemaModel

/// One step of a migration plan between two consecutive schema versions, as SwiftData's
/// `MigrationStage`: lightweight (inferred from the two schemas), or custom, with
/// declarative transforms and client hooks before and after the schema change.
public struct MigrationStage {
  public enum Kind: String, CaseIterable { case lightweight, custom }
  public var kind: Kind
  public var from: String
  public var to: String
  public var transforms: [MigrationTransform] = []
  public var willMigrate = false
  public var didMigrate = false

  public init(kind: Kind, from: String, to: String) {
    self.kind = kind
    self.from = from
    self.to = to
  }

  public var json: JSONValue {
    var o: JSONObject = ["from": .string(from), "to": .string(to)]
    if kind == .custom {
      o.append("transforms", .int(Int64(transforms.count)))
      o.append("willMigrate", .bool(willMigrate))
      o.append("didMigrate", .bool(didMigrate))
    }
    return .object([kind.rawValue: .object(o)])
  }
}

/// A declarative data change a custom stage makes between adding the new schema's
/// structure and removing the old one's, so it can read values the stage removes.
public enum MigrationTransform {
  /// Copies each object's stored `from` column (a property of either version) into `to`,
  /// converting between their types with `rule` for values without an exact form.
  case copy(entity: String, from: String, to: String, rule: ValueConversion.Rule)
  /// As copy; the `from` column's values then count as moved, not lost, when it goes.
  case rename(entity: String, from: String, to: String)
  /// How values of a retyped attribute that do not convert exactly are converted.
  case convert(entity: String, attribute: String, rule: ValueConversion.Rule)
  /// Sets `attribute` of the objects matching `predicate` (all when nil) to a literal, or
  /// to the value at `key` (an attribute of the object or of a to-one destination).
  case compute(entity: String, attribute: String, predicate: Predicate?, value: JSONValue?, key: String?)
  /// Moves `keys` (old attribute → attribute of `to`) of each `entity` object into a new
  /// `to` object linked through the to-one `relationship`.
  case split(entity: String, relationship: String, to: String, keys: [(String, String)])
  /// Copies `keys` (attribute of the destination → attribute of `entity`) from the object
  /// the to-one `relationship` reaches; with `removes`, that entity's objects count as
  /// merged, not lost, when the new schema drops it.
  case merge(entity: String, relationship: String, keys: [(String, String)], removes: Bool)

  public var entity: String {
    switch self {
    case .copy(let e, _, _, _), .rename(let e, _, _), .convert(let e, _, _), .compute(let e, _, _, _, _), .split(let e, _, _, _),
      .merge(let e, _, _, _):
      return e
    }
  }
}
