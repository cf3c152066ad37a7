import DatabaseKit
import JSONCore
import SchemaModel

/// Runs a custom stage's declarative transforms. They run after `expand` (the new columns
/// and tables exist, the new schema is installed) and before `contract`, so the columns
/// the stage removes can still be read.
extension StageApplier {
  mutating func run(_ transform: MigrationTransform, path: ErrorPlace, store: Store) throws {
    let target = try entity(transform.entity, path)
    transformsRan = true
    switch transform {
    case .copy(_, let from, let to, let rule):
      let rows = try copyColumn(target, from: from, to: to, rule: rule, path: path)
      report.steps.append(.init("copy \(target.name).\(from) to \(to)", rows: rows))
    case .rename(_, let from, let to):
      let rows = try copyColumn(target, from: from, to: to, rule: .fail, path: path)
      moved.insert("\(target.root.name).\(from)")
      report.steps.append(.init("move \(target.name).\(from) to \(to)", rows: rows))
    case .convert(_, let name, _):
      _ = try attribute(of: target, name, path)  // applied while converting, in expand
    case .compute(_, let name, let predicate, let value, let key):
      let rows = try compute(target, name, predicate: predicate, value: value, key: key, path: path, store: store)
      report.steps.append(.init("compute \(target.name).\(name)", rows: rows))
    case .split(_, let relationship, let to, let keys):
      let rows = try split(target, relationship, to: to, keys: keys, path: path)
      report.steps.append(.init("split \(target.name) into \(to) through '\(relationship)'", rows: rows))
    case .merge(_, let relationship, let keys, let removes):
      let rows = try merge(target, relationship, keys: keys, removes: removes, path: path)
      report.steps.append(.init("merge into \(target.name) through '\(relationship)'", rows: rows))
    }
  }

  private func entity(_ name: String, _ path: ErrorPlace) throws -> EntityModel {
    guard let m = new[name] else { throw MigrationStageDecoder.bad(path.key("entity"), "the new schema has no entity '\(name)'") }
    return m
  }

  private func attribute(of m: EntityModel, _ name: String, _ path: ErrorPlace) throws -> Attribute {
    guard let a = m.attribute(name), !a.transient else {
      throw MigrationStageDecoder.bad(path, "'\(m.name)' has no stored attribute '\(name)' in the new schema")
    }
    return a
  }

  /// The type of a column in the stage's tables: the new schema's attribute, else the old one's.
  private func columnType(_ m: EntityModel, _ column: String, _ path: ErrorPlace) throws -> AttributeType {
    if let a = m.attribute(column), !a.transient { return a.type }
    if let a = old?[m.name]?.attribute(column), !a.transient { return a.type }
    throw MigrationStageDecoder.bad(path, "'\(m.name)' has no stored attribute '\(column)' in either version")
  }

  /// Converts rows of `(pk, stored value)` to `type` and writes them to `column`.
  private mutating func write(
    _ rows: [(Int64, SQLValue)], from: AttributeType, to a: Attribute, table: String, rule: ValueConversion.Rule, entity: String,
    path: ErrorPlace
  ) throws -> Int {
    let update = try connection.prepare("UPDATE \(Identifier.quote(table)) SET \(Identifier.quote(a.name)) = ? WHERE \"_pk\" = ?")
    let defaultValue = try a.storedLiteralDefault()
    var failing: [String] = []
    for (pk, stored) in rows {
      guard let v = ValueConversion.convert(stored, from: from, to: a.type, rule: rule, defaultValue: defaultValue) else {
        failing.append(ObjectID.text(entity, pk))
        continue
      }
      try update.execute([v, .integer(pk)])
    }
    if !failing.isEmpty {
      throw StoreError(
        .migrationRequired, at: path,
        "\(failing.count) value\(failing.count == 1 ? "" : "s") of \(entity) do not convert from \(from.rawValue) to \(a.type.rawValue)"
          + (rule == .fail ? "; give a 'rule'" : " with rule '\(rule.rawValue)'"),
        [
          "entity": .string(entity), "attribute": .string(a.name),
          "ids": .array(failing.prefix(20).map { .string($0) }),
        ])
    }
    return rows.count
  }

