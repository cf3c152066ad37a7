import JSONCore
import SchemaModel

/// Why an import file's schema does not fit the store's. Two schemas fit when their
/// version hashes are equal: the same entities, attributes (type, optional, unique,
/// transient), relationships and uniqueness lists, so every stored value means the same.
/// Labels, defaults, indexes and delete rules may differ; the store's schema governs.
enum SchemaComparison {
  /// One `{entity, message, attribute?|relationship?}` per difference; empty when they fit.
  static func reasons(file: Schema, store: Schema) -> [JSONValue] {
    guard file.versionHash != store.versionHash else { return [] }
    var out: [JSONValue] = []
    func add(_ entity: String, _ message: String, _ key: String? = nil, _ name: String? = nil) {
      var o: JSONObject = ["entity": .string(entity), "message": .string(message)]
      if let key, let name { o.append(key, .string(name)) }
      out.append(.object(o))
    }
    let fileEntities = Dictionary(uniqueKeysWithValues: file.entities.map { ($0.name, $0) })
    let storeNames = Set(store.entities.map(\.name))
    for s in store.entities {
      guard let f = fileEntities[s.name] else {
        add(s.name, "entity '\(s.name)' is in the store's schema but not in the file's")
        continue
      }
      guard f.versionHash != s.versionHash else { continue }
      if f.parent != s.parent || f.abstract != s.abstract {
        add(
          s.name,
          "'\(s.name)' has parent \(f.parent ?? "none")\(f.abstract ? " (abstract)" : "") in the file but \(s.parent ?? "none")\(s.abstract ? " (abstract)" : "") in the store"
        )
      }
      compare(f.attributes, s.attributes, describe, "attribute", s.name, &out)
      compare(f.relationships, s.relationships, describe, "relationship", s.name, &out)
      if f.uniqueness != s.uniqueness {
        add(s.name, "the uniqueness constraints of '\(s.name)' differ: \(f.uniqueness) in the file, \(s.uniqueness) in the store")
      }
    }
    for f in file.entities where !storeNames.contains(f.name) {
      add(f.name, "entity '\(f.name)' is in the file's schema but not in the store's")
    }
    return out
  }

  private static func compare<T>(
    _ file: [T], _ store: [T], _ describe: (T) -> (name: String, text: String), _ kind: String, _ entity: String, _ out: inout [JSONValue]
  ) {
    let f = Dictionary(uniqueKeysWithValues: file.map { (describe($0).name, describe($0).text) })
    let s = Dictionary(uniqueKeysWithValues: store.map { (describe($0).name, describe($0).text) })
    func add(_ name: String, _ message: String) {
      var o: JSONObject = ["entity": .string(entity), "message": .string(message)]
      o.append(kind, .string(name))
      out.append(.object(o))
    }
    for x in store.map({ describe($0) }) {
      guard let there = f[x.name] else {
        add(x.name, "\(kind) '\(entity).\(x.name)' is in the store but not in the file")
        continue
      }
      if there != x.text { add(x.name, "\(kind) '\(entity).\(x.name)' is \(there) in the file but \(x.text) in the store") }
    }
    for x in file.map({ describe($0) }) where s[x.name] == nil {
      add(x.name, "\(kind) '\(entity).\(x.name)' is in the file but not in the store")
    }
  }

  private static func describe(_ a: Attribute) -> (name: String, text: String) {
    var parts = [a.type.rawValue, a.optional ? "optional" : "required"]
    if a.unique { parts.append("unique") }
    if a.transient { parts.append("transient") }
    return (a.name, parts.joined(separator: " "))
  }

  private static func describe(_ r: Relationship) -> (name: String, text: String) {
    var parts = [r.toMany ? "to-many" : "to-one", "→ \(r.destination)"]
    if r.ordered { parts.append("ordered") }
    parts.append("inverse \(r.inverse ?? "none")")
    return (r.name, parts.joined(separator: " "))
  }
}
