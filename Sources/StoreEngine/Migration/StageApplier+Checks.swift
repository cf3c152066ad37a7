import DatabaseKit
import JSONCore
import SchemaModel

/// The checks of the stored data against the new schema's constraints.
extension StageApplier {
  /// Required attributes with nulls get their default; without one, the ids are reported.
  mutating func fillRequired(_ root: EntityModel) throws {
    let table = Identifier.quote(root.name)
    for m in root.hierarchy {
      let filter = codes.filter(codes.column(root.name, alias: "t"), m.concreteNames)
      for a in m.entity.attributes where !a.transient && !a.optional && mayLackValues(m, a) {
        let col = Identifier.quote(a.name)
        let nullFilter = "\(filter) AND t.\(col) IS NULL"
        let missing = try count(root.name, where: nullFilter)
        guard missing > 0 else { continue }
        switch a.defaultValue {
        case .literal(let v)?:
          // One value into several objects may break a uniqueness the attribute is in: its
          // indexes go first and come back with the others (`createIndexes`), which reports
          // the objects that share a value, on every engine, as for a new uniqueness.
          if root.hierarchy.contains(where: { h in
            h.entity.attributes.contains { $0.unique && $0.name == a.name } || h.entity.uniqueness.contains { $0.contains(a.name) }
          }) {
            try dropIndexes(on: root.name, column: a.name)
          }
          try connection.prepare("UPDATE \(table) AS t SET \(col) = ? WHERE \(nullFilter)").execute([try a.type.encode(v)])
          report.steps.append(.init("fill \(m.name).\(a.name) with its default", rows: missing))
        case .generate(let g)?:
          var pks: [Int64] = []
          try connection.prepare("SELECT t.\"_pk\" FROM \(table) t WHERE \(nullFilter) ORDER BY t.\"_pk\"").forEachRow {
            pks.append($0.int(0))
          }
          let update = try connection.prepare("UPDATE \(table) SET \(col) = ? WHERE \"_pk\" = ?")
          for pk in pks {
            try update.execute([g.storedValue(for: a.type), .integer(pk)])
          }
          report.steps.append(.init("fill \(m.name).\(a.name) with generated values", rows: pks.count))
        case nil:
          var ids: [String] = []
          try connection.prepare(
            "SELECT \(codes.column(root.name, alias: "t")), t.\"_pk\" FROM \(table) t WHERE \(nullFilter) ORDER BY t.\"_pk\" LIMIT 20"
          )
          .forEachRow {
            ids.append(ObjectID.text(codes.name($0, 0), $0.int(1)))
          }
          report.blockers.append(
            MigrationReport.place(
              m.name,
              "'\(a.name)' is required and has no default, but \(missing) stored object\(missing == 1 ? " has" : "s have") no value for it",
              attribute: a.name, count: missing, ids: ids))
        }
      }
    }
  }

  /// Links to objects a stage deleted are cleared, as the nullify rule would.
  mutating func clearDanglingLinks() throws {
    for m in new.ordered {
      for r in m.entity.relationships {
        let destTable = Identifier.quote(StorageLayout.table(new[r.destination]!))
        switch StorageLayout.storage(of: r, in: m, graph: new) {
        case .foreignKey(let column):
          let t = Identifier.quote(StorageLayout.table(m))
          let c = Identifier.quote(column)
          try connection.execute("UPDATE \(t) SET \(c) = NULL WHERE \(c) IS NOT NULL AND \(c) NOT IN (SELECT \"_pk\" FROM \(destTable))")
          if connection.changes > 0 {
            report.steps.append(.init("clear links of \(m.name).\(r.name) to deleted objects", rows: connection.changes))
          }
        case .joinTable(let table, let source, let destination, _):
          let t = Identifier.quote(table)
          let ownTable = Identifier.quote(StorageLayout.table(m))
          try connection.execute(
            "DELETE FROM \(t) WHERE \"\(destination)\" NOT IN (SELECT \"_pk\" FROM \(destTable)) OR \"\(source)\" NOT IN (SELECT \"_pk\" FROM \(ownTable))"
          )
          if connection.changes > 0 {
            report.steps.append(.init("remove links of \(m.name).\(r.name) to deleted objects", rows: connection.changes))
          }
        case .inverseForeignKey:
          continue  // the to-one side clears it
        }
      }
    }
  }

  /// Creates the indexes the file lacks (by definition: StageApplier+Indexes); a
  /// uniqueness the stored objects break is reported with them.
  func createIndexes() throws {
    var existing = Set(try managedIndexes().values.map(Self.indexDefinition))
    for root in new.ordered where root.isRoot {
      for sql in StorageLayout.indexSQL(root, graph: new, codes: codes) where existing.insert(Self.indexDefinition(sql)).inserted {
        do {
          // A refused uniqueness is reported with the objects that break it, read after it.
          if connection.dialect.failedStatementAbortsTransaction {
            try connection.inTransaction { try createIndex(sql) }
          } else {
            try createIndex(sql)
          }
        } catch let e as any DatabaseError where e.isConstraint {
          throw try uniquenessConflict(root, e)
        }
      }
    }
  }

  private func uniquenessConflict(_ root: EntityModel, _ e: any DatabaseError) throws -> StoreError {
    let table = Identifier.quote(root.name)
    for m in root.hierarchy {
      for keys in m.entity.attributes.filter(\.unique).map({ [$0.name] }) + m.entity.uniqueness {
        let cols = keys.map(Identifier.quote).joined(separator: ", ")
        // Nil values never conflict; the objects of a group by key, the groups by value
        // (the first 20), so that every engine lists them alike.
        var scope = keys.map { "\(Identifier.quote($0)) IS NOT NULL" }
        if !m.isRoot { scope.append(codes.filter(codes.column(root.name), m.concreteNames)) }
        let filter = "WHERE " + scope.joined(separator: " AND ")
        let id = ObjectID.sql(entity: codes.nameSQL(codes.column(root.name), root.hierarchy.map(\.name)), pk: "\"_pk\"")
        let shared = "SELECT \(cols) FROM \(table) \(filter) GROUP BY \(cols) HAVING count(*) > 1 ORDER BY \(cols) LIMIT 20"
        var groups: [[JSONValue]] = []
        var last: [SQLValue]? = nil
        try connection.prepare(
          "SELECT \(id), \(cols) FROM \(table) \(filter) AND (\(cols)) IN (\(shared)) ORDER BY \(cols), \"_pk\""
        ).forEachRow { row in
          let value = (1...keys.count).map { row.value($0) }
          if value != last { groups.append([]) }
          last = value
          groups[groups.count - 1].append(.string(row.text(0)))
        }
        if !groups.isEmpty {
          return StoreError(
            .constraint,
            "the uniqueness of (\(keys.joined(separator: ", "))) for '\(m.name)' does not hold for the stored objects: \(groups.count) group\(groups.count == 1 ? "" : "s") of objects share a value",
            ["entity": .string(m.name), "keys": .array(keys.map { .string($0) }), "conflicts": .array(groups.map { .array($0) })])
        }
      }
    }
    return StoreError(
      .constraint, "a uniqueness constraint of '\(root.name)' does not hold for the stored objects: \(e.message)",
      ["entity": .string(root.name)])
  }
}
