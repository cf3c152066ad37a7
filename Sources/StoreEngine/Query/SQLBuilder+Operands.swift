import DatabaseKit
import JSONCore
import SchemaModel

/// A compiled scalar operand: SQL for one value per row, and what that value is.
struct Operand {
  enum Kind {
    case attribute(AttributeType)
    /// An object's key: a to-one column, `_pk` (SELF, a SUBQUERY variable), a join-table key.
    case object(EntityModel)
  }
  var sql: String
  var kind: Kind
  /// The key path as written, for messages.
  var name: String

  var type: AttributeType? { if case .attribute(let t) = kind { return t } else { return nil } }
}

/// Elements reached through to-many relationships: the FROM and WHERE of a correlated
/// subquery (`FROM Tag s2 ... WHERE s2.book = t._pk`) and the element's value there. All
/// to-many hops of a key path become joins of one subquery, so a predicate stays one
/// statement however deep it goes.
struct ToManyElements {
  var from: String
  var joins: [String] = []
  var correlation: String
  var element: Operand
  /// The alias of the object the first to-many hop starts from.
  var owner: String
  /// Alias and entity of the element object, when the path ends at a to-many relationship.
  var elementAlias: String?
  var elementModel: EntityModel?
  /// A join-table hop ending the path reads the element's key from the join table; the
  /// destination table is joined only when the element's own columns are needed.
  var pendingJoin: String?

  var fromSQL: String { "FROM \(from)" + joins.map { " " + $0 }.joined() }

  mutating func materialize() {
    if let j = pendingJoin { joins.append(j) }
    pendingJoin = nil
  }
}

/// What an expression compiles to.
enum Compiled {
  /// A constant, bound later in the stored form of what it is compared with.
  case value(JSONValue)
  case scalar(Operand)
  case collection(ToManyElements)
}

/// Where key paths start: the fetched object (`t`) or a SUBQUERY variable's element.
struct Scope {
  var alias: String
  var model: EntityModel
  /// Index into `subqueryJoins` for to-one hops; nil for the fetched object.
  var sink: Int?
}

extension SQLBuilder {
  mutating func operand(_ e: Expression) throws -> Compiled {
    try descend(at: offset(of: e) ?? 0)
    defer { recursion -= 1 }
    switch e {
    case .constant(let v): return .value(v)
    case .array(let items):
      var values: [JSONValue] = []
      for item in items {
        guard case .value(let v) = try operand(item) else {
          throw PredicateError("array elements must be values, not key paths", offset: offset(of: item) ?? 0)
        }
        values.append(v)
      }
      return .value(.array(values))
    case .keyPath(let parts, let o):
      return try walk(parts, from: Scope(alias: "t", model: base.model, sink: nil), collection: nil, offset: o)
    case .evaluatedObject:
      return .scalar(Operand(sql: "t.\"_pk\"", kind: .object(base.model), name: "SELF"))
    case .variable(let name, let o):
      guard let scope = variables[name] else { throw PredicateError("variable $\(name) has no value", offset: o) }
      return .scalar(Operand(sql: "\(scope.alias).\"_pk\"", kind: .object(scope.model), name: "$" + name))
    case .placeholder(let f, _, let o):
      throw PredicateError("\(f) has no value", offset: o)
    case .path(let segments, let o):
      guard case .variable(let name, let vo) = segments[0] else { return try operand(segments[0]) }
      guard let scope = variables[name] else { throw PredicateError("variable $\(name) has no value", offset: vo) }
      guard segments.count == 2, case .keyPath(let parts, _) = segments[1] else {
        if case .placeholder(let f, _, let po) = segments[1] { throw PredicateError("\(f) has no value", offset: po) }
        throw PredicateError("unsupported key path", offset: o)
      }
      return try walk(parts, from: scope, collection: nil, offset: o, label: "$\(name).")
    case .aggregate(let op, let collection, let keys, let o):
      return try aggregate(op, collection, keys, offset: o)
    case .subquery(let s):
      throw PredicateError("SUBQUERY(...) is a collection: count it with SUBQUERY(...).@count", offset: s.offset)
    case .function(let name, let args, let o):
      return try function(name, args, offset: o)
    }
  }

  func offset(of e: Expression) -> Int? {
    switch e {
    case .keyPath(_, let o), .variable(_, let o), .placeholder(_, _, let o), .path(_, let o), .aggregate(_, _, _, let o),
      .function(_, _, let o):
      return o
    case .subquery(let s): return s.offset
    case .constant, .array, .evaluatedObject: return nil
    }
  }

  // MARK: - Key paths

