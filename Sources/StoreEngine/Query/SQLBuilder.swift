import DatabaseKit
import JSONCore
import SchemaModel

/// Compiles predicates and sort keys over one entity into SQL: a WHERE fragment, LEFT
/// JOINs for to-one key paths (one per distinct path prefix), and bound arguments. Values
/// are always bound, names always quoted.
struct SQLBuilder {
  let catalog: SchemaCatalog
  let base: EntityPlan
  /// The SQL of the store's database where engines differ (the catalog's connection's).
  let dialect: any SQLDialect
  private(set) var joins: [String] = []
  /// The joins as SQL text, with a leading space when there are any.
  var joinSQL: String { joins.isEmpty ? "" : " " + joins.joined(separator: " ") }
  private var aliases: [String: String] = [:]
  private(set) var args: [SQLValue] = []
  private var aliasCount = 0
  /// SUBQUERY variables in scope: the alias and entity of the element each stands for.
  var variables: [String: Scope] = [:]
  /// LEFT JOINs for to-one hops from a SUBQUERY variable, one list per open SUBQUERY.
  var subqueryJoins: [[String]] = []
  /// Set while compiling an ordering comparison: decimals are stored as canonical text,
  /// so they are compared as numbers there (equality stays exact on the text).
  var orderingDecimal = false
  /// Where the predicate being compiled is (the param holding it), for errors found
  /// while its statement runs.
  var predicatePlace = ErrorPlace(.where)
  /// The places of a JSON-form predicate's nodes (`PredicateJSONDecoder`), by offset.
  var locations: [ErrorPlace]?
  /// Nesting of the SQL being written, in `PredicateLimits.maxSQLNesting` units.
  private var sqlNesting = 0
  /// Predicate and expression nodes being compiled, one inside the other.
  var recursion = 0

  init(catalog: SchemaCatalog, base: EntityPlan, dialect: (any SQLDialect)? = nil) {
    self.catalog = catalog
    self.base = base
    self.dialect = dialect ?? catalog.connection.dialect
  }

  /// What a key path ends in.
  enum Target {
    case attribute(AttributeType, sql: String)
    /// A to-one relationship: the destination's key.
    case toOne(destination: EntityModel, sql: String)
    case count(sql: String)
    case selfKey(sql: String)
  }

  // MARK: - Key paths

  /// A key path giving one value per fetched object (sort keys, grouping, a transform's
  /// key): `walk` from the fetched object through to-one relationships only, or `@count`
  /// after a to-many relationship that ends the path.
  mutating func resolve(_ parts: [String], offset: Int) throws -> Target {
    let counted = parts.count >= 2 && parts[parts.count - 1].lowercased() == "@count"
    let path = counted ? Array(parts.dropLast()) : parts
    let top = Scope(alias: "t", model: base.model, sink: nil)
    switch try walk(path, from: top, collection: nil, offset: offset, toOneOnly: true) {
    case .collection(let c):
      guard counted else { throw Self.onlyCount(path, offset: offset) }
      // Through a nil to-one the collection is nil, so its count is nil (not 0), as in
      // predicates: sorts then place it with the nils.
      return .count(sql: nilThroughToOne(c, "(SELECT count(*) \(c.fromSQL) WHERE \(c.correlation))"))
    case .scalar(let operand):
      // `@count` after an attribute or a to-one: the whole path says why it cannot be.
      if counted { _ = try walk(parts, from: top, collection: nil, offset: offset, toOneOnly: true) }
      switch operand.kind {
      case .attribute(let type): return .attribute(type, sql: operand.sql)
      case .object(let model): return path.isEmpty ? .selfKey(sql: operand.sql) : .toOne(destination: model, sql: operand.sql)
      }
    case .value: preconditionFailure("a key path is never a constant")
    }
  }

  static func onlyCount(_ path: ArraySlice<String>, offset: Int) -> PredicateError {
    PredicateError("'\(path.joined(separator: "."))' is a to-many relationship; only its @count can be used here", offset: offset)
  }

