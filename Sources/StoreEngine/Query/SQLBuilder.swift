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
          return .count(sql: countSQL(r, plan: plan, alias: alias))
        }
        throw PredicateError(
          "'\(parts[0...i].joined(separator: "."))' is a to-many relationship; compare its @count, or use ANY/ALL/NONE (full predicate language)",
          offset: offset)
      }
      if last { return .toOne(r, sql: "\(alias).\(Identifier.quote(r.name))") }
      prefix = prefix.isEmpty ? part : "\(prefix).\(part)"
      let dest = store.plans[r.destination]!
      if let existing = aliases[prefix] {
        alias = existing
      } else {
        let a = "j\(aliases.count + 1)"
        aliases[prefix] = a
        joins.append("LEFT JOIN \(dest.table) \(a) ON \(a).\"_pk\" = \(alias).\(Identifier.quote(r.name))")
        alias = a
      }
      model = dest.model
    }
    return .selfKey(sql: "\(alias).\"_pk\"")
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

  mutating func compile(_ p: Predicate) throws -> String {
    switch p {
    case .constant(let b): return b ? "1" : "0"
    case .not(let inner): return "NOT (\(try compile(inner)))"
    case .and(let items): return "(" + (try items.map { try compile($0) }).joined(separator: " AND ") + ")"
    case .or(let items): return "(" + (try items.map { try compile($0) }).joined(separator: " OR ") + ")"
    case .comparison(let c): return try comparison(c)
    }
  }

  private mutating func comparison(_ c0: Comparison) throws -> String {
    var c = c0
    if c.quantifier != nil {
      throw PredicateError("\(c.quantifier!.rawValue) over to-many key paths comes with the full predicate language", offset: c.offset)
    }
    // Constant on the left: mirror it so the key path is on the left.
    if case .keyPath = c.rhs, !isKeyPath(c.lhs) {
      guard let mirrored = mirror(c.op) else {
        throw PredicateError("the key path must be on the left of \(c.op.rawValue)", offset: c.offset)
      }
      swap(&c.lhs, &c.rhs)
      c.op = mirrored
    }
    guard case .keyPath(let parts, let kpOffset) = c.lhs else {
      if case .placeholder(let f, _, let o) = c.lhs { throw PredicateError("\(f) has no value", offset: o) }
      throw PredicateError("a comparison needs a key path on one side", offset: c.offset)
    }
    let target = try resolve(parts, offset: kpOffset)
    let column: String
    var type: AttributeType?
    var relationship: Relationship?
    switch target {
    case .attribute(let a, let sql):
      column = sql
      type = a.type
    case .toOne(let r, let sql):
      column = sql
      relationship = r
    case .count(let sql):
      column = sql
      type = .int
    case .selfKey(let sql):
      column = sql
    }
    let name = parts.joined(separator: ".")
    let rhs = try operandValue(c.rhs, c)

    switch c.op {
    case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
      if case .null = rhs {
        switch c.op {
        case .equal: return "\(column) IS NULL"
        case .notEqual: return "\(column) IS NOT NULL"
        default: throw PredicateError("'\(name)' cannot be ordered against nil", offset: c.offset)
        }
      }
      let v = try encode(rhs, type: type, relationship: relationship, name: name, c: c)
      orderingDecimal = c.op != .equal && c.op != .notEqual
      defer { orderingDecimal = false }
      let (l, r) = try folded(column, v, type: type, c: c, name: name)
      let sqlOp = ["==": "=", "!=": "IS NOT"][c.op.rawValue] ?? c.op.rawValue
      return "\(l) \(sqlOp) \(r)"
    case .beginsWith, .endsWith, .contains, .like, .matches:
      guard type == .string || type == .url || type == .uuid || type == .decimal else {
        throw PredicateError(
          "\(c.op.rawValue) needs a string attribute, but '\(name)' is \(type?.rawValue ?? "a relationship")", offset: c.offset)
      }
      guard case .string(let s) = rhs else {
        throw PredicateError("\(c.op.rawValue) needs a string on the right, got \(rhs.typeName)", offset: c.offset)
      }
      if c.op == .like {
        // NSPredicate LIKE: `*` any run, `?` one character; GLOB's `[` is escaped.
        let (gl, gr) = try folded(column, .text(s.replacingAll("[", "[[]")), type: .string, c: c, name: name)
        return "(\(gl) GLOB \(gr))"
      }
      let (l, r) = try folded(column, .text(s), type: .string, c: c, name: name)
      switch c.op {
      case .beginsWith: return "(substr(\(l), 1, length(\(r))) = \(r))"
      case .endsWith: return "(length(\(r)) = 0 OR substr(\(l), -length(\(r))) = \(r))"
      case .contains: return "(instr(\(l), \(r)) > 0)"
      default:
        throw PredicateError("MATCHES (regular expressions) comes with the full predicate language", offset: c.offset)
      }
    case .in:
      guard case .array(let items) = rhs else {
        throw PredicateError("IN needs an array on the right ({a, b} or an array argument), got \(rhs.typeName)", offset: c.offset)
      }
      if items.isEmpty { return "0" }
      var placeholders: [String] = []
      var includesNil = false
      for item in items {
        if case .null = item {
          includesNil = true
          continue
        }
        let v = try encode(item, type: type, relationship: relationship, name: name, c: c)
        placeholders.append(try folded(column, v, type: type, c: c, name: name).1)
      }
      let l = try folded(column, .null, type: type, c: c, name: name).0
      let membership = placeholders.isEmpty ? "0" : "\(l) IN (\(placeholders.joined(separator: ", ")))"
      return includesNil ? "(\(membership) OR \(column) IS NULL)" : membership
    case .between:
      guard case .array(let bounds) = rhs, bounds.count == 2 else {
        throw PredicateError("BETWEEN needs {low, high}", offset: c.offset)
      }
      if bounds.contains(.null) { throw PredicateError("BETWEEN bounds cannot be nil", offset: c.offset) }
      orderingDecimal = true
      defer { orderingDecimal = false }
      let lo = try encode(bounds[0], type: type, relationship: relationship, name: name, c: c)
      let hi = try encode(bounds[1], type: type, relationship: relationship, name: name, c: c)
      let (l, a) = try folded(column, lo, type: type, c: c, name: name)
      let b = try folded(column, hi, type: type, c: c, name: name).1
      return "\(l) BETWEEN \(a) AND \(b)"
    }
  }

  private func isKeyPath(_ e: Expression) -> Bool { if case .keyPath = e { return true } else { return false } }

  private func mirror(_ op: Comparison.Operator) -> Comparison.Operator? {
    switch op {
    case .equal: return .equal
    case .notEqual: return .notEqual
    case .less: return .greater
    case .lessOrEqual: return .greaterOrEqual
    case .greater: return .less
    case .greaterOrEqual: return .lessOrEqual
    default: return nil
    }
  }

  private func operandValue(_ e: Expression, _ c: Comparison) throws -> JSONValue {
    switch e {
    case .constant(let v): return v
    case .array(let items): return .array(try items.map { try operandValue($0, c) })
    case .keyPath(let parts, let o):
      throw PredicateError(
        "comparing two key paths ('\(parts.joined(separator: "."))' on the right) comes with the full predicate language", offset: o)
    case .variable(let n, let o): throw PredicateError("variable $\(n) has no value", offset: o)
    case .placeholder(let f, _, let o): throw PredicateError("\(f) has no value", offset: o)
    case .evaluatedObject: throw PredicateError("SELF on the right is not supported here", offset: c.offset)
    }
  }

  /// Binds `value` in the stored form of the key path's type.
  private mutating func encode(_ value: JSONValue, type: AttributeType?, relationship: Relationship?, name: String, c: Comparison) throws
    -> SQLValue
  {
    if case .null = value { return .null }
    if let r = relationship {
      guard case .string(let s) = value, let id = ObjectID(s), let dest = store.plans[r.destination],
        let target = store.plans[id.entity], dest.model.includes(target.model)
      else {
        throw PredicateError(
          "'\(name)' is a relationship to \(r.destination); compare it with an id such as \"\(r.destination)/1\" or nil", offset: c.offset)
      }
      return .integer(id.pk)
    }
    guard let type else {
      if case .int(let i) = value { return .integer(i) }
      throw PredicateError("'\(name)' can only be compared with an integer key", offset: c.offset)
    }
    switch (type, value) {
    case (_, .int(let i)) where type.isInteger || type == .bool: return .integer(i)
    case (_, .double(let d)) where type.isInteger: return .real(d)
    case (.bool, .bool(let b)): return .integer(b ? 1 : 0)
    case (.date, .int(let i)): return .real(Double(i))
    case (.date, .double(let d)): return .real(d)
    case (.json, _):
      throw PredicateError("json attribute '\(name)' cannot be compared in a predicate (its stored form is opaque)", offset: c.offset)
    default:
      do { return try type.encode(value) } catch let e as ValueError {
        throw PredicateError("'\(name)': \(e.message)", offset: c.offset)
      }
    }
  }

  /// The two sides of a comparison, folded with `ms_fold` under [c]/[d].
  private mutating func folded(_ column: String, _ v: SQLValue, type: AttributeType?, c: Comparison, name: String) throws -> (
    String, String
  ) {
    let fold = c.caseInsensitive || c.diacriticInsensitive
    if fold {
      guard type == .string || type == .url else {
        throw PredicateError("[c]/[d] options apply to strings, but '\(name)' is \(type?.rawValue ?? "a relationship")", offset: c.offset)
      }
      let flags = (c.caseInsensitive ? 1 : 0) | (c.diacriticInsensitive ? 2 : 0)
      if case .null = v { return ("ms_fold(\(column), \(flags))", "") }
      args.append(v)
      return ("ms_fold(\(column), \(flags))", "ms_fold(?\(args.count), \(flags))")
    }
    if case .null = v { return (column, "") }
    args.append(v)
    // Numbered, so an expression may use the same value twice (BEGINSWITH, ENDSWITH).
    if type == .decimal && orderingDecimal { return ("CAST(\(column) AS REAL)", "CAST(?\(args.count) AS REAL)") }
    return (column, "?\(args.count)")
  }

  /// Set while compiling an ordering comparison: decimals are stored as canonical text,
  /// so they are compared as numbers there (equality stays exact on the text).
  private var orderingDecimal = false

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
