import JSONCore

/// Reads a schema from its JSON form. Shape problems (wrong types, unknown members,
/// unknown attribute types) become issues rather than thrown errors, so `model.validate`
/// can report every problem at once; the decoded schema skips what it could not read.
public struct SchemaDecoder {
  public private(set) var issues: [SchemaIssue] = []
  /// Where each decoded entry stood in the submitted JSON (entries that could not be
  /// read are skipped, so positions can differ); the validator's paths use it.
  public private(set) var sourceMap = SourceMap()

  public struct SourceMap: Equatable, Sendable {
    public var entities: [Int] = []
    public var attributes: [[Int]] = []
    public var relationships: [[Int]] = []
    public init() {}
  }

  public init() {}

  public static func decode(_ json: JSONValue, path: String = "schema") -> (Schema, [SchemaIssue]) {
    let (s, issues, _) = decodeWithSourceMap(json, path: path)
    return (s, issues)
  }

  public static func decodeWithSourceMap(_ json: JSONValue, path: String = "schema") -> (Schema, [SchemaIssue], SourceMap) {
    var d = SchemaDecoder()
    let s = d.schema(json, path: path)
    return (s, d.issues, d.sourceMap)
  }

  private mutating func issue(_ code: String, _ message: String, _ path: String, entity: String? = nil, property: String? = nil) {
    issues.append(SchemaIssue(.error, code, message, path: path, entity: entity, property: property))
  }

  private mutating func object(_ v: JSONValue, _ path: String) -> JSONObject? {
    guard case .object(let o) = v else {
      issue("wrongType", "expected an object, got \(v.typeName)", path)
      return nil
    }
    return o
  }

  private mutating func checkKeys(_ o: JSONObject, _ known: Set<String>, _ path: String, entity: String?, property: String? = nil) {
    for m in o.members where !known.contains(m.key) {
      issue(
        "unknownMember", "unknown member '\(m.key)' (expected one of: \(known.sorted().joined(separator: ", ")))",
        "\(path).\(m.key)", entity: entity, property: property)
    }
  }

  private mutating func string(
    _ o: JSONObject, _ key: String, _ path: String, required: Bool, entity: String? = nil, property: String? = nil
  ) -> String? {
    guard let v = o[key], !v.isNull else {
      if required { issue("missingMember", "missing required member '\(key)'", "\(path).\(key)", entity: entity, property: property) }
      return nil
    }
    guard case .string(let s) = v else {
      issue("wrongType", "'\(key)' must be a string, got \(v.typeName)", "\(path).\(key)", entity: entity, property: property)
      return nil
    }
    return s
  }

  /// `renamingIdentifier`: any non-empty string (Core Data's identifiers are free text).
  private mutating func identifier(_ o: JSONObject, _ path: String, entity: String, property: String? = nil) -> String? {
    guard let s = string(o, "renamingIdentifier", path, required: false, entity: entity, property: property) else { return nil }
    if s.isEmpty {
      issue(
        "wrongType", "'renamingIdentifier' must be a non-empty string", "\(path).renamingIdentifier", entity: entity, property: property)
      return nil
    }
    return s
  }

  private mutating func bool(_ o: JSONObject, _ key: String, _ path: String, entity: String?, property: String? = nil) -> Bool? {
    guard let v = o[key], !v.isNull else { return nil }
    guard case .bool(let b) = v else {
      issue("wrongType", "'\(key)' must be a boolean, got \(v.typeName)", "\(path).\(key)", entity: entity, property: property)
      return nil
    }
    return b
  }

  private mutating func count(_ o: JSONObject, _ key: String, _ path: String, entity: String?, property: String?) -> Int? {
    guard let v = o[key], !v.isNull else { return nil }
    guard case .int(let i) = v, i >= 0, i <= Int64(Int32.max) else {
      issue("wrongType", "'\(key)' must be a non-negative integer", "\(path).\(key)", entity: entity, property: property)
      return nil
    }
    return Int(i)
  }

  mutating func schema(_ json: JSONValue, path: String) -> Schema {
    guard let o = object(json, path) else { return Schema() }
    checkKeys(o, ["version", "entities"], path, entity: nil)
    var schema = Schema()
    if let v = o["version"] {
      switch v {
      case .string(let s) where !s.isEmpty: schema.version = s
      case .int(let i): schema.version = String(i)
      default: issue("wrongType", "'version' must be a non-empty string", "\(path).version")
      }
    }
    guard let ev = o["entities"] else {
      issue("missingMember", "missing required member 'entities'", "\(path).entities")
      return schema
    }
    guard case .array(let list) = ev else {
      issue("wrongType", "'entities' must be an array, got \(ev.typeName)", "\(path).entities")
      return schema
    }
    for (i, e) in list.enumerated() {
      var attrs: [Int] = []
      var rels: [Int] = []
      if let entity = entity(e, path: "\(path).entities[\(i)]", attributeSources: &attrs, relationshipSources: &rels) {
        schema.entities.append(entity)
        sourceMap.entities.append(i)
        sourceMap.attributes.append(attrs)
        sourceMap.relationships.append(rels)
      }
    }
    return schema
  }

