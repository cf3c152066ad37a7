import DatabaseKit
import JSONCore
import SchemaModel

/// `query.aggregate`: grouped counts, sums, averages, minima and maxima, computed by
/// the database in one statement:
///
///     SELECT * FROM (SELECT <group> AS "_g0", ..., <fn> AS "_a0", ...
///                    FROM table t <joins> WHERE <where> GROUP BY <group>, ...)
///     WHERE <having> ORDER BY <sort>, "_g0", ... LIMIT ... OFFSET ...
///
/// The subquery lets `having` and `sort` name its columns whether or not there is a GROUP BY.
extension Store {
  public func aggregate(_ request: AggregateRequest) throws -> [AggregateGroup] {
    try readingOneSnapshot {
      let statement = try aggregateStatement(request, dialect: connection.dialect)
      let (groups, kinds) = (statement.groups, statement.kinds)
      var out: [AggregateGroup] = []
      do {
        try connection.cached(statement.sql).forEachRow(statement.args) { row in
          var key = JSONObject()
          for (i, g) in groups.enumerated() { key.append(g.name, g.kind.decode(row.value(i))) }
          var vals = JSONObject()
          for (i, a) in request.aggregates.enumerated() { vals.append(a.alias, kinds[i].decode(row.value(groups.count + i))) }
          out.append(AggregateGroup(key: key, values: vals))
          if out.count & 1023 == 0 { try checkCancelled() }
        }
      } catch let e as any DatabaseError where e.isIntegerOverflow {
        throw overflow(request, kinds) ?? StoreError(sqlite: e)
      }
      return out
    }
  }

  /// The statement `aggregate` runs, in `dialect`'s SQL: a row per group, its keys (as
  /// `groups` read them) then its aggregates (as `kinds` read them).
  func aggregateStatement(_ request: AggregateRequest, dialect: any SQLDialect) throws -> (
    sql: String, args: [SQLValue], groups: [GroupedColumn], kinds: [ColumnKind]
  ) {
    let plan = try self.plan(request.entity)
    guard !request.aggregates.isEmpty || !request.groupBy.isEmpty else {
      throw StoreError(
        .invalidArgument, at: ErrorPlace(.aggregates), "give at least one aggregate (or a groupBy to list distinct keys)")
    }
    var builder = SQLBuilder(catalog: catalog, base: plan, dialect: dialect)
    var scope = FetchRequest(entity: request.entity, predicate: request.predicate)
    scope.includeSubentities = request.includeSubentities
    let filter = try whereClause(scope, plan, &builder)
    let groups = try request.groupBy.enumerated().map { i, key in
      try builder.groupColumn(key, path: ErrorPlace(.groupBy).index(i), zones: timeZones)
    }
    try checkNames(request, groups)
    var values: [(sql: String, kind: ColumnKind)] = []
    for (i, a) in request.aggregates.enumerated() {
      values.append(try aggregateColumn(a, path: ErrorPlace(.aggregates).index(i), &builder))
    }

    var args = TrailingArgs(after: builder)
    let groupSQL = groups.map { $0.sql(&args) }
    var inner = (groupSQL.enumerated().map { "\($1) AS \"_g\($0)\"" } + values.enumerated().map { "\($1.sql) AS \"_a\($0)\"" })
    if inner.isEmpty { inner = ["1"] }
    var select = "SELECT " + inner.joined(separator: ", ") + " FROM \(plan.table) t" + builder.joinSQL + filter
    if !groupSQL.isEmpty { select += " GROUP BY " + groupSQL.joined(separator: ", ") }
    var sql = "SELECT * FROM " + dialect.derivedTable(select)

    var columns: [String: (sql: String, kind: ColumnKind)] = [:]
    for (i, g) in groups.enumerated() { columns[g.name] = ("\"_g\(i)\"", g.kind) }
    for (i, a) in request.aggregates.enumerated() {
      // A total that is NULL for no values is 0 to `having` and `sort` too.
      columns[a.alias] = (values[i].kind == .total ? "coalesce(\"_a\(i)\", 0)" : "\"_a\(i)\"", values[i].kind)
    }
    if let having = request.having {
      let compiler = HavingCompiler(columns: columns, names: groups.map(\.name) + request.aggregates.map(\.alias))
      do { sql += " WHERE " + (try compiler.compile(having, &args)) } catch let e as PredicateError {
        throw StoreError.predicate(e, at: ErrorPlace(.having))
      }
    }
    sql += try orderClause(request, groups, columns, dialect)
    sql += dialect.limitClause(limit: request.limit, offset: request.offset)
    return (sql, builder.args + args.values, groups, values.map(\.kind))
  }

  /// The error for an integer sum beyond 64 bits, naming the integer sums that may be it;
  /// nil when there are none (the sum is an `@sum` of the predicate).
  private func overflow(_ request: AggregateRequest, _ kinds: [ColumnKind]) -> StoreError? {
    let sums = request.aggregates.indices.filter { request.aggregates[$0].function == .sum && kinds[$0] == .count }
    guard !sums.isEmpty else { return nil }
    let path = sums.count == 1 ? ErrorPlace(.aggregates).index(sums[0]) : ErrorPlace(.aggregates)
    let names = sums.map { "sum(\(request.aggregates[$0].keyPath ?? ""))" }.joined(separator: ", ")
    return StoreError(
      .invalidArgument, at: path,
      "\(names) is beyond 64 bits (-9223372036854775808 ... 9223372036854775807) over the stored integers",
      ["reason": "integerOverflow"])
  }

