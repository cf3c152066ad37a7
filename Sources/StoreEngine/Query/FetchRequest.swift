import JSONCore

/// What `query.fetch` / `query.count` / `query.ids` ask for, already parsed.
public struct FetchRequest {
  public var entity: String
  public var predicate: Predicate?
  /// Where the predicate is in the request (errors name it; `where` unless it came in
  /// another member).
  public var predicatePlace = ErrorPlace(.where)
  /// When the predicate came in JSON form: the place of each node, indexed by the node's
  /// `offset` (see `PredicateJSONDecoder`), so errors name it.
  public var predicateLocations: [ErrorPlace]?
  public var sort: [SortKey] = []
  public var limit: Int?
  public var offset: Int?
  /// Only these keys of each object (`_id` and `_entity` always come).
  public var select: [String]?
  /// Relationship key paths to expand into objects.
  public var include: [String] = []
  /// How objects carry their to-many relationships (those not named in `select` or
  /// expanded by `include`).
  public var toMany: ToManyMode = .none
  /// False: only objects of exactly `entity`, not of its sub-entities.
  public var includeSubentities = true
  /// Group the page into sections by this key (`query.fetch` only).
  public var sectionBy: GroupingKey?

  public init(entity: String, predicate: Predicate? = nil) {
    self.entity = entity
    self.predicate = predicate
  }
}
