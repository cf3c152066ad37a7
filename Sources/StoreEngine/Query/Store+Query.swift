import DatabaseKit
import JSONCore
import SchemaModel

/// Fetching, counting and batch changes by predicate.
extension Store {
  /// The objects matching `request`, in its sort order.
  public func fetch(_ request: FetchRequest) throws -> [JSONObject] { try fetchWithSections(request).objects }

  /// The objects matching `request` and, when it has `sectionBy`, their sections (the
  /// section key is put first in the sort when the sort does not start with it).
  ///
  /// With `encoded: true` (and no `include`, which needs the objects), the objects are
  /// written row by row straight into one JSON array instead of being built as a tree:
  /// the reply to a large fetch then costs a fraction of the memory and time. To-many
  /// relationships the request asks for are read for the whole page once its rows are
  /// written, and put into place as the array is completed. Every statement reads one
  /// snapshot.
  public func fetchWithSections(_ request: FetchRequest, encoded: Bool = false) throws -> FetchResult {
    // One snapshot: `include` reads the related objects with further statements.
    try readingOneSnapshot {
      let plan = try self.plan(request.entity)
      let read = readPlan(for: plan)
      if let select = request.select {
        for (i, k) in select.enumerated() where plan.model.attribute(k) == nil && plan.model.relationship(k) == nil {
          throw StoreError(
            .validation, at: ErrorPlace(.select).index(i), "'\(k)' is not an attribute or relationship of '\(request.entity)'",
            ["entity": .string(request.entity), "attribute": .string(k)], placeInData: false)
        }
      }
      try validateInclude(request.include, from: plan)
      var builder = SQLBuilder(catalog: catalog, base: plan)
      let filter = try whereClause(request, plan, &builder)
      let section = try request.sectionBy.map { try builder.groupColumn($0, path: ErrorPlace(.sectionBy), zones: timeZones) }
      let order = try builder.orderBy(request.sortGroupingSections)
      var trailing = TrailingArgs(after: builder)
      var sql = section.map { read.selectSQL(appending: $0.sql(&trailing)) } ?? read.selectSQL
      sql += builder.joinSQL + filter + " ORDER BY " + order + limitClause(request)
      let select = request.select.map(Set.init)
      var out: [JSONObject] = []
      var keys: [JSONValue] = []
      let args = trailing.values.isEmpty ? builder.args : builder.args + trailing.values
      if encoded && request.include.isEmpty {
        let toMany = ToManyShape(request.toMany, select: select)
        let writer = ExportRowWriter(
          entity: plan.model.name, read: read,
          keys: (select ?? Set(plan.model.attributes.map(\.name) + plan.model.relationships.map(\.name))).subtracting(
            plan.toMany.map(\.name)))
        let polymorphic = plan.model.concreteNames.count > 1 || plan.model.entity.abstract
        // With to-many members to add, each object is left open: its id and where it ends.
        var open: [(id: ObjectID, end: Int)]? = readsToMany(plan, toMany) ? [] : nil
        var w = JSONWriter(capacity: 1 << 16)
        w.bytes.append(UInt8(ascii: "["))
        var n = 0
        try connection.cached(sql).forEachRow(args) { row in
          if n > 0 { w.bytes.append(UInt8(ascii: ",")) }
          if polymorphic { w.write(read.object(row, select: select)) } else { writer.write(row, to: &w) }
          if open != nil {
            w.bytes.removeLast()  // the object's closing brace
            open!.append((read.id(row), w.bytes.count))
          }
          if let section { keys.append(section.kind.decode(row.value(row.count - 1))) }
          n += 1
          if n & 1023 == 0 { try checkCancelled() }
        }
        w.bytes.append(UInt8(ascii: "]"))
        if let open { w = try closingWithToMany(w, open, toMany) }
        return FetchResult(objects: [], encoded: EncodedJSON(writtenBy: w), sections: section == nil ? nil : Sections.runs(keys))
      }
      try connection.cached(sql).forEachRow(args) { row in
        out.append(read.object(row, select: select))
        if let section { keys.append(section.kind.decode(row.value(row.count - 1))) }
        if out.count & 1023 == 0 { try checkCancelled() }
      }
      try shape(&out, select: select, include: request.include, toMany: request.toMany)
      return FetchResult(objects: out, encoded: nil, sections: section == nil ? nil : Sections.runs(keys))
    }
  }

  /// How many objects match.
  public func count(_ request: FetchRequest) throws -> Int {
    try readingOneSnapshot {
      let (sql, args) = try countStatement(request, dialect: connection.dialect)
      return Int(try connection.cached(sql).first(args) { $0.int(0) } ?? 0)
    }
  }

