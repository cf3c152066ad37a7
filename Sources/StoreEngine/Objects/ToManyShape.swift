import SchemaModel

/// How the objects of a reply carry their to-many relationships (the `toMany` param).
public enum ToManyMode: String, CaseIterable, Sendable {
  /// Left out: a reply costs nothing for to-many relationships it was not asked for.
  case none
  /// Arrays of ids: ordered relationships in their order, unordered ones by ascending key.
  case ids
  /// The number of related objects.
  case count
}

/// What one reply sends of each object's to-many relationships: `select` and `include`
/// override `mode` for the relationships they name.
struct ToManyShape {
  enum Read { case ids, count }

  var mode: ToManyMode
  /// The request's `select` (top-level objects only): a to-many named there comes as ids
  /// whatever `mode` says; one not named is left out.
  var select: Set<String>?
  /// Relationships the request expands next (`include`): they need their ids.
  var expanded: Set<String> = []

  init(_ mode: ToManyMode, select: Set<String>? = nil, expanded: Set<String> = []) {
    self.mode = mode
    self.select = select
    self.expanded = expanded
  }

  /// How `r` (a to-many) is read, or nil when it is left out.
  func read(_ r: Relationship) -> Read? {
    if let select { return select.contains(r.name) ? .ids : nil }
    if expanded.contains(r.name) { return .ids }
    switch mode {
    case .none: return nil
    case .ids: return .ids
    case .count: return .count
    }
  }
}
