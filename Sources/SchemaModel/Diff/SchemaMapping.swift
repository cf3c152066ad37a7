/// Which entity and property of an older schema each one of a newer schema continues.
/// Renames are what make a migration keep data instead of dropping one column and adding
/// another. An element (entity, attribute, relationship) continues an old one when, in
/// this order:
/// 1. both have the same identity, Core Data's way: the `renamingIdentifier`, or the name
///    of an element without one, and at least one of the two has an identifier. A chain
///    `a` → `b` (identifier `a`) → `c` (identifier `a`) maps `b` to `c` in the second step
///    and `a` to `c` across both;
/// 2. its `originalName` (SwiftData's: the name in the previous version) names the old one;
/// 3. it has the old one's name, and nothing above claimed that old one. (Core Data would
///    drop and re-add an element whose identifier changed under the same name; ModelStore
///    keeps its data.)
/// `oldName(of...)` answers the other way: an element's name in the old schema, which is
/// SwiftData's `originalName` for a step between two Core Data versions.
public struct SchemaMapping {
  public let old: Schema
  public let new: Schema
  /// Old entity name → its name in the new schema, for every entity that continues.
  public private(set) var entityNames: [String: String] = [:]
  /// Old entity → (old property → new property) for the attributes it declares.
  public private(set) var attributeNames: [String: [String: String]] = [:]
  /// Old entity → (old property → new property) for the relationships it declares.
  public private(set) var relationshipNames: [String: [String: String]] = [:]
  /// Two new entities or properties claiming one old one: the mapping is ambiguous.
  public private(set) var conflicts: [String] = []

  /// What the pairing looks at in an entity or property.
  struct Element {
    var name: String
    var originalName: String?
    var identifier: String?
    /// Core Data's identity: the renaming identifier, else the name.
    var identity: String { identifier ?? name }
    /// True when the identity is not simply the name.
    var hasIdentifier: Bool { identifier != nil && identifier != name }
  }