  /// Aliases are identifiers, unique, and distinct from the group names, which are unique too.
  private func checkNames(_ request: AggregateRequest, _ groups: [GroupedColumn]) throws {
    var taken: [String: ErrorPlace] = [:]
    for (i, g) in groups.enumerated() {
      let path = ErrorPlace(.groupBy).index(i)
      if let alias = request.groupBy[i].alias, !Names.isIdentifier(alias) {
        throw StoreError(
          .invalidArgument, at: path.key("as"), "'\(alias)' is not an identifier (a letter, then letters, digits or '_')")
      }
      if let other = taken[g.name] {
        throw StoreError(
          .invalidArgument, at: path, "the group name '\(g.name)' is already used by \(place: other); name this one with \"as\"")
      }
      taken[g.name] = path
    }
    for (i, a) in request.aggregates.enumerated() {
      let path = ErrorPlace(.aggregates).index(i).key("as")
      guard Names.isIdentifier(a.alias) else {
        throw StoreError(
          .invalidArgument, at: path, "'\(a.alias)' is not an identifier (a letter, then letters, digits or '_')")
      }
      if let other = taken[a.alias] {
        throw StoreError(.invalidArgument, at: path, "'\(a.alias)' is already used by \(place: other)")
      }
      taken[a.alias] = path
    }
  }

  /// The SQL of one aggregate and what its value is; checks the function suits the key.
  private func aggregateColumn(_ a: Aggregate, path: ErrorPlace, _ builder: inout SQLBuilder) throws -> (sql: String, kind: ColumnKind) {
    let dialect = builder.dialect
    let fn = a.function.rawValue
    if a.distinct && (a.function == .min || a.function == .max) {
      throw builder.invalid("distinct applies to count, sum and avg, not \(fn)", path.key("distinct"))
    }
    guard let keyPath = a.keyPath else {
      guard a.function == .count else { throw builder.invalid("\(fn) needs a key", path.key("key")) }
      if a.distinct { throw builder.invalid("count distinct needs a key", path.key("distinct")) }
      return ("count(*)", .count)
    }
    var (column, kind) = try builder.keyPathColumn(keyPath, path: path.key("key"))
    let distinct = a.distinct ? "DISTINCT " : ""
    if a.function == .count { return ("count(\(distinct)\(column))", .count) }

    let type: AttributeType
    switch kind {
    case .attribute(let t): type = t
    case .count: type = .int
    default:
      throw builder.invalid("\(fn) needs an attribute, but '\(keyPath)' is a to-one relationship", path.key("key"))
    }
    if type == .decimal {
      // Stored as canonical text; aggregated as a number.
      column = dialect.castToReal(column)
      kind = .number
    }
    switch a.function {
    case .sum, .avg:
      guard type.isNumeric else {
        throw builder.invalid("\(fn) needs a numeric attribute, but '\(keyPath)' is \(type.rawValue)", path.key("key"))
      }
      // As NSExpression's sum:, the sum of no values is 0; a sum that is not a number
      // (+inf and -inf together, which SQLite gives as NULL) stays null.
      let integers = kind == .count || type.isInteger
      if a.function == .sum {
        let sum = dialect.total("\(distinct)\(column)", integers: integers)
        return (sum, integers ? .count : dialect.totalOfNoRealsIsNull ? .total : .number)
      }
      return (dialect.average("\(distinct)\(column)", integers: integers), .number)
    default:
      guard type.isNumeric || type == .date || type == .string else {
        throw builder.invalid(
          "\(fn) needs a number, date or string attribute, but '\(keyPath)' is \(type.rawValue)", path.key("key"))
      }
      return ("\(fn)(\(column))", kind)
    }
  }

  private func orderClause(
    _ request: AggregateRequest, _ groups: [GroupedColumn], _ columns: [String: (sql: String, kind: ColumnKind)],
    _ dialect: any SQLDialect
  ) throws -> String {
    var terms: [String] = []
    for (i, k) in request.sort.enumerated() {
      guard let (sql, kind) = columns[k.key] else {
        let names = (groups.map(\.name) + request.aggregates.map(\.alias)).map { "'\($0)'" }.joined(separator: ", ")
        throw StoreError(
          .invalidArgument, at: ErrorPlace(.sort).index(i).key("key"), "'\(k.key)' is not a group key or aggregate alias (use \(names))")
      }
      let expr = kind.isDecimal ? dialect.castToReal(sql) : sql
      terms.append(dialect.orderTerm(expr, k.ascending ? .ascending : .descending))
    }
    // Then by every group key, so the order is always defined.
    for (i, g) in groups.enumerated() { terms.append(dialect.orderTerm(g.orderSQL("\"_g\(i)\"", dialect), .ascending)) }
    return terms.isEmpty ? "" : " ORDER BY " + terms.joined(separator: ", ")
  }
}

extension ColumnKind {
  var isDecimal: Bool { if case .attribute(.decimal) = self { return true } else { return false } }
}
