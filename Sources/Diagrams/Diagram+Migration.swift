import SchemaModel

extension Diagram {
  /// Stored data a migration drops, as measured on a store (the planner's `dataLoss`):
  /// drawn at the element it names, or as a note when the diagram has no such element.
  public struct MeasuredLoss: Sendable {
    public var entity: String
    public var property: String?
    public var message: String
    public init(entity: String, property: String?, message: String) {
      self.entity = entity
      self.property = property
      self.message = message
    }
  }

  /// Two versions side by side: `from`'s boxes on the left, `to`'s on the right, each
  /// entity that continues linked to its successor. `SchemaDiff`'s changes mark the
  /// elements: removals (and their data loss) on the left, additions, renames and changes
  /// on the right, renames also on the left (`renamed to ...`). Without `measured`, a
  /// change loses data where SchemaDiff says it may; `measured` (a dry run on a store)
  /// replaces that with what the store would lose, at the element it names. `blockers` are
  /// listed as notes. `names` are the versions' names for the titles (a bundle's version
  /// names), their `version` when not given.
  public init(
    migrationFrom old: Schema, to new: Schema, names: (from: String, to: String)? = nil, measured: [MeasuredLoss]? = nil,
    blockers: [String] = []
  ) {
    let names = names ?? (old.version, new.version)
    let diff = SchemaDiff(from: old, to: new)
    var marks = MigrationMarks(diff: diff, old: old, new: new)
    for c in diff.changes { marks.apply(c, measured: measured != nil) }
    var notes: [String] = []
    for loss in measured ?? [] where !marks.applyLoss(loss) { notes.append("⚠ " + loss.message) }
    let stage = diff.isLightweight ? "lightweight" : "needs a custom stage"
    let count = "\(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s") (\(stage))"
    notes.insert(diff.isEmpty ? "no changes" : count + " — + added, − removed, ~ renamed or changed, ⚠ loses stored data", at: 0)
    notes += diff.mapping.conflicts.map { "ambiguous rename: " + $0 }
    notes += blockers.map { "blocked: " + $0 }
    self.init(
      title: "migration from version \(names.from) to version \(names.to)",
      groups: [
        Group(id: "from", title: "from version \(names.from)", boxes: marks.from),
        Group(id: "to", title: "to version \(names.to)", boxes: marks.to),
      ],
      lines: marks.fromLines + marks.toLines + marks.continuations, notes: notes)
  }
}

/// The boxes and lines of both versions, marked change by change.
struct MigrationMarks {
  let mapping: SchemaMapping
  /// The old schema with the renames applied (SchemaDiff compares against it).
  let before: Schema
  let new: Schema
  var from: [Diagram.Box]
  var to: [Diagram.Box]
  var fromLines: [Diagram.Line]
  var toLines: [Diagram.Line]
  let continuations: [Diagram.Line]
  /// Old entity name by new name, for entities that continue.
  let oldName: [String: String]

  init(diff: SchemaDiff, old: Schema, new: Schema) {
    mapping = diff.mapping
    before = diff.mapping.renamedOld
    self.new = new
    from = Diagram.boxes(old, prefix: "from")
    to = Diagram.boxes(new, prefix: "to")
    fromLines = Diagram.lines(old, prefix: "from")
    toLines = Diagram.lines(new, prefix: "to")
    var names: [String: String] = [:]
    var lines: [Diagram.Line] = []
    for e in old.entities.sorted(by: { $0.name < $1.name }) {
      guard let next = diff.mapping.newName(ofEntity: e.name), new.entity(named: next) != nil else { continue }
      names[next] = e.name
      lines.append(.continuation(from: Diagram.boxID("from", e.name), to: Diagram.boxID("to", next), renamed: next != e.name))
    }
    oldName = names
    continuations = lines
  }

