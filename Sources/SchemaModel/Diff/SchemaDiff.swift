/// Every difference between two schema versions, renames included, each classified as a
/// lightweight change or one that needs a custom stage. `model.diff` returns it; the
/// planner measures its conditions and data loss against a store.
public struct SchemaDiff {
  public let mapping: SchemaMapping
  public private(set) var changes: [SchemaChange] = []

  public init(from old: Schema, to new: Schema) {
    mapping = SchemaMapping(old: old, new: new)
    for r in mapping.renames {
      switch r.kind {
      case "entity": changes.append(SchemaChange(.renameEntity, r.to, nil, "rename entity \(r.from) to \(r.to)"))
      case "attribute":
        let e = mapping.newName(ofEntity: r.entity) ?? r.entity
        changes.append(SchemaChange(.renameAttribute, e, r.to, "rename attribute \(e).\(r.from) to \(r.to)"))
      default:
        let e = mapping.newName(ofEntity: r.entity) ?? r.entity
        changes.append(SchemaChange(.renameRelationship, e, r.to, "rename relationship \(e).\(r.from) to \(r.to)"))
      }
    }
    let before = mapping.renamedOld
    let oldGraph = ModelGraph(before)
    let newGraph = ModelGraph(new)
    for e in new.entities {
      guard let was = oldGraph[e.name] else {
        changes.append(SchemaChange(.addEntity, e.name, nil, "add entity \(e.name)"))
        continue
      }
      compareEntity(was, newGraph[e.name]!, oldGraph, newGraph)
    }
    for e in before.entities where newGraph[e.name] == nil {
      changes.append(
        SchemaChange(.removeEntity, e.name, nil, "remove entity \(e.name) and its objects", mayLoseData: true))
    }
  }

  /// True when no change needs a custom stage (conditions on the data aside).
  public var isLightweight: Bool { changes.allSatisfy(\.lightweight) }
  public var isEmpty: Bool { changes.isEmpty }

  private mutating func add(_ c: SchemaChange) { changes.append(c) }

  private mutating func compareEntity(_ was: EntityModel, _ now: EntityModel, _ oldGraph: ModelGraph, _ newGraph: ModelGraph) {
    let name = now.name
    if was.entity.parent != now.entity.parent {
      let sameTable = was.root.name == now.root.name
      add(
        SchemaChange(
          .changeParent, name, nil, "change the parent of \(name) from \(was.entity.parent ?? "none") to \(now.entity.parent ?? "none")",
          condition: sameTable ? nil : .noObjects(entity: name)))
    }
    if was.entity.abstract != now.entity.abstract {
      add(
        SchemaChange(
          .changeAbstract, name, nil, now.entity.abstract ? "make \(name) abstract" : "make \(name) concrete",
          condition: now.entity.abstract ? .noObjects(entity: name) : nil))
    }
    for a in now.entity.attributes {
      guard let b = was.attribute(a.name) else {
        let filled = a.optional || a.defaultValue != nil || a.transient
        add(
          SchemaChange(
            .addAttribute, name, a.name, "add attribute \(name).\(a.name) (\(a.type.rawValue)\(describeFill(a)))",
            condition: filled ? nil : .noNulls(entity: name, attribute: a.name)))
        if a.unique {
          add(SchemaChange(.addUnique, name, a.name, "make \(name).\(a.name) unique", condition: .unique(entity: name, keys: [a.name])))
        }
        continue
      }
      compareAttribute(b, a, entity: name)
    }
    for b in was.entity.attributes where now.attribute(b.name) == nil {
      add(
        SchemaChange(
          .removeAttribute, name, b.name, "remove attribute \(name).\(b.name)\(b.transient ? " (transient)" : " and its values")",
          mayLoseData: !b.transient))
    }
    let oldIndexes = Set(indexKeys(was.entity)), newIndexes = Set(indexKeys(now.entity))
    for keys in indexKeys(now.entity) where !oldIndexes.contains(keys) {
      add(SchemaChange(.addIndex, name, keys.joined(separator: ","), "add an index on \(name) (\(keys.joined(separator: ", ")))"))
    }
    for keys in indexKeys(was.entity) where !newIndexes.contains(keys) {
      add(SchemaChange(.removeIndex, name, keys.joined(separator: ","), "remove the index on \(name) (\(keys.joined(separator: ", ")))"))
    }
    for keys in now.entity.uniqueness where !was.entity.uniqueness.contains(keys) {
      add(
        SchemaChange(
          .addUnique, name, keys.joined(separator: ","), "make (\(keys.joined(separator: ", "))) unique for \(name)",
          condition: .unique(entity: name, keys: keys)))
    }
    for keys in was.entity.uniqueness where !now.entity.uniqueness.contains(keys) {
      add(
        SchemaChange(
          .removeUnique, name, keys.joined(separator: ","), "drop the uniqueness of (\(keys.joined(separator: ", "))) for \(name)"))
    }
    for r in now.entity.relationships {
      guard let s = was.relationship(r.name) else {
        add(SchemaChange(.addRelationship, name, r.name, "add relationship \(name).\(r.name) → \(r.destination)"))
        continue
      }
      compareRelationship(s, r, entity: name)
    }
    for s in was.entity.relationships where now.relationship(s.name) == nil {
      add(SchemaChange(.removeRelationship, name, s.name, "remove relationship \(name).\(s.name) and its links", mayLoseData: true))
    }
  }

