import JSONCore
import SQLiteCore
import SchemaModel

/// Compiles predicates and sort keys over one entity into SQL: a WHERE fragment, LEFT
/// JOINs for to-one key paths (one per distinct path prefix), and bound arguments. Values
/// are always bound, names always quoted.
struct SQLBuilder {
  let store: Store
  let base: EntityPlan
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

  init(store: Store, base: EntityPlan) {
    self.store = store
    self.base = base
  }

  /// What a key path ends in.
  enum Target {
    case attribute(Attribute, sql: String)
    case toOne(Relationship, sql: String)
    case count(sql: String)
    case selfKey(sql: String)
  }

  // MARK: - Key paths

  /// A key path through to-one relationships only (sort keys, and what other query
  /// features build on); predicates use `walk`, which also crosses to-many ones.
  mutating func resolve(_ parts: [String], offset: Int) throws -> Target {
    var model = base.model
    var alias = "t"
    var prefix = ""
    for (i, part) in parts.enumerated() {
      let last = i == parts.count - 1
      let plan = store.plans[model.name]!
      if let a = model.attribute(part) {
        guard last else {
          throw PredicateError("'\(part)' is an attribute of '\(model.name)', so the key path cannot continue after it", offset: offset)
        }
        if a.transient {
          throw PredicateError(
            "transient attribute '\(model.name).\(part)' is not stored and cannot be used in a predicate or sort", offset: offset)
        }
        return .attribute(a, sql: "\(alias).\(Identifier.quote(a.name))")
      }
      guard let r = model.relationship(part) else {
        let owner = model === base.model ? "entity '\(model.name)'" : "'\(model.name)' (reached through '\(prefix)')"
        throw PredicateError("'\(part)' is not an attribute or relationship of \(owner)", offset: offset)
      }
      if r.toMany {
        if i + 1 == parts.count - 1, parts[i + 1].lowercased() == "@count" {
          // Through a nil to-one the collection is nil, so its count is nil (not 0), as
          // in predicates: sorts then place it with the nils.
          let count = countSQL(r, plan: plan, alias: alias)
          return .count(sql: alias == "t" ? count : "CASE WHEN \(alias).\"_pk\" IS NULL THEN NULL ELSE \(count) END")
        }
        throw PredicateError(
          "'\(parts[0...i].joined(separator: "."))' is a to-many relationship; only its @count can be used here",
          offset: offset)
      }
      if last { return .toOne(r, sql: "\(alias).\(Identifier.quote(r.name))") }
      prefix = prefix.isEmpty ? part : "\(prefix).\(part)"
      alias = topLevelJoin(r, from: alias, prefix: prefix)
      model = store.plans[r.destination]!.model
    }
    return .selfKey(sql: "\(alias).\"_pk\"")
  }

  /// The alias of the LEFT JOIN for the to-one path `prefix` from the fetched object,
  /// added once however many key paths go through it.
  mutating func topLevelJoin(_ r: Relationship, from alias: String, prefix: String) -> String {
    if let existing = aliases[prefix] { return existing }
    let a = "j\(aliases.count + 1)"
    aliases[prefix] = a
    joins.append("LEFT JOIN \(store.plans[r.destination]!.table) \(a) ON \(a).\"_pk\" = \(alias).\(Identifier.quote(r.name))")
    return a
  }

  private func countSQL(_ r: Relationship, plan: EntityPlan, alias: String) -> String {
    switch plan.storage[r.name]! {
    case .inverseForeignKey(let table, let col, _):
      return "(SELECT count(*) FROM \(Identifier.quote(table)) c WHERE c.\(Identifier.quote(col)) = \(alias).\"_pk\")"
    case .joinTable(let table, let src, _, _):
      return "(SELECT count(*) FROM \(Identifier.quote(table)) c WHERE c.\(Identifier.quote(src)) = \(alias).\"_pk\")"
    case .foreignKey(let col):
      return "(\(alias).\(Identifier.quote(col)) IS NOT NULL)"
    }
  }

  // MARK: - Predicates

  /// The WHERE condition for `p`; comparisons are in `SQLBuilder+Comparison.swift`,
  /// operands (key paths, to-many collections, aggregates) in `SQLBuilder+Operands.swift`.
  mutating func compile(_ p: Predicate) throws -> String {
    switch p {
    case .constant(let b): return b ? "1" : "0"
    case .not(let inner): return "NOT (\(try compile(inner)))"
    case .and(let items): return "(" + (try items.map { try compile($0) }).joined(separator: " AND ") + ")"
    case .or(let items): return "(" + (try items.map { try compile($0) }).joined(separator: " OR ") + ")"
    case .comparison(let c): return try comparison(c)
    }
  }

  /// Binds `v` and returns its numbered placeholder, so an expression may use it twice.
  mutating func bind(_ v: SQLValue) -> String {
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
        throw StoreError(.validation, "params.sort[\(i)].key: \(e.message)", ["key": .string(k.keyPath)])
      }
      var expr: String
      switch target {
      case .attribute(let a, let sql):
        if a.type == .json { throw StoreError(.validation, "params.sort[\(i)].key: json attribute '\(k.keyPath)' cannot be sorted") }
        expr = a.type == .decimal ? "CAST(\(sql) AS REAL)" : sql
        if k.caseInsensitive {
          guard a.type == .string || a.type == .url else {
            throw StoreError(.validation, "params.sort[\(i)].caseInsensitive applies to strings, but '\(k.keyPath)' is \(a.type.rawValue)")
          }
          expr = "ms_fold(\(sql), 3)"
        }
      case .toOne(_, let sql), .count(let sql), .selfKey(let sql): expr = sql
      }
      terms.append("\(expr) \(k.ascending ? "ASC" : "DESC")")
    }
    terms.append("t.\"_pk\" ASC")
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

extension String {
  func replacingAll(_ target: Character, _ replacement: String) -> String {
    var out = ""
    for ch in self { if ch == target { out += replacement } else { out.append(ch) } }
    return out
  }
}