  /// Marks the elements `c` is about; `measured`: data loss is marked from measurements only.
  mutating func apply(_ c: SchemaChange, measured: Bool) {
    var change = Diagram.Change(kindOf(c), details: phrases(c), losesData: c.mayLoseData && !measured)
    if !c.lightweight { change.details.append("needs a custom stage") }
    if let condition = c.condition { change.details.append("requires: " + condition.text) }
    let property = c.property ?? ""
    // The names in the old version (renames undone), and the keys as a constraint row names them.
    let oldEntity = oldName[c.entity] ?? c.entity
    let oldAttribute = oldAttribute(property, of: c.entity)
    let oldRelationship = oldRelationship(property, of: c.entity)
    let constraint = constraintName(property)
    let renamedTo = Diagram.Change(.renamed, details: ["renamed to \(c.kind == .renameEntity ? c.entity : property)"])
    switch c.kind {
    case .removeEntity:
      Self.mark(box: &from, "from", c.entity, change)
    case .renameEntity:
      Self.mark(box: &to, "to", c.entity, change)
      Self.mark(box: &from, "from", oldEntity, renamedTo)
    case .addEntity, .changeParent, .changeAbstract:
      Self.mark(box: &to, "to", c.entity, change)
    case .removeAttribute:
      Self.mark(row: &from, "from", oldEntity, oldAttribute, change)
    case .removeRelationship:
      Self.mark(side: &fromLines, "from", oldEntity, oldRelationship, change)
    case .addRelationship, .changeDestination, .changeDeleteRule, .changeInverse, .makeToMany, .makeToOne, .makeOrdered, .makeUnordered,
      .changeCount, .changeRelationshipOptional:
      Self.mark(side: &toLines, "to", c.entity, property, change)
    case .renameRelationship:
      Self.mark(side: &toLines, "to", c.entity, property, change)
      Self.mark(side: &fromLines, "from", oldEntity, oldRelationship, renamedTo)
    case .renameAttribute:
      Self.mark(row: &to, "to", c.entity, property, change)
      Self.mark(row: &from, "from", oldEntity, oldAttribute, renamedTo)
    case .removeUnique, .removeIndex:
      // A constraint row (compound, or declared as a key list) that goes is marked on the
      // old box; an attribute's own uniqueness or index is a change of the attribute.
      let tag = c.kind == .removeUnique ? "unique" : "index"
      if Self.hasConstraint(from, "from", oldEntity, constraint, tag) {
        change.kind = .removed
        change.details.removeFirst()
        Self.mark(row: &from, "from", oldEntity, constraint, change, constraint: tag)
      } else {
        Self.mark(row: &to, "to", c.entity, property, change)
      }
    case .addUnique, .addIndex:
      let tag = c.kind == .addUnique ? "unique" : "index"
      if Self.hasConstraint(to, "to", c.entity, constraint, tag) {
        change.kind = .added
        change.details.removeFirst()
        Self.mark(row: &to, "to", c.entity, constraint, change, constraint: tag)
      } else {
        Self.mark(row: &to, "to", c.entity, property, change)
      }
    case .addAttribute, .changeType, .makeOptional, .makeRequired, .changeDefault, .makeTransient, .makePersistent:
      Self.mark(row: &to, "to", c.entity, property, change)
    }
  }

  /// Attaches a measured loss to the old version's element it names; false when none.
  mutating func applyLoss(_ loss: Diagram.MeasuredLoss) -> Bool {
    let entity = from.contains { $0.name == loss.entity } ? loss.entity : (oldName[loss.entity] ?? loss.entity)
    let change = Diagram.Change(.removed, details: [loss.message], losesData: true)
    guard let property = loss.property else { return Self.mark(box: &from, "from", entity, change) }
    return Self.mark(row: &from, "from", entity, property, change) || Self.mark(side: &fromLines, "from", entity, property, change)
  }

  private func constraintName(_ keys: String) -> String { keys.split(separator: ",").joined(separator: ", ") }

  /// The old name of attribute `name` (new) of entity `entity` (new).
  private func oldAttribute(_ name: String, of entity: String) -> String {
    guard let was = oldName[entity] else { return name }
    return mapping.attributeNames[was]?.first { $0.value == name }?.key ?? name
  }

  private func oldRelationship(_ name: String, of entity: String) -> String {
    guard let was = oldName[entity] else { return name }
    return mapping.relationshipNames[was]?.first { $0.value == name }?.key ?? name
  }

  private func kindOf(_ c: SchemaChange) -> Diagram.Change.Kind {
    switch c.kind {
    case .addEntity, .addAttribute, .addRelationship: return .added
    case .removeEntity, .removeAttribute, .removeRelationship: return .removed
    case .renameEntity, .renameAttribute, .renameRelationship: return .renamed
    default: return .changed
    }
  }

