import DatabaseKit
import JSONCore
import SchemaModel

/// What `query.aggregate` asks for, already parsed: objects matching `predicate`, grouped
/// by `groupBy` (one group over all of them when empty), with `aggregates` computed per
/// group, groups filtered by `having`, then sorted and paged.
public struct AggregateRequest {
  public var entity: String
  public var predicate: Predicate?
  public var groupBy: [GroupingKey] = []
  public var aggregates: [Aggregate] = []
  /// Over the aggregate aliases and group names, compiled by `HavingCompiler`.
  public var having: Predicate?
  public var sort: [AggregateSortKey] = []
  public var limit: Int?
  public var offset: Int?
  public var includeSubentities = true

  public init(entity: String, predicate: Predicate? = nil) {
    self.entity = entity
    self.predicate = predicate
  }
}

/// One computed value: `fn(key)` named `alias`.
public struct Aggregate: Equatable, Sendable {
  public enum Function: String, CaseIterable, Sendable { case count, sum, avg, min, max }
  public var function: Function
  /// nil only for `count` (counts objects).
  public var keyPath: String?
  /// Over distinct non-nil values (`count`, `sum`, `avg`).
  public var distinct: Bool
  public var alias: String

  public init(_ function: Function, _ keyPath: String? = nil, distinct: Bool = false, as alias: String) {
    self.function = function
    self.keyPath = keyPath
    self.distinct = distinct
    self.alias = alias
  }
}

/// Sorts groups by an aggregate alias or a group name.
public struct AggregateSortKey: Equatable, Sendable {
  public var key: String
  public var ascending: Bool
  public init(key: String, ascending: Bool = true) {
    self.key = key
    self.ascending = ascending
  }
}

/// One result group: the group keys' values and the aggregates' values, each in the wire
/// encoding (dates as ISO strings, ids as `Entity/pk`).
public struct AggregateGroup: Equatable, Sendable {
  public var key: JSONObject
  public var values: JSONObject
}

/// Compiles a `having` predicate to SQL over the columns of an aggregate subquery. It is
/// deliberately small: each comparison names a group key or an aggregate alias on one side
/// and a constant on the other; `==`, `!=`, `<`, `<=`, `>`, `>=`, `IN`, `BETWEEN`; `AND`,
/// `OR`, `NOT`. Constants are bound. Cases are tested with `if case` so that predicate
/// forms added to the language later fall to the "not supported" error here.
struct HavingCompiler {
  /// Name → (SQL column of the subquery, what it holds).
  let columns: [String: (sql: String, kind: ColumnKind)]
  /// The names in request order, for error messages.
  let names: [String]

  func compile(_ p: Predicate, _ args: inout TrailingArgs) throws -> String {
    if case .constant(let b) = p { return args.dialect.boolean(b) }
    if case .not(let inner) = p { return SQLBuilder.negation(try compile(inner, &args)) }
    if case .and(let items) = p { return "(" + (try items.map { try compile($0, &args) }).joined(separator: " AND ") + ")" }
    if case .or(let items) = p { return "(" + (try items.map { try compile($0, &args) }).joined(separator: " OR ") + ")" }
    if case .comparison(let c) = p { return try comparison(c, &args) }
    throw PredicateError("this form is not supported in having (use comparisons with AND, OR, NOT)", offset: 0)
  }

  private func comparison(_ c0: Comparison, _ args: inout TrailingArgs) throws -> String {
    var c = c0
    if let q = c.quantifier {
      throw PredicateError("\(q.rawValue) has no meaning in having (groups have no to-many keys)", offset: c.offset)
    }
    if c.caseInsensitive || c.diacriticInsensitive {
      throw PredicateError("[c]/[d] options are not supported in having", offset: c.offset)
    }
    if case .keyPath = c.rhs, !isKeyPath(c.lhs) {
      guard let mirrored = mirror(c.op) else {
        throw PredicateError("the name must be on the left of \(c.op.rawValue) in having", offset: c.offset)
      }
      swap(&c.lhs, &c.rhs)
      c.op = mirrored
    }
    guard case .keyPath(let parts, let nameOffset) = c.lhs else {
      throw PredicateError("having compares a group key or aggregate alias with a value", offset: c.offset)
    }
    let name = parts.joined(separator: ".")
    guard let (column, kind) = columns[name] else {
      throw PredicateError(
        "'\(name)' is not a group key or aggregate alias; having can use \(names.map { "'\($0)'" }.joined(separator: ", "))",
        offset: nameOffset)
    }
    let value = try constant(c.rhs, c)
    func bound(_ v: JSONValue) throws -> String {
      guard let encoded = kind.encode(v) else {
        throw PredicateError("'\(name)' is compared with \(v.typeName), but it holds \(kind.expected)", offset: c.offset)
      }
      return args.bind(encoded)
    }
    // Decimal keys are stored as text: ordered as numbers, equal as text (as in where).
    let dialect = args.dialect
    let ordered: (String, String) -> (String, String) = { l, r in
      if case .attribute(.decimal) = kind { return (dialect.castToReal(l), dialect.castToReal(r)) }
      return (l, r)
    }
    switch c.op {
    case .equal, .notEqual:
      if case .null = value { return "\(column) \(c.op == .equal ? "IS NULL" : "IS NOT NULL")" }
      let v = try bound(value)
      return c.op == .equal ? "\(column) = \(v)" : dialect.isDistinct(column, v)
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      if case .null = value { throw PredicateError("'\(name)' cannot be ordered against nil", offset: c.offset) }
      let (l, r) = ordered(column, try bound(value))
      return "\(l) \(c.op.rawValue) \(r)"
    case .in:
      guard case .array(let items) = value else {
        throw PredicateError("IN needs an array on the right, got \(value.typeName)", offset: c.offset)
      }
      let nonNil = items.filter { !$0.isNull }
      let membership = nonNil.isEmpty ? dialect.boolean(false) : "\(column) IN (\(try nonNil.map(bound).joined(separator: ", ")))"
      return nonNil.count < items.count ? "(\(membership) OR \(column) IS NULL)" : membership
    case .between:
      guard case .array(let bounds) = value, bounds.count == 2, !bounds.contains(.null) else {
        throw PredicateError("BETWEEN needs {low, high}, neither nil", offset: c.offset)
      }
      let (l, lo) = ordered(column, try bound(bounds[0]))
      let hi = ordered(column, try bound(bounds[1])).1
      return "\(l) BETWEEN \(lo) AND \(hi)"
    default:
      throw PredicateError("\(c.op.rawValue) is not supported in having (use ==, !=, <, <=, >, >=, IN, BETWEEN)", offset: c.offset)
    }
  }

  private func constant(_ e: Expression, _ c: Comparison) throws -> JSONValue {
    if case .constant(let v) = e { return v }
    if case .array(let items) = e { return .array(try items.map { try constant($0, c) }) }
    if case .keyPath(let parts, let o) = e {
      throw PredicateError("having compares with a value, not with '\(parts.joined(separator: "."))'", offset: o)
    }
    throw PredicateError("having compares with a literal value", offset: c.offset)
  }

  private func isKeyPath(_ e: Expression) -> Bool { if case .keyPath = e { return true } else { return false } }

  private func mirror(_ op: Comparison.Operator) -> Comparison.Operator? {
    switch op {
    case .equal, .notEqual: return op
    case .less: return .greater
    case .lessOrEqual: return .greaterOrEqual
    case .greater: return .less
    case .greaterOrEqual: return .lessOrEqual
    default: return nil
    }
  }
}
