import SchemaModel

/// What an entity-relationship diagram shows, before any language draws it: boxes (one per
/// entity, with its rows), the lines between them (inheritance and relationships) and notes.
/// Built from a schema (`Diagram(schema:)`) or from two versions side by side
/// (`Diagram(migrationFrom:to:)`); `MermaidWriter` and `DotWriter` write it out. Everything
/// is sorted (entities and properties by name), so one schema always gives the same text.
public struct Diagram: Sendable {
  /// How an element differs between the two versions of a migration diagram.
  public struct Change: Equatable, Sendable {
    public enum Kind: String, Sendable { case added, removed, renamed, changed }
    public var kind: Kind
    /// Short phrases: `renamed from done`, `int16 → int32`, `needs a custom stage`.
    public var details: [String] = []
    /// The change drops stored data (SchemaDiff's `mayLoseData`, or measured on a store).
    public var losesData = false
    public init(_ kind: Kind, details: [String] = [], losesData: Bool = false) {
      self.kind = kind
      self.details = details
      self.losesData = losesData
    }

    /// `+`, `−` or `~`, the kind (unless a detail says it), the details and the data loss:
    /// `~ int16 → int32`, `+ added, requires: every Group has a value for 'color'`,
    /// `− removed, ⚠ loses stored data`.
    public var summary: String {
      let symbol = kind == .added ? "+" : kind == .removed ? "−" : "~"
      let words = details.filter { $0 != kind.rawValue }
      let lead = kind == .added || kind == .removed || words.isEmpty ? [kind.rawValue] : []
      return symbol + " " + (lead + words + (losesData ? ["⚠ loses stored data"] : [])).joined(separator: ", ")
    }
  }

  /// One attribute, or one compound constraint (`unique (a, b)`, `index (a, b)`).
  public struct Row: Sendable {
    public var name: String
    /// The type, `?` after it when optional; empty for a constraint row.
    public var type: String
    /// `unique`, `indexed`, `transient`; for a constraint row its kind.
    public var tags: [String]
    public var change: Change?
    /// A compound constraint rather than an attribute.
    public var isConstraint = false
  }

  /// One entity.
  public struct Box: Sendable {
    /// Unique in the diagram (the group's prefix and the entity's name).
    public var id: String
    public var name: String
    public var abstract: Bool
    public var rows: [Row]
    public var change: Change?
  }

  /// One end of a relationship line: the entity there and the relationship it declares
  /// towards the other end (nil when only the other end declares one).
  public struct Side: Sendable {
    public var box: String
    public var owned: Relationship?
    public var change: Change?
  }

  public enum Line: Sendable {
    /// `child` inherits from `parent`.
    case inheritance(child: String, parent: String)
    /// A relationship and, when it has one, its inverse: drawn once, from `tail` to
    /// `head`. The role near an end is the other side's relationship (UML's placement).
    case association(tail: Side, head: Side)
    /// A migration diagram's entity continuing as `to` (renamed or not).
    case continuation(from: String, to: String, renamed: Bool)
  }

  /// The boxes of one schema version (a migration diagram has two).
  public struct Group: Sendable {
    /// `""` for a one-schema diagram, `from` / `to` in a migration diagram.
    public var id: String
    public var title: String?
    public var boxes: [Box]
  }

  public var title: String
  public var groups: [Group]
  public var lines: [Line]
  /// Text shown beside the boxes: a legend, data loss that fits no element, blockers.
  public var notes: [String]

  /// The diagram of one schema (it has passed `SchemaValidator`); `name` is the version's
  /// name for the title (a bundle's version name), its `version` when not given.
  public init(schema: Schema, name: String? = nil) {
    let group = Group(id: "", title: nil, boxes: Self.boxes(schema, prefix: ""))
    title = "schema version \(name ?? schema.version)"
    groups = [group]
    lines = Self.lines(schema, prefix: "")
    notes = schema.entities.isEmpty ? ["no entities"] : []
  }

  init(title: String, groups: [Group], lines: [Line], notes: [String]) {
    self.title = title
    self.groups = groups
    self.lines = lines
    self.notes = notes
  }

  /// The box id of `entity` in the group `prefix`.
  static func boxID(_ prefix: String, _ entity: String) -> String { prefix.isEmpty ? entity : prefix + ":" + entity }

  /// One box per entity, sorted by name; attributes sorted by name, then the compound
  /// uniqueness constraints and indexes the entity declares.
  static func boxes(_ schema: Schema, prefix: String) -> [Box] {
    schema.entities.sorted { $0.name < $1.name }.map { e in
      var rows = e.attributes.sorted { $0.name < $1.name }.map { a in
        var tags: [String] = []
        if a.unique { tags.append("unique") }
        if a.indexed { tags.append("indexed") }
        if a.transient { tags.append("transient") }
        return Row(name: a.name, type: a.type.rawValue + (a.optional ? "?" : ""), tags: tags)
      }
      for keys in e.uniqueness.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
        rows.append(Row(name: keys.joined(separator: ", "), type: "", tags: ["unique"], isConstraint: true))
      }
      for keys in e.indexes.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
        rows.append(Row(name: keys.joined(separator: ", "), type: "", tags: ["index"], isConstraint: true))
      }
      return Box(id: boxID(prefix, e.name), name: e.name, abstract: e.abstract, rows: rows)
    }
  }

  /// Inheritance lines, then one line per relationship and its inverse, sorted by the
  /// declaring entity and relationship name. A relationship whose inverse names it back
  /// from its destination entity (the usual pair) is one undirected line; any other is a
  /// line of its own, directed to its destination.
  static func lines(_ schema: Schema, prefix: String) -> [Line] {
    let entities = schema.entities.sorted { $0.name < $1.name }
    // A line needs both its boxes (a schema that failed validation may name others).
    let names = Set(entities.map(\.name))
    var out: [Line] = entities.compactMap { e in
      e.parent.flatMap { names.contains($0) ? .inheritance(child: boxID(prefix, e.name), parent: boxID(prefix, $0)) : nil }
    }
    var drawn: Set<String> = []
    for e in entities {
      for r in e.relationships.sorted(by: { $0.name < $1.name })
      where names.contains(r.destination) && !drawn.contains(e.name + "." + r.name) {
        drawn.insert(e.name + "." + r.name)
        let partner = r.inverse.flatMap { inv in
          schema.entity(named: r.destination)?.relationships.first { $0.name == inv && $0.destination == e.name && $0.inverse == r.name }
        }
        guard let partner else {
          out.append(.association(tail: Side(box: boxID(prefix, e.name), owned: r), head: Side(box: boxID(prefix, r.destination))))
          continue
        }
        drawn.insert(r.destination + "." + partner.name)
        var tail = Side(box: boxID(prefix, e.name), owned: r)
        var head = Side(box: boxID(prefix, r.destination), owned: partner)
        // The "one" side of a one-to-many goes first (drawn above the many side).
        if !r.toMany && partner.toMany { swap(&tail, &head) }
        out.append(.association(tail: tail, head: head))
      }
    }
    return out
  }
}

extension Relationship {
  /// UML multiplicity: `0..1` or `1` for a to-one; `min..max` for a to-many (`*` for no
  /// maximum), as the engine enforces `min` / `max`.
  public var multiplicity: String {
    guard toMany else { return optional ? "0..1" : "1" }
    let upper = (maxCount ?? 0) > 0 ? String(maxCount!) : "*"
    return "\(minCount ?? 0)..\(upper)"
  }

  /// The delete rule, then `ordered` for an ordered to-many.
  public var diagramTags: [String] { [deleteRule.rawValue] + (ordered ? ["ordered"] : []) }
}