  private mutating func copyColumn(_ m: EntityModel, from: String, to: String, rule: ValueConversion.Rule, path: ErrorPlace) throws -> Int {
    let target = try attribute(of: m, to, path)
    let fromType = try columnType(m, from, path)
    guard try existingColumns(m.root.name)[from] != nil else {
      throw MigrationStageDecoder.bad(path, "'\(m.name).\(from)' has no stored column")
    }
    var rows: [(Int64, SQLValue)] = []
    try connection.prepare(
      "SELECT \"_pk\", \(Identifier.quote(from)) FROM \(Identifier.quote(m.root.name)) WHERE \(codes.filter(codes.column(m.root.name), m.concreteNames)) ORDER BY \"_pk\""
    ).forEachRow { rows.append(($0.int(0), $0.value(1))) }
    return try write(rows, from: fromType, to: target, table: m.root.name, rule: rule, entity: m.name, path: path)
  }

  private mutating func compute(
    _ m: EntityModel, _ name: String, predicate: Predicate?, value: JSONValue?, key: String?, path: ErrorPlace, store: Store
  ) throws -> Int {
    let target = try attribute(of: m, name, path)
    let plan = try store.plan(m.name)
    var builder = SQLBuilder(catalog: store.catalog, base: plan)
    var source = "NULL"
    var sourceType = target.type
    if let key {
      do {
        guard case .attribute(let type, let sql) = try builder.resolve(key.split(separator: ".").map(String.init), offset: 0) else {
          throw MigrationStageDecoder.bad(path.key("key"), "'\(key)' must end in an attribute")
        }
        source = sql
        sourceType = type
      } catch let e as PredicateError {
        throw MigrationStageDecoder.bad(path.key("key"), ErrorText(e.message))
      }
    }
    let request = FetchRequest(entity: m.name, predicate: predicate)
    let filter: String
    do { filter = try store.whereClause(request, plan, &builder) } catch let e as StoreError where e.kind == .predicate {
      throw MigrationStageDecoder.bad(path.key("where"), e.text)
    }
    var rows: [(Int64, SQLValue)] = []
    let literal: SQLValue? = try value.map { v in
      do { return try target.type.encode(v) } catch let e as ValueError {
        throw MigrationStageDecoder.bad(path.key("value"), "\(e.message) for \(m.name).\(name)")
      }
    }
    try connection.prepare("SELECT t.\"_pk\", \(source) FROM \(plan.table) t" + builder.joinSQL + filter + " ORDER BY t.\"_pk\"")
      .forEachRow(
        builder.args
      ) {
        rows.append(($0.int(0), literal ?? $0.value(1)))
      }
    return try write(rows, from: sourceType, to: target, table: m.root.name, rule: .fail, entity: m.name, path: path)
  }

