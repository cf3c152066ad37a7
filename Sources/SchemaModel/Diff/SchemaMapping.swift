/// Which entity and property of an older schema each one of a newer schema continues,
/// following `originalName` (SwiftData's renaming hint) and otherwise equal names. Renames
/// are what make a migration keep data instead of dropping one column and adding another.
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

  public init(old: Schema, new: Schema) {
    self.old = old
    self.new = new
    let oldEntities = Dictionary(uniqueKeysWithValues: old.entities.map { ($0.name, $0) })
    let newNames = Set(new.entities.map(\.name))
    var claimed: [String: String] = [:]
    for e in new.entities {
      // A hint naming an entity the old schema lacks falls back to the name itself.
      let source = e.originalName.flatMap { oldEntities[$0] != nil ? $0 : nil } ?? (oldEntities[e.name] != nil ? e.name : nil)
      guard let source else { continue }
      // A rename onto a name the new schema keeps would make two entities continue one.
      if source != e.name, newNames.contains(source) {
        conflicts.append("entity '\(e.name)' names '\(source)' as its original, but the new schema still has an entity '\(source)'")
        continue
      }
      if let other = claimed[source] {
        conflicts.append("entities '\(other)' and '\(e.name)' both continue the old entity '\(source)'")
        continue
      }
      claimed[source] = e.name
      entityNames[source] = e.name
      guard let was = oldEntities[source] else { continue }
      attributeNames[source] = mapProperties(
        was.attributes.map { ($0.name, nil as String?) }, e.attributes.map { ($0.name, $0.originalName) }, entity: e.name)
      relationshipNames[source] = mapProperties(
        was.relationships.map { ($0.name, nil as String?) }, e.relationships.map { ($0.name, $0.originalName) }, entity: e.name)
    }
  }

  private mutating func mapProperties(_ old: [(String, String?)], _ new: [(String, String?)], entity: String) -> [String: String] {
    let oldNames = Set(old.map(\.0))
    let newNames = Set(new.map(\.0))
    var out: [String: String] = [:]
    var claimedBy: [String: String] = [:]
    for (name, original) in new {
      let source = original.flatMap { oldNames.contains($0) ? $0 : nil } ?? (oldNames.contains(name) ? name : nil)
      guard let source else { continue }
      if source != name, newNames.contains(source) {
        conflicts.append("'\(entity).\(name)' names '\(source)' as its original, but '\(entity).\(source)' still exists")
        continue
      }
      if let other = claimedBy[source] {
        conflicts.append("'\(entity).\(other)' and '\(entity).\(name)' both continue the old property '\(source)'")
        continue
      }
      claimedBy[source] = name
      out[source] = name
    }
    return out
  }

  /// The new name of an old entity, nil when the new schema drops it.
  public func newName(ofEntity old: String) -> String? { entityNames[old] }

  /// The new name of a property declared by the old entity `entity`.
  public func newName(ofAttribute name: String, in entity: String) -> String? { attributeNames[entity]?[name] }
  public func newName(ofRelationship name: String, in entity: String) -> String? { relationshipNames[entity]?[name] }

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
      r.attributes = e.attributes.map { a in
        var b = a
        b.name = attributeNames[e.name]?[a.name] ?? a.name
        b.originalName = nil
        return b
      }
      r.relationships = e.relationships.map { rel in
        var b = rel
        b.name = relationshipNames[e.name]?[rel.name] ?? rel.name
        b.destination = entity(rel.destination)
        b.inverse = rel.inverse.map { relationship($0, in: rel.destination) }
        b.originalName = nil
        return b
      }
      r.indexes = e.indexes.map { $0.map { attributeOrRelationship($0, in: e.name) } }
      r.uniqueness = e.uniqueness.map { $0.map { attributeOrRelationship($0, in: e.name) } }
      return r
    }
    return s
  }
}
