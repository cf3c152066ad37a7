import SchemaModel

/// Which entities' changes can alter a live query's result, read from the request's tree
/// (never from its text): the fetched entity's hierarchy, and the destination hierarchy of
/// every relationship a key path of the predicate (SUBQUERY and collection operators
/// included), a sort key or `sectionBy` crosses. `include` key paths give the entities
/// whose changes alter the objects' expanded content without touching the objects.
/// To-many ids or counts a request sends (`toMany`, `select`) need nothing more: a write
/// that links or unlinks objects lists every object whose to-many membership changed in
/// the history (both sides of an inverse, the sources of a to-many without inverse that
/// loses a deleted member), so such an object counts as changed itself. To-manys that are
/// not sent are not told apart: the object is re-read all the same.
struct LiveQueryDependencies {
  /// The entities whose changes can count.
  enum Reach: Equatable {
    case entities(Set<String>)
    /// Some part of the request could not be followed: a change to any entity counts.
    case anyEntity

    /// Whether a commit that changed `changed` can matter.
    func meets(_ changed: Set<String>) -> Bool {
      switch self {
      case .anyEntity: return true
      case .entities(let mine): return !mine.isDisjoint(with: changed)
      }
    }
  }

  /// Entities whose changes can alter which objects match, their order or sections.
  let reach: Reach
  /// `reach`'s entities; nil for `anyEntity`.
  var result: Set<String>? { if case .entities(let s) = reach { return s } else { return nil } }
  /// Entities reached through `include`.
  let included: Set<String>

  init(_ request: FetchRequest, graph: ModelGraph) {
    guard let base = graph[request.entity] else {
      reach = .anyEntity
      included = []
      return
    }
    var w = Walker(graph: graph)
    w.reach(base)
    if let p = request.predicate { w.walk(p, base, [:]) }
    for k in request.sort { _ = w.follow(Self.keys(k.keyPath), from: base) }
    if let s = request.sectionBy { _ = w.follow(Self.keys(s.keyPath), from: base) }
    var inc = Walker(graph: graph)
    for k in request.include { _ = inc.follow(Self.keys(k), from: base) }
    reach = w.known && inc.known ? .entities(w.entities) : .anyEntity
    included = inc.entities
  }

  private static func keys(_ keyPath: String) -> [String] {
    keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
  }
}

/// Collects the entities an expression tree reads; `known` turns false at anything it
/// cannot follow (an unbound placeholder, an unknown key), so the caller falls back to
/// "any entity".
private struct Walker {
  let graph: ModelGraph
  var entities: Set<String> = []
  var known = true

  init(graph: ModelGraph) { self.graph = graph }

  mutating func reach(_ m: EntityModel) { entities.formUnion(m.hierarchy.map(\.name)) }

  /// Follows `keys` from `start`, reaching each relationship's destination; returns the
  /// entity the path ends on when it ends on a relationship.
  mutating func follow(_ keys: [String], from start: EntityModel?) -> EntityModel? {
    guard var m = start else {
      known = false
      return nil
    }
    for k in keys {
      if k.hasPrefix("@") { return nil }  // `items.@count` in a sort: the collection is reached
      if m.attribute(k) != nil { return nil }
      guard let r = m.relationship(k), let d = graph[r.destination] else {
        known = false
        return nil
      }
      reach(d)
      m = d
    }
    return m
  }

  /// `base` is the fetched entity (plain key paths start there, inside SUBQUERY too);
  /// `vars` binds each SUBQUERY variable to its collection's entity.
  mutating func walk(_ p: Predicate, _ base: EntityModel, _ vars: [String: EntityModel]) {
    switch p {
    case .constant: break
    case .not(let q): walk(q, base, vars)
    case .and(let ps), .or(let ps): for q in ps { walk(q, base, vars) }
    case .comparison(let c):
      _ = walk(c.lhs, base, vars)
      _ = walk(c.rhs, base, vars)
    }
  }

  /// Returns the entity an object or collection operand denotes (nil for values).
  mutating func walk(_ e: Expression, _ base: EntityModel, _ vars: [String: EntityModel]) -> EntityModel? {
    switch e {
    case .constant: return nil
    case .evaluatedObject: return base
    case .keyPath(let keys, _): return follow(keys, from: base)
    case .array(let items):
      for x in items { _ = walk(x, base, vars) }
      return nil
    case .variable(let name, _):
      if vars[name] == nil { known = false }
      return vars[name]
    case .placeholder:
      known = false
      return nil
    case .path(let segments, _):
      guard segments.count == 2, case .variable(let name, _) = segments[0], case .keyPath(let keys, _) = segments[1] else {
        known = false
        return nil
      }
      return follow(keys, from: vars[name])
    case .aggregate(_, let collection, let keys, _):
      let element = walk(collection, base, vars)
      if !keys.isEmpty { _ = follow(keys, from: element) }
      return nil
    case .subquery(let s):
      guard let element = walk(s.collection, base, vars) else {
        known = false
        return nil
      }
      var inner = vars
      inner[s.variable] = element
      walk(s.predicate, base, inner)
      return element
    case .function(_, let args, _):
      for a in args { _ = walk(a, base, vars) }
      return nil
    }
  }
}
