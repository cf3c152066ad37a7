import JSONCore
import SchemaModel

/// Reads stages from their JSON form (protocol.md, "Stages and transforms"); every
/// problem is an `invalidArgument` error naming its place.
public enum MigrationStageDecoder {
  public static func decode(_ json: JSONValue, path: ErrorPlace) throws -> [MigrationStage] {
    guard case .array(let items) = json else { throw bad(path, "expected an array of stages, got \(json.typeName)") }
    return try items.enumerated().map { try stage($1, path.index($0)) }
  }

  static func bad(_ path: ErrorPlace, _ message: ErrorText) -> StoreError {
    StoreError(.invalidArgument, at: path, message)
  }

  private static func stage(_ v: JSONValue, _ path: ErrorPlace) throws -> MigrationStage {
    guard case .object(let o) = v, o.members.count == 1, let m = o.members.first, let kind = MigrationStage.Kind(rawValue: m.key) else {
      throw bad(path, "a stage is {\"lightweight\": {...}} or {\"custom\": {...}}")
    }
    let p = path.key(m.key)
    guard case .object(let body) = m.value else { throw bad(p, "expected an object") }
    let known: Set<String> = kind == .lightweight ? ["from", "to"] : ["from", "to", "transforms", "willMigrate", "didMigrate"]
    try rejectUnknown(body, known, p)
    var s = MigrationStage(kind: kind, from: try string(body, "from", p), to: try string(body, "to", p))
    guard kind == .custom else { return s }
    s.willMigrate = try bool(body, "willMigrate", p)
    s.didMigrate = try bool(body, "didMigrate", p)
    if let t = body["transforms"] {
      guard case .array(let list) = t else { throw bad(p.key("transforms"), "expected an array, got \(t.typeName)") }
      s.transforms = try list.enumerated().map { try transform($1, p.key("transforms").index($0)) }
    }
    return s
  }

  private static func transform(_ v: JSONValue, _ path: ErrorPlace) throws -> MigrationTransform {
    let kinds = ["copy", "rename", "convert", "compute", "split", "merge"]
    guard case .object(let o) = v, o.members.count == 1, let m = o.members.first, kinds.contains(m.key) else {
      throw bad(path, "a transform is an object with one member, one of: \(kinds.joined(separator: ", "))")
    }
    let p = path.key(m.key)
    guard case .object(let b) = m.value else { throw bad(p, "expected an object") }
    switch m.key {
    case "copy":
      try rejectUnknown(b, ["entity", "from", "to", "rule"], p)
      return .copy(entity: try string(b, "entity", p), from: try string(b, "from", p), to: try string(b, "to", p), rule: try rule(b, p))
    case "rename":
      try rejectUnknown(b, ["entity", "from", "to"], p)
      return .rename(entity: try string(b, "entity", p), from: try string(b, "from", p), to: try string(b, "to", p))
    case "convert":
      try rejectUnknown(b, ["entity", "attribute", "rule"], p)
      return .convert(entity: try string(b, "entity", p), attribute: try string(b, "attribute", p), rule: try rule(b, p))
    case "compute":
      try rejectUnknown(b, ["entity", "attribute", "where", "value", "key"], p)
      guard (b["value"] == nil) != (b["key"] == nil) else { throw bad(p, "give exactly one of 'value' (a literal) or 'key' (a key path)") }
      var predicate: Predicate?
      if let w = b["where"] {
        guard case .string(let text) = w else { throw bad(p.key("where"), "expected a predicate string") }
        do { predicate = try PredicateParser.parse(text) } catch let e as PredicateError {
          throw bad(p.key("where"), "\(e.message) (at offset \(e.offset))")
        }
      }
      let key = try b["key"].map { _ in try string(b, "key", p) }
      return .compute(
        entity: try string(b, "entity", p), attribute: try string(b, "attribute", p), predicate: predicate, value: b["value"], key: key)
    case "split":
      try rejectUnknown(b, ["entity", "relationship", "to", "keys"], p)
      return .split(
        entity: try string(b, "entity", p), relationship: try string(b, "relationship", p), to: try string(b, "to", p), keys: try keys(b, p)
      )
    default:
      try rejectUnknown(b, ["entity", "relationship", "keys", "removes"], p)
      return .merge(
        entity: try string(b, "entity", p), relationship: try string(b, "relationship", p), keys: try keys(b, p),
        removes: try bool(b, "removes", p))
    }
  }

  private static func rejectUnknown(_ o: JSONObject, _ known: Set<String>, _ path: ErrorPlace) throws {
    for m in o.members where !known.contains(m.key) {
      throw bad(path.key(m.key), "unknown member (expected one of: \(known.sorted().joined(separator: ", ")))")
    }
  }

  private static func string(_ o: JSONObject, _ key: String, _ path: ErrorPlace) throws -> String {
    guard let v = o[key] else { throw bad(path.key(key), "missing") }
    guard case .string(let s) = v, !s.isEmpty else { throw bad(path.key(key), "expected a non-empty string, got \(v.typeName)") }
    return s
  }

  private static func bool(_ o: JSONObject, _ key: String, _ path: ErrorPlace) throws -> Bool {
    guard let v = o[key] else { return false }
    guard case .bool(let b) = v else { throw bad(path.key(key), "expected a boolean, got \(v.typeName)") }
    return b
  }

  private static func rule(_ o: JSONObject, _ path: ErrorPlace) throws -> ValueConversion.Rule {
    guard o["rule"] != nil else { return .fail }
    let name = try string(o, "rule", path)
    guard let r = ValueConversion.Rule(rawValue: name) else {
      throw bad(
        path.key("rule"),
        "unknown rule '\(name)' (expected one of: \(ValueConversion.Rule.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    return r
  }

  private static func keys(_ o: JSONObject, _ path: ErrorPlace) throws -> [(String, String)] {
    guard case .object(let k)? = o["keys"], !k.members.isEmpty else {
      throw bad(path.key("keys"), "expected an object mapping source keys to target keys")
    }
    return try k.members.map { m in
      guard case .string(let to) = m.value, !to.isEmpty else { throw bad(path.key("keys").key(m.key), "expected the target key's name") }
      return (m.key, to)
    }
  }
}