  private mutating func entity(_ json: JSONValue, path: String, attributeSources: inout [Int], relationshipSources: inout [Int]) -> Entity?
  {
    guard let o = object(json, path) else { return nil }
    guard let name = string(o, "name", path, required: true) else { return nil }
    checkKeys(
      o,
      [
        "name", "parent", "abstract", "attributes", "relationships", "indexes", "uniqueness", "originalName", "renamingIdentifier",
      ], path,
      entity: name)
    var e = Entity(name: name)
    e.parent = string(o, "parent", path, required: false, entity: name)
    e.abstract = bool(o, "abstract", path, entity: name) ?? false
    e.originalName = string(o, "originalName", path, required: false, entity: name)
    e.renamingIdentifier = identifier(o, path, entity: name)
    for (i, a) in list(o, "attributes", path, entity: name).enumerated() {
      if let attr = attribute(a, path: "\(path).attributes[\(i)]", entity: name) {
        e.attributes.append(attr)
        attributeSources.append(i)
      }
    }
    for (i, r) in list(o, "relationships", path, entity: name).enumerated() {
      if let rel = relationship(r, path: "\(path).relationships[\(i)]", entity: name) {
        e.relationships.append(rel)
        relationshipSources.append(i)
      }
    }
    e.indexes = keyLists(o, "indexes", path, entity: name)
    e.uniqueness = keyLists(o, "uniqueness", path, entity: name)
    return e
  }

  private mutating func list(_ o: JSONObject, _ key: String, _ path: String, entity: String) -> [JSONValue] {
    guard let v = o[key], !v.isNull else { return [] }
    guard case .array(let a) = v else {
      issue("wrongType", "'\(key)' must be an array, got \(v.typeName)", "\(path).\(key)", entity: entity)
      return []
    }
    return a
  }

  /// `[["a"], ["b", "c"]]`; a bare string stands for a one-key list.
  private mutating func keyLists(_ o: JSONObject, _ key: String, _ path: String, entity: String) -> [[String]] {
    var out: [[String]] = []
    for (i, v) in list(o, key, path, entity: entity).enumerated() {
      let p = "\(path).\(key)[\(i)]"
      switch v {
      case .string(let s): out.append([s])
      case .array(let keys):
        var names: [String] = []
        for (j, k) in keys.enumerated() {
          if case .string(let s) = k {
            names.append(s)
          } else {
            issue("wrongType", "key names must be strings", "\(p)[\(j)]", entity: entity)
          }
        }
        if names.isEmpty { issue("emptyKeyList", "a key list needs at least one key", p, entity: entity) } else { out.append(names) }
      default: issue("wrongType", "expected an array of key names, got \(v.typeName)", p, entity: entity)
      }
    }
    return out
  }

  private mutating func attribute(_ json: JSONValue, path: String, entity: String) -> Attribute? {
    guard let o = object(json, path) else { return nil }
    guard let name = string(o, "name", path, required: true, entity: entity) else { return nil }
    checkKeys(
      o, ["name", "type", "optional", "default", "unique", "indexed", "transient", "originalName", "renamingIdentifier"], path,
      entity: entity, property: name)
    guard let typeName = string(o, "type", path, required: true, entity: entity, property: name) else { return nil }
    guard let type = AttributeType(rawValue: typeName) else {
      issue(
        "unknownType",
        "unknown attribute type '\(typeName)' (expected one of: \(AttributeType.allCases.map(\.rawValue).joined(separator: " ")))",
        "\(path).type", entity: entity, property: name)
      return nil
    }
    var a = Attribute(name: name, type: type)
    a.optional = bool(o, "optional", path, entity: entity, property: name) ?? false
    a.unique = bool(o, "unique", path, entity: entity, property: name) ?? false
    a.indexed = bool(o, "indexed", path, entity: entity, property: name) ?? false
    a.transient = bool(o, "transient", path, entity: entity, property: name) ?? false
    a.originalName = string(o, "originalName", path, required: false, entity: entity, property: name)
    a.renamingIdentifier = identifier(o, path, entity: entity, property: name)
    if let d = o["default"], !d.isNull {
      if case .object(let g) = d {
        if g.count == 1, case .string(let gen)? = g["generate"], let generator = DefaultValue.Generator(rawValue: gen) {
          a.defaultValue = .generate(generator)
        } else if type == .json {
          a.defaultValue = .literal(d)
        } else {
          issue(
            "badDefault", "a generated default is {\"generate\": \"uuid\"} or {\"generate\": \"now\"}",
            "\(path).default", entity: entity, property: name)
        }
      } else {
        a.defaultValue = .literal(d)
      }
    }
    return a
  }

  private mutating func relationship(_ json: JSONValue, path: String, entity: String) -> Relationship? {
    guard let o = object(json, path) else { return nil }
    guard let name = string(o, "name", path, required: true, entity: entity) else { return nil }
    checkKeys(
      o,
      [
        "name", "destination", "inverse", "toMany", "optional", "ordered", "deleteRule", "min", "max", "originalName",
        "renamingIdentifier",
      ],
      path, entity: entity, property: name)
    guard let destination = string(o, "destination", path, required: true, entity: entity, property: name) else {
      return nil
    }
    var r = Relationship(name: name, destination: destination)
    r.inverse = string(o, "inverse", path, required: false, entity: entity, property: name)
    r.toMany = bool(o, "toMany", path, entity: entity, property: name) ?? false
    r.optional = bool(o, "optional", path, entity: entity, property: name) ?? true
    r.ordered = bool(o, "ordered", path, entity: entity, property: name) ?? false
    r.originalName = string(o, "originalName", path, required: false, entity: entity, property: name)
    r.renamingIdentifier = identifier(o, path, entity: entity, property: name)
    if let rule = string(o, "deleteRule", path, required: false, entity: entity, property: name) {
      if let dr = DeleteRule(rawValue: rule) {
        r.deleteRule = dr
      } else {
        issue(
          "unknownDeleteRule", "unknown delete rule '\(rule)' (expected nullify, cascade, deny or noAction)",
          "\(path).deleteRule", entity: entity, property: name)
      }
    }
    r.minCount = count(o, "min", path, entity: entity, property: name)
    r.maxCount = count(o, "max", path, entity: entity, property: name)
    return r
  }
}