  /// Follows `parts` from `scope` (or from the elements of `collection`): to-one hops
  /// become LEFT JOINs, to-many hops start or extend a correlated collection.
  /// With `toOneOnly` (`resolve`), a to-many hop may only end the path.
  mutating func walk(
    _ parts: [String], from scope: Scope, collection: ToManyElements?, offset: Int, label: String = "", toOneOnly: Bool = false
  ) throws -> Compiled {
    var alias = scope.alias
    var model = scope.model
    var coll = collection
    var prefix = ""
    let topLevel = scope.sink == nil && collection == nil
    func done(_ operand: Operand) -> Compiled {
      guard var c = coll else { return .scalar(operand) }
      c.element = operand
      return .collection(c)
    }
    let name = label + parts.joined(separator: ".")
    for (i, part) in parts.enumerated() {
      let last = i == parts.count - 1
      coll?.materialize()
      if let a = model.attribute(part) {
        guard last else {
          throw PredicateError("'\(part)' is an attribute of '\(model.name)', so the key path cannot continue after it", offset: offset)
        }
        if a.transient {
          throw PredicateError(
            "transient attribute '\(model.name).\(part)' is not stored and cannot be used in a predicate or sort", offset: offset)
        }
        if coll != nil { coll!.elementAlias = nil }
        return done(Operand(sql: "\(alias).\(Identifier.quote(a.name))", kind: .attribute(a.type), name: name))
      }
      guard let r = model.relationship(part) else {
        let through = label.isEmpty ? prefix : prefix.isEmpty ? String(label.dropLast()) : label + prefix
        let owner = through.isEmpty ? "entity '\(model.name)'" : "'\(model.name)' (reached through '\(through)')"
        throw PredicateError("'\(part)' is not an attribute or relationship of \(owner)", offset: offset)
      }
      let plan = catalog.plans[model.name]!
      let dest = catalog.plans[r.destination]!
      prefix = prefix.isEmpty ? part : "\(prefix).\(part)"
      if !r.toMany {
        if last {
          if coll != nil { coll!.elementAlias = nil }
          return done(Operand(sql: "\(alias).\(Identifier.quote(r.name))", kind: .object(dest.model), name: name))
        }
        if topLevel && coll == nil {
          alias = topLevelJoin(r, from: alias, prefix: prefix)
        } else {
          let a = newAlias()
          let join = "LEFT JOIN \(dest.table) \(a) ON \(a).\"_pk\" = \(alias).\(Identifier.quote(r.name))"
          if coll != nil { coll!.joins.append(join) } else { subqueryJoins[scope.sink!].append(join) }
          alias = a
        }
        model = dest.model
        continue
      }
      if toOneOnly && !last { throw Self.onlyCount(parts[...i], offset: offset) }
      let element = newAlias()
      var key = "\(element).\"_pk\""
      switch plan.storage[r.name]! {
      case .inverseForeignKey(let table, let column, _):
        let t = "\(Identifier.quote(table)) \(element)"
        let on =
          "\(element).\(Identifier.quote(column)) = \(alias).\"_pk\""
          + StorageLayout.sharedInverseColumnFilter(
            of: r, destination: dest.model, table: table, alias: element, codes: catalog.entityCodes)
        if coll == nil {
          coll = ToManyElements(from: t, correlation: on, element: Operand(sql: key, kind: .object(dest.model), name: name), owner: alias)
        } else {
          coll!.joins.append("JOIN \(t) ON \(on)")
        }
      case .joinTable(let table, let source, let destination, _):
        let j = newAlias()
        let t = "\(Identifier.quote(table)) \(j)"
        let on = "\(j).\(Identifier.quote(source)) = \(alias).\"_pk\""
        if coll == nil {
          coll = ToManyElements(from: t, correlation: on, element: Operand(sql: key, kind: .object(dest.model), name: name), owner: alias)
        } else {
          coll!.joins.append("JOIN \(t) ON \(on)")
        }
        coll!.pendingJoin = "JOIN \(dest.table) \(element) ON \(element).\"_pk\" = \(j).\(Identifier.quote(destination))"
        key = "\(j).\(Identifier.quote(destination))"
      case .foreignKey:
        preconditionFailure("a to-many relationship is never stored as a foreign key")
      }
      coll!.elementAlias = element
      coll!.elementModel = dest.model
      alias = element
      model = dest.model
      if last { return done(Operand(sql: key, kind: .object(dest.model), name: name)) }
    }
    // No parts: the scope's object itself.
    return done(Operand(sql: "\(alias).\"_pk\"", kind: .object(model), name: name.isEmpty ? "SELF" : name))
  }

  // MARK: - Collections