  /// Short words for the change, beside the element it marks.
  private func phrases(_ c: SchemaChange) -> [String] {
    let p = c.property ?? ""
    let wasEntity = before.entity(named: c.entity)
    let isEntity = new.entity(named: c.entity)
    let wasAttribute = wasEntity?.attributes.first { $0.name == p }
    let wasRelationship = wasEntity?.relationships.first { $0.name == p }
    let isRelationship = isEntity?.relationships.first { $0.name == p }
    switch c.kind {
    case .addEntity, .addAttribute, .addRelationship: return ["added"]
    case .removeEntity, .removeAttribute, .removeRelationship: return ["removed"]
    case .renameEntity: return ["renamed from \(oldName[c.entity] ?? c.entity)"]
    case .renameAttribute: return ["renamed from \(oldAttribute(p, of: c.entity))"]
    case .renameRelationship: return ["renamed from \(oldRelationship(p, of: c.entity))"]
    case .changeParent: return ["parent \(wasEntity?.parent ?? "none") → \(isEntity?.parent ?? "none")"]
    case .changeAbstract: return [isEntity?.abstract == true ? "now abstract" : "now concrete"]
    case .changeType:
      let now = isEntity?.attributes.first { $0.name == p }?.type.rawValue ?? "?"
      return ["\(wasAttribute?.type.rawValue ?? "?") → \(now)"]
    case .makeOptional: return ["now optional"]
    case .makeRequired: return ["now required"]
    case .changeDefault: return ["default changed"]
    case .addUnique: return ["now unique"]
    case .removeUnique: return ["no longer unique"]
    case .addIndex: return ["index added"]
    case .removeIndex: return ["index removed"]
    case .makeTransient: return ["now transient"]
    case .makePersistent: return ["now stored"]
    case .changeDestination: return ["destination \(wasRelationship?.destination ?? "?") → \(isRelationship?.destination ?? "?")"]
    case .changeDeleteRule:
      return ["delete rule \(wasRelationship?.deleteRule.rawValue ?? "?") → \(isRelationship?.deleteRule.rawValue ?? "?")"]
    case .changeInverse: return ["inverse \(wasRelationship?.inverse ?? "none") → \(isRelationship?.inverse ?? "none")"]
    case .makeToMany: return ["now to-many"]
    case .makeToOne: return ["now to-one"]
    case .makeOrdered: return ["now ordered"]
    case .makeUnordered: return ["now unordered"]
    case .changeCount: return ["count \(wasRelationship?.multiplicity ?? "?") → \(isRelationship?.multiplicity ?? "?")"]
    case .changeRelationshipOptional: return [isRelationship?.optional == true ? "now optional" : "now required"]
    }
  }

  @discardableResult
  private static func mark(box boxes: inout [Diagram.Box], _ prefix: String, _ entity: String, _ change: Diagram.Change) -> Bool {
    guard let i = boxes.firstIndex(where: { $0.id == Diagram.boxID(prefix, entity) }) else { return false }
    boxes[i].change = Self.merged(boxes[i].change, change)
    return true
  }

  /// True when the box of `entity` has the constraint row `name` of kind `tag`.
  private static func hasConstraint(_ boxes: [Diagram.Box], _ prefix: String, _ entity: String, _ name: String, _ tag: String) -> Bool {
    boxes.first { $0.id == Diagram.boxID(prefix, entity) }?.rows.contains { $0.isConstraint && $0.name == name && $0.tags == [tag] }
      ?? false
  }

  /// Marks the attribute row `row`, or with `constraint` (its tag) the constraint row.
  @discardableResult
  private static func mark(
    row boxes: inout [Diagram.Box], _ prefix: String, _ entity: String, _ row: String, _ change: Diagram.Change, constraint: String? = nil
  ) -> Bool {
    guard let i = boxes.firstIndex(where: { $0.id == Diagram.boxID(prefix, entity) }),
      let k = boxes[i].rows.firstIndex(where: { r in
        r.name == row && r.isConstraint == (constraint != nil) && constraint.map { r.tags == [$0] } ?? true
      })
    else { return false }
    boxes[i].rows[k].change = Self.merged(boxes[i].rows[k].change, change)
    return true
  }

  @discardableResult
  private static func mark(
    side lines: inout [Diagram.Line], _ prefix: String, _ entity: String, _ relationship: String, _ change: Diagram.Change
  )
    -> Bool
  {
    let box = Diagram.boxID(prefix, entity)
    for (i, line) in lines.enumerated() {
      guard case .association(var tail, var head) = line else { continue }
      if tail.box == box && tail.owned?.name == relationship {
        tail.change = Self.merged(tail.change, change)
      } else if head.box == box && head.owned?.name == relationship {
        head.change = Self.merged(head.change, change)
      } else {
        continue
      }
      lines[i] = .association(tail: tail, head: head)
      return true
    }
    return false
  }

  /// Two changes of one element: an addition, removal or rename keeps its kind and gains
  /// the other's details.
  private static func merged(_ a: Diagram.Change?, _ b: Diagram.Change) -> Diagram.Change {
    guard var a else { return b }
    if a.kind == .changed && b.kind != .changed { a.kind = b.kind }
    a.details += b.details.filter { !a.details.contains($0) }
    a.losesData = a.losesData || b.losesData
    return a
  }
}
