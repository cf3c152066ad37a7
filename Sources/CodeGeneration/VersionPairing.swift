import SchemaModel

/// Which entity and property of the previous model version each one of a version continues,
/// paired the way Core Data pairs them: by renaming identifier (`elementID`), or by name when an
/// element has none, on both sides. In a schema read from a model file `originalName` holds that
/// identifier; SwiftData's `originalName:` instead wants the element's name in the previous
/// version. So for a chain `a` → `b` (identifier `a`) → `c` (identifier `a`), the last version's
/// `c` continues `b` and SwiftData's `originalName` is `"b"`.
///
/// The pairing, in three passes so an exact match always wins: equal identifiers; then equal
/// names (an identifier dropped in a later version); then the new identifier equal to an old
/// name (a schema written for SwiftData, whose `originalName` is the previous name). Each old
/// element continues in at most one new one.
///
/// This is the code generator's own pairing, kept to one function so that it can give way to a
/// shared one in SchemaModel that `model.diff` also uses.
struct VersionPairing {
  /// Entity name in the new version → its name in the previous one.
  private(set) var entities: [String: String] = [:]
  /// `Entity.property` (new names) → the property's name in the previous version.
  private(set) var properties: [String: String] = [:]

  init(previous: Schema, current: Schema) {
    entities = Self.pair(previous.entities.map { ($0.name, $0.originalName) }, current.entities.map { ($0.name, $0.originalName) })
    for e in current.entities {
      guard let was = entities[e.name].flatMap({ previous.entity(named: $0) }) else { continue }
      let attributes = Self.pair(was.attributes.map { ($0.name, $0.originalName) }, e.attributes.map { ($0.name, $0.originalName) })
      let relationships = Self.pair(
        was.relationships.map { ($0.name, $0.originalName) }, e.relationships.map { ($0.name, $0.originalName) })
      for (new, old) in attributes.merging(relationships, uniquingKeysWith: { a, _ in a }) { properties["\(e.name).\(new)"] = old }
    }
  }

  /// New name → old name for elements given as (name, renaming identifier).
  static func pair(_ old: [(String, String?)], _ new: [(String, String?)]) -> [String: String] {
    var out: [String: String] = [:]
    var taken: Set<String> = []
    let passes: [((String, String?), (String, String?)) -> Bool] = [
      { o, n in (o.1 ?? o.0) == (n.1 ?? n.0) },
      { o, n in o.0 == n.0 },
      { o, n in n.1 != nil && o.0 == n.1 },
    ]
    for matches in passes {
      for n in new where out[n.0] == nil {
        if let o = old.first(where: { !taken.contains($0.0) && matches($0, n) }) {
          out[n.0] = o.0
          taken.insert(o.0)
        }
      }
    }
    return out
  }

  /// `schema` in SwiftData's terms: every `originalName` is the element's name in the previous
  /// version when it differs there, else nil (a new element, or one that kept its name).
  func swiftDataSchema(_ schema: Schema) -> Schema {
    Self.renaming(schema, entity: { entities[$0] }, property: { properties["\($0).\($1)"] })
  }

  /// `schema` with no `originalName`: the old side of a step, whose elements go by their names.
  static func withoutRenames(_ schema: Schema) -> Schema { renaming(schema, entity: { _ in nil }, property: { _, _ in nil }) }

  /// `schema` with each `originalName` set to `entity(name)` / `property(entity, name)` unless
  /// that is nil or the name itself.
  static func renaming(_ schema: Schema, entity: (String) -> String?, property: (String, String) -> String?) -> Schema {
    func original(_ old: String?, _ name: String) -> String? { old == name ? nil : old }
    var s = schema
    s.entities = schema.entities.map { e in
      var r = e
      r.originalName = original(entity(e.name), e.name)
      for k in r.attributes.indices {
        r.attributes[k].originalName = original(property(e.name, e.attributes[k].name), e.attributes[k].name)
      }
      for k in r.relationships.indices {
        r.relationships[k].originalName = original(property(e.name, e.relationships[k].name), e.relationships[k].name)
      }
      return r
    }
    return s
  }
}