  /// `EXISTS (SELECT 1 FROM ... WHERE correlation AND condition)`.
  func exists(_ c: ToManyElements, _ condition: String) -> String {
    "EXISTS (SELECT 1 \(c.fromSQL) WHERE \(c.correlation) AND \(condition))"
  }

  private mutating func aggregate(_ op: CollectionOperator, _ collection: Expression, _ keys: [String], offset: Int) throws -> Compiled {
    try nest(PredicateLimits.subqueryWeight, at: offset)
    defer { unnest(PredicateLimits.subqueryWeight) }
    var coll: ToManyElements
    if case .subquery(let s) = collection {
      coll = try subqueryCollection(s)
    } else {
      guard case .collection(let c) = try operand(collection) else {
        throw PredicateError("\(op.rawValue) needs a to-many key path before it", offset: offset)
      }
      coll = c
    }
    let name = coll.element.name + "." + ([op.rawValue] + keys).joined(separator: ".")
    guard !keys.isEmpty else {
      guard op == .count else {
        throw PredicateError("\(op.rawValue) needs the key of the values it folds, as in 'items.\(op.rawValue).price'", offset: offset)
      }
      return .scalar(
        Operand(
          sql: nilThroughToOne(coll, "(SELECT count(*) \(coll.fromSQL) WHERE \(coll.correlation))"), kind: .attribute(.int), name: name))
    }
    guard let alias = coll.elementAlias, let model = coll.elementModel else {
      throw PredicateError(
        "\(op.rawValue) folds the objects of a to-many relationship; '\(coll.element.name)' does not end in one", offset: offset)
    }
    coll.materialize()
    guard case .collection(let c) = try walk(keys, from: Scope(alias: alias, model: model, sink: nil), collection: coll, offset: offset),
      case .attribute(let type) = c.element.kind
    else {
      throw PredicateError("\(op.rawValue) needs an attribute after it, but '\(name)' is not one", offset: offset)
    }
    let numeric = type.isInteger || type == .double || type == .float || type == .decimal || type == .bool
    let value = type == .decimal ? dialect.castToReal(c.element.sql) : c.element.sql
    let sql: String
    let resultType: AttributeType
    switch op {
    case .sum, .avg:
      guard numeric else {
        throw PredicateError("\(op.rawValue) needs a number attribute, but '\(name)' is \(type.rawValue)", offset: offset)
      }
      let integers = type.isInteger || type == .bool
      // An integer @sum is what query.aggregate's sum is: beyond 64 bits an error on every
      // engine (PostgreSQL's exact numeric sum would otherwise compare as it is).
      if op == .sum {
        sql = integers ? dialect.total(value, integers: true) : "coalesce(sum(\(value)), 0)"
      } else {
        sql = dialect.average(value, integers: integers)
      }
      resultType = op == .sum && integers ? .int : .double
    case .min, .max:
      guard numeric || type == .date || type == .string else {
        throw PredicateError("\(op.rawValue) needs a number, date or string attribute, but '\(name)' is \(type.rawValue)", offset: offset)
      }
      sql = "\(op == .min ? "min" : "max")(\(value))"
      resultType = type == .decimal ? .double : type
    case .count: preconditionFailure("@count takes no key after it")
    }
    return .scalar(
      Operand(sql: nilThroughToOne(c, "(SELECT \(sql) \(c.fromSQL) WHERE \(c.correlation))"), kind: .attribute(resultType), name: name))
  }

  /// A collection reached through a nil to-one is nil, so its @count and other folds read
  /// nil rather than 0 (as every key path through a nil to-one does).
  func nilThroughToOne(_ c: ToManyElements, _ sql: String) -> String {
    c.owner == "t" ? sql : "CASE WHEN \(c.owner).\"_pk\" IS NULL THEN NULL ELSE \(sql) END"
  }

  /// SUBQUERY's collection, with its predicate (compiled with `$variable` bound to each
  /// element) added to the correlation.
  mutating func subqueryCollection(_ s: Subquery) throws -> ToManyElements {
    guard case .collection(var c) = try operand(s.collection), let alias = c.elementAlias, let model = c.elementModel else {
      throw PredicateError("SUBQUERY needs a key path ending in a to-many relationship as its collection", offset: s.offset)
    }
    c.materialize()
    subqueryJoins.append([])
    let outer = variables[s.variable]
    variables[s.variable] = Scope(alias: alias, model: model, sink: subqueryJoins.count - 1)
    defer { variables[s.variable] = outer }
    let condition = try compile(s.predicate)
    c.joins += subqueryJoins.removeLast()
    c.correlation += " AND \(condition)"
    return c
  }
}
