/// SwiftData's `originalName` (the name in the previous version) from Core Data's renaming
/// identifiers, which name no version: what the `.xcdatamodel` import gives each version.
extension Schema {
  /// This schema with every element's `originalName` set to its name in `previous`, as
  /// `SchemaMapping` pairs them (renaming identifiers on both sides), where that name
  /// differs, and cleared where it does not or where the element is new. Without a
  /// previous version each element's `renamingIdentifier` stands for its previous name
  /// (what Xcode asks one to write there) when it is an identifier.
  ///
  /// A chain `a` (v18) → `b` with identifier `a` (v19) → `c` with identifier `a` (v20)
  /// gives `c` the original name `b` in v20 and `b` the original name `a` in v19.
  public func withOriginalNames(from previous: Schema?) -> Schema {
    var s = self
    guard let previous else {
      // Only an identifier can be a name (Core Data's identifiers are free text).
      func name(_ id: String?) -> String? { id.flatMap { Names.isIdentifier($0) ? $0 : nil } }
      for i in s.entities.indices {
        s.entities[i].originalName = name(s.entities[i].renamingIdentifier)
        for j in s.entities[i].attributes.indices {
          s.entities[i].attributes[j].originalName = name(s.entities[i].attributes[j].renamingIdentifier)
        }
        for j in s.entities[i].relationships.indices {
          s.entities[i].relationships[j].originalName = name(s.entities[i].relationships[j].renamingIdentifier)
        }
      }
      return s
    }
    var bare = self
    bare.clearOriginalNames()
    // Without identifiers on either side, elements pair by name only: nothing is renamed.
    guard hasRenamingIdentifiers || previous.hasRenamingIdentifiers else { return bare }
    let mapping = SchemaMapping(old: previous, new: bare)
    // New name → old name, once (`oldName(of...)` searches each time).
    func reversed(_ names: [String: String]) -> [String: String] {
      Dictionary(names.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    }
    let entities = reversed(mapping.entityNames)
    func renamed(_ old: String?, _ name: String) -> String? { old.flatMap { $0 == name ? nil : $0 } }
    for i in s.entities.indices {
      let e = s.entities[i].name
      let was = entities[e]
      s.entities[i].originalName = renamed(was, e)
      let attributes = was.flatMap { mapping.attributeNames[$0] }.map(reversed) ?? [:]
      let relationships = was.flatMap { mapping.relationshipNames[$0] }.map(reversed) ?? [:]
      for j in s.entities[i].attributes.indices {
        let a = s.entities[i].attributes[j].name
        s.entities[i].attributes[j].originalName = renamed(attributes[a], a)
      }
      for j in s.entities[i].relationships.indices {
        let r = s.entities[i].relationships[j].name
        s.entities[i].relationships[j].originalName = renamed(relationships[r], r)
      }
    }
    return s
  }

  /// True when an entity, attribute or relationship has a renaming identifier.
  var hasRenamingIdentifiers: Bool {
    entities.contains { e in
      e.renamingIdentifier != nil || e.attributes.contains { $0.renamingIdentifier != nil }
        || e.relationships.contains { $0.renamingIdentifier != nil }
    }
  }

  private mutating func clearOriginalNames() {
    for i in entities.indices {
      entities[i].originalName = nil
      for j in entities[i].attributes.indices { entities[i].attributes[j].originalName = nil }
      for j in entities[i].relationships.indices { entities[i].relationships[j].originalName = nil }
    }
  }
}