  public init(old: Schema, new: Schema) {
    self.old = old
    self.new = new
    let oldEntities = Dictionary(old.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    let pairs = pair(
      old.entities.map { Element(name: $0.name, originalName: $0.originalName, identifier: $0.renamingIdentifier) },
      new.entities.map { Element(name: $0.name, originalName: $0.originalName, identifier: $0.renamingIdentifier) },
      place: { "entity '\($0)'" }, plural: "entities", oldKind: "the old entity", stillHas: { "the new schema still has an entity '\($0)'" }
    )
    for e in new.entities {
      guard let source = pairs[e.name], let was = oldEntities[source] else { continue }
      entityNames[source] = e.name
      let attributes = pair(
        was.attributes.map { Element(name: $0.name, originalName: $0.originalName, identifier: $0.renamingIdentifier) },
        e.attributes.map { Element(name: $0.name, originalName: $0.originalName, identifier: $0.renamingIdentifier) },
        place: { "'\(e.name).\($0)'" }, plural: nil, oldKind: "the old property", stillHas: { "'\(e.name).\($0)' still exists" })
      let relationships = pair(
        was.relationships.map { Element(name: $0.name, originalName: $0.originalName, identifier: $0.renamingIdentifier) },
        e.relationships.map { Element(name: $0.name, originalName: $0.originalName, identifier: $0.renamingIdentifier) },
        place: { "'\(e.name).\($0)'" }, plural: nil, oldKind: "the old property", stillHas: { "'\(e.name).\($0)' still exists" })
      attributeNames[source] = Dictionary(attributes.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
      relationshipNames[source] = Dictionary(relationships.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    }
  }

  /// New name → old name for the elements of `new` that continue one of `old` (rules in
  /// the type's comment); each ambiguity is added to `conflicts`, and its element pairs
  /// with nothing.
  private mutating func pair(
    _ old: [Element], _ new: [Element], place: (String) -> String, plural: String?, oldKind: String,
    stillHas: (String) -> String
  ) -> [String: String] {
    var result: [String: String] = [:]
    var claimedBy: [String: String] = [:]
    var conflicted: Set<String> = []
    func both(_ a: String, _ b: String) -> String {
      plural.map { "\($0) '\(a)' and '\(b)'" } ?? "\(place(a)) and \(place(b))"
    }
    // 1. Identity, when one side has an identifier.
    var byIdentity: [String: [String]] = [:]
    let identified = Dictionary(old.filter(\.hasIdentifier).map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
    let plain = Dictionary(old.filter { !$0.hasIdentifier }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    for n in new {
      // An old element whose identifier matches comes before one whose name does.
      guard let o = identified[n.identity] ?? (n.hasIdentifier ? plain[n.identity] : nil) else { continue }
      byIdentity[o.name, default: []].append(n.name)
    }
    for o in old {
      guard let names = byIdentity[o.name] else { continue }
      if names.count > 1 {
        conflicts.append("\(both(names[0], names[1])) both continue \(oldKind) '\(o.name)' (renaming identifier '\(o.identity)')")
        conflicted.formUnion(names)
        continue
      }
      result[names[0]] = o.name
      claimedBy[o.name] = names[0]
    }
    let oldNames = Set(old.map(\.name))
    // 2. The originalName hint.
    for n in new where result[n.name] == nil {
      guard let source = n.originalName, oldNames.contains(source) else { continue }
      if source != n.name, new.contains(where: { $0.name == source && result[$0.name] == nil }) {
        conflicts.append("\(place(n.name)) names '\(source)' as its original, but \(stillHas(source))")
        conflicted.insert(n.name)
        continue
      }
      if let other = claimedBy[source] {
        conflicts.append("\(both(other, n.name)) both continue \(oldKind) '\(source)'")
        conflicted.insert(n.name)
        continue
      }
      result[n.name] = source
      claimedBy[source] = n.name
    }
    // 3. The same name.
    for n in new where result[n.name] == nil && !conflicted.contains(n.name) && oldNames.contains(n.name) && claimedBy[n.name] == nil {
      result[n.name] = n.name
      claimedBy[n.name] = n.name
    }
    return result
  }

  /// The new name of an old entity, nil when the new schema drops it.
  public func newName(ofEntity old: String) -> String? { entityNames[old] }

  /// The new name of a property declared by the old entity `entity`.
  public func newName(ofAttribute name: String, in entity: String) -> String? { attributeNames[entity]?[name] }
  public func newName(ofRelationship name: String, in entity: String) -> String? { relationshipNames[entity]?[name] }

  /// The name in the old schema of the new schema's entity `name`, nil when it is new.
  public func oldName(ofEntity name: String) -> String? { entityNames.first { $0.value == name }?.key }

  /// The name in the old schema of the attribute `name` that the new schema's entity
  /// `entity` declares, nil when it is new (the old entity declared no such attribute).
  public func oldName(ofAttribute name: String, in entity: String) -> String? {
    oldName(ofEntity: entity).flatMap { attributeNames[$0]?.first { $0.value == name }?.key }
  }

  /// The old name of the relationship `name` that the new schema's `entity` declares.
  public func oldName(ofRelationship name: String, in entity: String) -> String? {
    oldName(ofEntity: entity).flatMap { relationshipNames[$0]?.first { $0.value == name }?.key }
  }

  /// Every rename, old → new, as `Entity` or `Entity.property` (old names).
  public var renames: [(kind: String, entity: String, from: String, to: String)] {
    var out: [(String, String, String, String)] = []
    for e in old.entities {
      guard let to = entityNames[e.name] else { continue }
      if to != e.name { out.append(("entity", e.name, e.name, to)) }
      for a in e.attributes { if let n = attributeNames[e.name]?[a.name], n != a.name { out.append(("attribute", e.name, a.name, n)) } }
      for r in e.relationships {
        if let n = relationshipNames[e.name]?[r.name], n != r.name { out.append(("relationship", e.name, r.name, n)) }
      }
    }
    return out
  }

  /// The old schema with every rename applied and nothing else: what the tables hold once
  /// the renames ran, so that the rest of the migration compares names directly.
  public var renamedOld: Schema {
    func entity(_ n: String) -> String { entityNames[n] ?? n }
    func relationship(_ n: String, in owner: String) -> String {
      // Inverses name a property of the destination, which may be inherited.
      var e: String? = owner
      while let name = e, let declared = old.entity(named: name) {
        if declared.relationships.contains(where: { $0.name == n }) { return relationshipNames[name]?[n] ?? n }
        e = declared.parent
      }
      return n
    }
    func attributeOrRelationship(_ n: String, in owner: String) -> String {
      var e: String? = owner
      while let name = e, let declared = old.entity(named: name) {
        if declared.attributes.contains(where: { $0.name == n }) { return attributeNames[name]?[n] ?? n }
        if declared.relationships.contains(where: { $0.name == n }) { return relationshipNames[name]?[n] ?? n }
        e = declared.parent
      }
      return n
    }
    var s = old
    s.entities = old.entities.map { e in
      var r = e
      r.name = entity(e.name)
      r.parent = e.parent.map(entity)
      r.originalName = nil
      r.renamingIdentifier = nil
      r.attributes = e.attributes.map { a in
        var b = a
        b.name = attributeNames[e.name]?[a.name] ?? a.name
        b.originalName = nil
        b.renamingIdentifier = nil
        return b
      }
      r.relationships = e.relationships.map { rel in
        var b = rel
        b.name = relationshipNames[e.name]?[rel.name] ?? rel.name
        b.destination = entity(rel.destination)
        b.inverse = rel.inverse.map { relationship($0, in: rel.destination) }
        b.originalName = nil
        b.renamingIdentifier = nil
        return b
      }
      r.indexes = e.indexes.map { $0.map { attributeOrRelationship($0, in: e.name) } }
      r.uniqueness = e.uniqueness.map { $0.map { attributeOrRelationship($0, in: e.name) } }
      return r
    }
    return s
  }
}