  private func describeFill(_ a: Attribute) -> String {
    if a.transient { return ", transient" }
    switch a.defaultValue {
    case .literal(let v)?: return ", existing objects get \(v)"
    case .generate(let g)?: return ", existing objects get a generated \(g.rawValue)"
    case nil: return a.optional ? ", optional" : ", required without a default"
    }
  }

  private func indexKeys(_ e: Entity) -> [[String]] {
    e.attributes.filter { $0.indexed && !$0.unique }.map { [$0.name] } + e.indexes
  }

  private mutating func compareAttribute(_ b: Attribute, _ a: Attribute, entity name: String) {
    let place = "\(name).\(a.name)"
    if b.transient != a.transient {
      if a.transient {
        add(SchemaChange(.makeTransient, name, a.name, "make \(place) transient (its stored values are dropped)", mayLoseData: true))
      } else {
        add(
          SchemaChange(
            .makePersistent, name, a.name, "store \(place) (it was transient)",
            condition: a.optional || a.defaultValue != nil ? nil : .noNulls(entity: name, attribute: a.name)))
      }
      return
    }
    if b.type != a.type {
      let widening = b.type.widens(to: a.type)
      add(
        SchemaChange(
          .changeType, name, a.name, "change \(place) from \(b.type.rawValue) to \(a.type.rawValue)\(widening ? " (widening)" : "")",
          condition: widening ? nil : .valuesConvert(entity: name, attribute: a.name, from: b.type, to: a.type)))
    }
    if b.optional != a.optional {
      if a.optional {
        add(SchemaChange(.makeOptional, name, a.name, "make \(place) optional"))
      } else {
        let filled = a.defaultValue != nil
        add(
          SchemaChange(
            .makeRequired, name, a.name, "make \(place) required\(filled ? " (objects without a value get the default)" : "")",
            condition: filled ? nil : .noNulls(entity: name, attribute: a.name)))
      }
    }
    if b.defaultValue != a.defaultValue {
      add(SchemaChange(.changeDefault, name, a.name, "change the default of \(place)"))
    }
    if b.unique != a.unique {
      if a.unique {
        add(SchemaChange(.addUnique, name, a.name, "make \(place) unique", condition: .unique(entity: name, keys: [a.name])))
      } else {
        add(SchemaChange(.removeUnique, name, a.name, "drop the uniqueness of \(place)"))
      }
    }
  }

  private mutating func compareRelationship(_ s: Relationship, _ r: Relationship, entity name: String) {
    let place = "\(name).\(r.name)"
    if s.destination != r.destination {
      add(
        SchemaChange(
          .changeDestination, name, r.name, "change the destination of \(place) from \(s.destination) to \(r.destination)",
          lightweight: false, mayLoseData: true))
    }
    if s.toMany != r.toMany {
      if r.toMany {
        add(SchemaChange(.makeToMany, name, r.name, "make \(place) to-many"))
      } else {
        add(
          SchemaChange(
            .makeToOne, name, r.name, "make \(place) to-one", condition: .atMostOneLink(entity: name, relationship: r.name)))
      }
    }
    if s.ordered != r.ordered, r.toMany, s.toMany {
      if r.ordered {
        add(SchemaChange(.makeOrdered, name, r.name, "make \(place) ordered (existing links keep their current order)"))
      } else {
        add(SchemaChange(.makeUnordered, name, r.name, "make \(place) unordered (the stored order is dropped)", mayLoseData: true))
      }
    }
    if s.inverse != r.inverse {
      add(
        SchemaChange(.changeInverse, name, r.name, "change the inverse of \(place) from \(s.inverse ?? "none") to \(r.inverse ?? "none")"))
    }
    if s.deleteRule != r.deleteRule {
      add(
        SchemaChange(
          .changeDeleteRule, name, r.name, "change the delete rule of \(place) from \(s.deleteRule.rawValue) to \(r.deleteRule.rawValue)"))
    }
    if s.minCount != r.minCount || s.maxCount != r.maxCount {
      add(SchemaChange(.changeCount, name, r.name, "change the count limits of \(place)"))
    }
    if s.optional != r.optional {
      add(SchemaChange(.changeRelationshipOptional, name, r.name, r.optional ? "make \(place) optional" : "make \(place) required"))
    }
  }
}