  /// Each object's values for `keys` go to a new destination object linked through a to-one.
  private mutating func split(_ m: EntityModel, _ relationship: String, to: String, keys: [(String, String)], path: ErrorPlace) throws
    -> Int
  {
    guard let r = m.relationship(relationship), !r.toMany, r.destination == to, let dest = new[to], !dest.entity.abstract else {
      throw MigrationStageDecoder.bad(
        path.key("relationship"), "'\(m.name).\(relationship)' must be a to-one relationship to a concrete entity '\(to)'")
    }
    let targets = try keys.map { (try columnType(m, $0.0, path), try attribute(of: dest, $0.1, path)) }
    let sourceTable = Identifier.quote(m.root.name)
    let columns = keys.map { Identifier.quote($0.0) }.joined(separator: ", ")
    var rows: [(Int64, [SQLValue])] = []
    try connection.prepare(
      "SELECT \"_pk\", \(columns) FROM \(sourceTable) WHERE \(codes.filter(codes.column(m.root.name), m.concreteNames)) AND \(Identifier.quote(relationship)) IS NULL ORDER BY \"_pk\""
    ).forEachRow { row in rows.append((row.int(0), (0..<keys.count).map { row.value($0 + 1) })) }
    // The destination's other attributes get the schema's literal default or null (never
    // a column's DEFAULT kept from an older version); generated ones are filled in contract.
    let others = dest.attributes.filter { a in !a.transient && !keys.contains { $0.1 == a.name } }
    let otherValues = try others.map { try $0.storedLiteralDefault() ?? .null }
    let destColumns = keys.map { Identifier.quote($0.1) } + others.map { Identifier.quote($0.name) }
    let destTagged = codes.isTagged(dest.root.name)
    let insert = try connection.prepare(
      "INSERT INTO \(Identifier.quote(dest.root.name)) (\"_pk\", \(destTagged ? "\"_ent\", " : "")\(destColumns.joined(separator: ", "))) VALUES (?, \(destTagged ? "?, " : "")\(destColumns.map { _ in "?" }.joined(separator: ", ")))"
    )
    let link = try connection.prepare("UPDATE \(sourceTable) SET \(Identifier.quote(relationship)) = ? WHERE \"_pk\" = ?")
    let inverse = new.inverse(of: r).flatMap { $0.toMany ? nil : $0 }
    let back = try inverse.map {
      try connection.prepare("UPDATE \(Identifier.quote(dest.root.name)) SET \(Identifier.quote($0.name)) = ? WHERE \"_pk\" = ?")
    }
    for (pk, values) in rows {
      let newPK = try self.keys.allocate(dest.root.name)
      var converted: [SQLValue] = destTagged ? [.integer(newPK), .integer(codes.code(dest.name)!)] : [.integer(newPK)]
      for (i, v) in values.enumerated() {
        guard let c = ValueConversion.convert(v, from: targets[i].0, to: targets[i].1.type) else {
          throw StoreError(
            .migrationRequired, at: path, "\(ObjectID.text(m.name, pk)).\(keys[i].0) does not convert to \(to).\(keys[i].1)",
            ["id": .string(ObjectID.text(m.name, pk))])
        }
        converted.append(c)
      }
      try insert.execute(converted + otherValues)
      try link.execute([.integer(newPK), .integer(pk)])
      try back?.execute([.integer(pk), .integer(newPK)])
    }
    for (from, _) in keys { moved.insert("\(m.root.name).\(from)") }
    return rows.count
  }

  /// Copies values from the object a to-one of the old version reaches.
  private mutating func merge(_ m: EntityModel, _ relationship: String, keys: [(String, String)], removes: Bool, path: ErrorPlace) throws
    -> Int
  {
    guard let oldModel = old?[m.name], let r = oldModel.relationship(relationship), !r.toMany, let source = old?[r.destination] else {
      throw MigrationStageDecoder.bad(
        path.key("relationship"), "'\(m.name).\(relationship)' must be a to-one relationship of the old version")
    }
    let sourceTable = Identifier.quote(source.root.name)
    var written = 0
    for (from, to) in keys {
      guard let a = source.attribute(from), !a.transient else {
        throw MigrationStageDecoder.bad(path.key("keys").key(from), "'\(source.name)' has no stored attribute '\(from)'")
      }
      let target = try attribute(of: m, to, path)
      var rows: [(Int64, SQLValue)] = []
      try connection.prepare(
        "SELECT t.\"_pk\", s.\(Identifier.quote(from)) FROM \(Identifier.quote(m.root.name)) t JOIN \(sourceTable) s ON s.\"_pk\" = t.\(Identifier.quote(relationship)) WHERE \(codes.filter(codes.column(m.root.name, alias: "t"), m.concreteNames)) ORDER BY t.\"_pk\""
      ).forEachRow { rows.append(($0.int(0), $0.value(1))) }
      written = max(written, try write(rows, from: a.type, to: target, table: m.root.name, rule: .fail, entity: m.name, path: path))
    }
    if removes {
      moved.insert(source.root.name)
      moved.insert("entity:\(source.name)")
      moved.insert("\(m.root.name).\(relationship)")
    }
    return written
  }
}