  static func onlyCount(_ path: [String], offset: Int) -> PredicateError { onlyCount(path[...], offset: offset) }

  /// The alias of the LEFT JOIN for the to-one path `prefix` from the fetched object,
  /// added once however many key paths go through it.
  mutating func topLevelJoin(_ r: Relationship, from alias: String, prefix: String) -> String {
    if let existing = aliases[prefix] { return existing }
    let a = "j\(aliases.count + 1)"
    aliases[prefix] = a
    joins.append("LEFT JOIN \(catalog.plans[r.destination]!.table) \(a) ON \(a).\"_pk\" = \(alias).\(Identifier.quote(r.name))")
    return a
  }

  // MARK: - Predicates

  /// The WHERE condition for `p`; comparisons are in `SQLBuilder+Comparison.swift`,
  /// operands (key paths, to-many collections, aggregates) in `SQLBuilder+Operands.swift`.
  mutating func compile(_ p: Predicate) throws -> String {
    try descend(at: Self.firstOffset(p))
    defer { recursion -= 1 }
    switch p {
    case .constant(let b): return dialect.boolean(b)
    case .not(var inner):
      // NOT NOT p is p (two-valued logic, see `negation`).
      var negated = true
      while case .not(let i) = inner {
        inner = i
        negated.toggle()
      }
      guard negated else { return try compile(inner) }
      try nest(1, at: Self.firstOffset(inner))
      defer { unnest(1) }
      return Self.negation(try compile(inner))
    case .and(let items): return try group(Self.flattened(items, and: true), "AND")
    case .or(let items): return try group(Self.flattened(items, and: false), "OR")
    case .comparison(let c):
      let sql = try comparison(c)
      if args.count > dialect.maxBoundValues {
        throw PredicateError("the predicate binds more than \(dialect.maxBoundValues) values", offset: c.offset)
      }
      return sql
    }
  }

  /// `NOT p` in NSPredicate's two-valued logic: true unless `p` is true, so a comparison
  /// that is unknown in SQL (a nil key) counts as false before it is negated, and
  /// `NOT (x == 5)` agrees with `x != 5` on nil keys. Negating each `NOT`'s operand this
  /// way is exact: between `NOT`s, `AND` and `OR` are monotone, so a part is true in
  /// SQL's three-valued logic exactly when it is true with every unknown read as false.
  static func negation(_ sql: String) -> String { "(\(sql)) IS NOT TRUE" }

  /// Items joined by AND (OR). SQLite reads `a AND b AND c` as `(a AND b) AND c`, one
  /// level deeper per item (and refuses trees over 1,000 deep), so long runs are written
  /// in parenthesized groups of `groupSize`: 10,000 items nest 4 groups deep.
  private mutating func group(_ items: [Predicate], _ op: String) throws -> String {
    var levels = 1
    var n = items.count
    while n > Self.groupSize {
      n = (n + Self.groupSize - 1) / Self.groupSize
      levels += 1
    }
    try nest(levels, at: Self.firstOffset(items[0]))
    defer { unnest(levels) }
    var parts: [String] = []
    parts.reserveCapacity(items.count)
    for item in items { parts.append(try compile(item)) }
    while parts.count > Self.groupSize {
      parts = stride(from: 0, to: parts.count, by: Self.groupSize).map {
        "(" + parts[$0..<min($0 + Self.groupSize, parts.count)].joined(separator: " \(op) ") + ")"
      }
    }
    return "(" + parts.joined(separator: " \(op) ") + ")"
  }

  static let groupSize = 16

  /// Nested ANDs (ORs) are one run: `(a AND b) AND c` is `a AND b AND c`.
  private static func flattened(_ items: [Predicate], and: Bool) -> [Predicate] {
    var out: [Predicate] = []
    var stack = Array(items.reversed())
    while let p = stack.popLast() {
      switch (p, and) {
      case (.and(let inner), true), (.or(let inner), false): stack.append(contentsOf: inner.reversed())
      default: out.append(p)
      }
    }
    return out
  }

