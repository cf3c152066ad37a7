/// A validated schema with everything the engine looks up per request precomputed:
/// inheritance chains, flattened properties, sub-entity sets and resolved inverses.
public final class ModelGraph {
  public let schema: Schema
  public let entities: [String: EntityModel]
  /// Entities in schema order.
  public let ordered: [EntityModel]

  /// Builds the graph; the schema must have passed `SchemaValidator` without errors.
  public init(_ schema: Schema) {
    self.schema = schema
    var map: [String: EntityModel] = [:]
    for e in schema.entities { map[e.name] = EntityModel(e) }
    for model in map.values {
      var chain: [EntityModel] = []
      var p = model.entity.parent
      while let name = p, let parent = map[name] {
        chain.append(parent)
        p = parent.entity.parent
      }
      model.ancestors = chain
      model.root = chain.last ?? model
      let lineage = chain.reversed() + [model]
      model.attributes = lineage.flatMap(\.entity.attributes)
      model.relationships = lineage.flatMap(\.entity.relationships)
      let declared = lineage.map { m in (m.name, m.entity.attributes.filter(\.unique).map { [$0.name] } + m.entity.uniqueness) }
      model.uniqueness = declared.flatMap(\.1)
      model.uniquenessOwners = declared.flatMap { owner, lists in lists.map { _ in owner } }
    }
    for model in map.values {
      for a in model.ancestors { a.descendants.append(model) }
    }
    // Sort every list first: `hierarchy` copies the root's, which must already be in order.
    for model in map.values { model.descendants.sort { $0.name < $1.name } }
    for model in map.values {
      model.concreteNames = ([model] + model.descendants).filter { !$0.entity.abstract }.map(\.name)
      model.hierarchy = [model.root] + model.root.descendants
    }
    entities = map
    ordered = schema.entities.map { map[$0.name]! }
  }

  deinit {
    // The models point at each other (parents, children, root); break the cycles.
    for m in ordered {
      m.ancestors = []
      m.descendants = []
      m.hierarchy = []
    }
  }

  public subscript(name: String) -> EntityModel? { entities[name] }

  /// The relationship on the destination side of `r`, if `r` has an inverse.
  public func inverse(of r: Relationship) -> Relationship? {
    guard let inv = r.inverse, let dest = entities[r.destination] else { return nil }
    return dest.relationship(inv)
  }

  /// Relationships elsewhere in the schema, without an inverse, whose destination is
  /// `entity` or one of its ancestors: they must be cleared when such an object goes.
  public func incomingWithoutInverse(to entity: EntityModel) -> [(EntityModel, Relationship)] {
    let targets = Set([entity.name] + entity.ancestors.map(\.name))
    var out: [(EntityModel, Relationship)] = []
    for m in ordered {
      for r in m.entity.relationships where r.inverse == nil && targets.contains(r.destination) {
        out.append((m, r))
      }
    }
    return out
  }
}

/// One entity as the engine sees it: its own definition plus everything inherited.
public final class EntityModel {
  public let entity: Entity
  public var name: String { entity.name }
  /// Nearest parent first.
  public internal(set) var ancestors: [EntityModel] = []
  /// Every entity below this one, by name.
  public internal(set) var descendants: [EntityModel] = []
  /// The top of the hierarchy: its table holds this entity's objects.
  public internal(set) unowned(unsafe) var root: EntityModel! = nil  // owned by the graph
  /// Root plus every descendant of the root: all entities sharing the table.
  public internal(set) var hierarchy: [EntityModel] = []
  /// Inherited attributes first, then own.
  public internal(set) var attributes: [Attribute] = []
  public internal(set) var relationships: [Relationship] = []
  /// Single and compound uniqueness constraints, inherited ones included.
  public internal(set) var uniqueness: [[String]] = []
  /// The entity that declares each of `uniqueness` (it applies to that entity's objects).
  public internal(set) var uniquenessOwners: [String] = []
  /// This entity and its descendants that can hold objects.
  public internal(set) var concreteNames: [String] = []

  init(_ entity: Entity) { self.entity = entity }

  public var isRoot: Bool { entity.parent == nil }
  public var hasSubentities: Bool { !descendants.isEmpty }
  public func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }
  public func relationship(_ name: String) -> Relationship? { relationships.first { $0.name == name } }

  /// True when `other` is this entity or one of its descendants.
  public func includes(_ other: EntityModel) -> Bool { other === self || other.ancestors.contains { $0 === self } }
}