  /// The statement `count` runs, in `dialect`'s SQL.
  func countStatement(_ request: FetchRequest, dialect: any SQLDialect) throws -> (sql: String, args: [SQLValue]) {
    let plan = try self.plan(request.entity)
    var builder = SQLBuilder(catalog: catalog, base: plan, dialect: dialect)
    let filter = try whereClause(request, plan, &builder)
    return ("SELECT count(*) FROM \(plan.table) t" + builder.joinSQL + filter, builder.args)
  }

  /// The ids of the matching objects, in sort order.
  public func ids(_ request: FetchRequest) throws -> [String] {
    try matchingIDs(request).map(\.description)
  }

  /// The ids of the matching objects in exactly `fetchWithSections`'s order (with
  /// `sectionBy`, the section key first).
  func matchingIDs(_ request: FetchRequest) throws -> [ObjectID] { try matchingIDsAndSections(request).ids }

  /// `matchingIDs` and, with `sectionBy`, the sections `fetchWithSections` would report,
  /// from one statement that builds no objects.
  func matchingIDsAndSections(_ request: FetchRequest) throws -> (ids: [ObjectID], sections: [Section]?) {
    try readingOneSnapshot {
      let (sql, args, section) = try idsStatement(request, dialect: connection.dialect)
      var out: [ObjectID] = []
      var keys: [JSONValue] = []
      try connection.cached(sql).forEachRow(args) { row in
        out.append(ObjectID(entity: entityCodes.name(row, 0), pk: row.int(1)))
        if let section { keys.append(section.kind.decode(row.value(2))) }
      }
      return (out, section == nil ? nil : Sections.runs(keys))
    }
  }

  /// The statement `matchingIDsAndSections` runs, in `dialect`'s SQL: rows of `_ent`,
  /// `_pk` and, with `sectionBy`, the section key.
  func idsStatement(_ request: FetchRequest, dialect: any SQLDialect) throws -> (sql: String, args: [SQLValue], section: GroupedColumn?) {
    let plan = try self.plan(request.entity)
    var builder = SQLBuilder(catalog: catalog, base: plan, dialect: dialect)
    let filter = try whereClause(request, plan, &builder)
    let section = try request.sectionBy.map { try builder.groupColumn($0, path: ErrorPlace(.sectionBy), zones: timeZones) }
    let order = try builder.orderBy(request.sortGroupingSections)
    var trailing = TrailingArgs(after: builder)
    let key = section.map { ", " + $0.sql(&trailing) } ?? ""
    let limit = dialect.limitClause(limit: request.limit, offset: request.offset)
    let sql =
      "SELECT \(entityCodes.column(plan.tableName, alias: "t")), t.\"_pk\"\(key) FROM \(plan.table) t" + builder.joinSQL + filter
      + " ORDER BY " + order + limit
    return (sql, builder.args + trailing.values, section)
  }

  /// Applies `values` to every matching object, with the same validation and inverse
  /// upkeep as `objects.update`; all or nothing. Returns the ids updated.
  public func updateWhere(_ request: FetchRequest, values: JSONObject) throws -> [String] {
    try write {
      let ids = try matchingIDs(request)
      let ctx = WriteContext()
      for (i, id) in ids.enumerated() {
        if i & 255 == 0 { try checkCancelled() }
        try updateObject(id, values, ctx, path: ErrorPlace(.values))
      }
      try finish(ctx)
      return ids.map(\.description)
    }
  }

  /// Deletes every matching object with delete rules applied; all or nothing. Returns
  /// every id removed (matches first, then what cascaded).
  public func deleteWhere(_ request: FetchRequest) throws -> [String] {
    try write {
      let ctx = WriteContext()
      let removed = try deleteObjects(try matchingIDs(request), ctx)
      try finish(ctx)
      return removed.map(\.description)
    }
  }

  /// The WHERE clause; joins it needs are left in `builder` (read them after the sort
  /// keys are compiled, which may add more).
  func whereClause(_ request: FetchRequest, _ plan: EntityPlan, _ builder: inout SQLBuilder) throws -> String {
    var conditions: [String] = []
    let entityFilter = plan.entityFilter(alias: "t", deep: request.includeSubentities)
    if !entityFilter.isEmpty { conditions.append(entityFilter) }
    if let p = request.predicate {
      builder.locations = request.predicateLocations
      builder.predicatePlace = request.predicatePlace
      do {
        conditions.append(try builder.compile(p))
      } catch let e as PredicateError {
        throw StoreError.predicate(e, at: request.predicatePlace, locations: request.predicateLocations, entity: request.entity)
      }
    }
    return conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
  }

  /// Limits are validated non-negative by the caller.
  private func limitClause(_ r: FetchRequest) -> String { connection.dialect.limitClause(limit: r.limit, offset: r.offset) }
}