  /// The offset of the first comparison in `p` (0 when it has none), for errors about a
  /// group as a whole.
  static func firstOffset(_ p: Predicate) -> Int {
    var p = p
    while true {
      switch p {
      case .constant: return 0
      case .not(let inner): p = inner
      case .and(let items), .or(let items):
        guard let first = items.first else { return 0 }
        p = first
      case .comparison(let c): return c.offset
      }
    }
  }

  /// One node deeper in the tree; pair with `recursion -= 1`. The parsers refuse deeper
  /// trees, so this holds for trees built otherwise too.
  mutating func descend(at offset: Int) throws {
    guard recursion < PredicateLimits.maxNesting + 1 else { throw PredicateError(PredicateLimits.tooDeep(), offset: offset) }
    recursion += 1
  }

  mutating func unnest(_ weight: Int) { sqlNesting -= weight }

  /// SQL `weight` levels deeper; pair with `unnest(weight)`. Refuses SQL that
  /// SQLite's parser could not take, at the construct that would go too deep.
  mutating func nest(_ weight: Int, at offset: Int) throws {
    sqlNesting += weight
    if sqlNesting > PredicateLimits.maxSQLNesting {
      sqlNesting -= weight
      throw PredicateError(
        "the predicate nests too deeply to run: its SQL would nest more than \(PredicateLimits.maxSQLNesting) levels "
          + "(AND, OR, NOT and arithmetic groups count 1, SUBQUERY, ANY/ALL/NONE and collection operators \(PredicateLimits.subqueryWeight))",
        offset: offset)
    }
  }

  /// Binds `v` and returns its numbered placeholder (typed as the dialect wants), so an
  /// expression may use it twice.
  mutating func bind(_ v: SQLValue) -> String { dialect.parameter(bindUntyped(v), v) }

  /// Binds `v` and returns its bare numbered placeholder (a JSON list for
  /// `SQLDialect.jsonArrayElements`).
  mutating func bindUntyped(_ v: SQLValue) -> String {
    args.append(v)
    return "?\(args.count)"
  }

  /// A fresh table alias for correlated subqueries (`s1`, `s2`, ...).
  mutating func newAlias() -> String {
    aliasCount += 1
    return "s\(aliasCount)"
  }

  // MARK: - Sorting

  mutating func orderBy(_ keys: [SortKey]) throws -> String {
    var terms: [String] = []
    for (i, k) in keys.enumerated() {
      let parts = k.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      let target: Target
      do { target = try resolve(parts, offset: 0) } catch let e as PredicateError {
        throw StoreError(.validation, at: ErrorPlace(.sort).index(i).key("key"), e.message, ["key": .string(k.keyPath)], placeInData: false)
      }
      var expr: String
      switch target {
      case .attribute(let type, let sql):
        if type == .json {
          throw StoreError(
            .validation, at: ErrorPlace(.sort).index(i).key("key"), "json attribute '\(k.keyPath)' cannot be sorted", placeInData: false)
        }
        expr = type == .decimal ? dialect.castToReal(sql) : sql
        if k.caseInsensitive {
          guard type == .string || type == .url else {
            let place = ErrorPlace(.sort).index(i).key("caseInsensitive")
            throw StoreError(
              .validation, "\(place: place) applies to strings, but '\(k.keyPath)' is \(type.rawValue)", about: place,
              placeInData: false)
          }
          expr = dialect.fold(sql, flags: 3)
        }
      case .toOne(_, let sql), .count(let sql), .selfKey(let sql): expr = sql
      }
      terms.append(dialect.orderTerm(expr, k.ascending ? .ascending : .descending))
    }
    terms.append(dialect.orderTerm("t.\"_pk\"", .ascending))
    return terms.joined(separator: ", ")
  }
}

/// One sort key: a key path (through to-one relationships), direction, folding.
public struct SortKey: Equatable {
  public var keyPath: String
  public var ascending: Bool
  public var caseInsensitive: Bool
  public init(keyPath: String, ascending: Bool = true, caseInsensitive: Bool = false) {
    self.keyPath = keyPath
    self.ascending = ascending
    self.caseInsensitive = caseInsensitive
  }
}
