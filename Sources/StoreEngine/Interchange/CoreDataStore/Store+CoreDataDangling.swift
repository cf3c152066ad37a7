import DatabaseKit
import JSONCore
import SchemaModel

extension Store {
  /// After an import: to-one keys and join rows that point at no object of the
  /// destination entity (Core Data leaves them when a row was deleted outside its
  /// context; it faults on them) are cleared, each kind reported as one warning.
  func clearDanglingKeys(_ graph: ModelGraph) throws -> [JSONValue] {
    var warnings: [JSONValue] = []
    func names(_ m: EntityModel) -> String { entityCodes.list(m.concreteNames) }
    func ent(_ m: EntityModel, _ alias: String) -> String { entityCodes.column(m.root.name, alias: alias) }
    /// One warning for the rows the last statement changed, if any.
    func note(_ what: String, _ m: EntityModel, _ r: Relationship) {
      let n = connection.changes
      guard n > 0 else { return }
      warnings.append(
        .object([
          "message": .string("\(n) \(m.name).\(r.name) \(what)"), "entity": .string(m.name), "relationship": .string(r.name),
          "count": .int(Int64(n)),
        ]))
    }
    for m in graph.ordered {
      for r in m.entity.relationships {
        guard let dest = graph[r.destination] else { continue }
        let destTable = "main." + Identifier.quote(dest.root.name)
        switch StorageLayout.storage(of: r, in: m, graph: graph) {
        case .foreignKey(let column):
          let col = "t." + Identifier.quote(column)
          try connection.execute(
            "UPDATE main.\(Identifier.quote(m.root.name)) AS t SET \(Identifier.quote(column)) = NULL WHERE \(ent(m, "t")) IN (\(names(m))) AND \(col) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(destTable) d WHERE d.\"_pk\" = \(col) AND \(ent(dest, "d")) IN (\(names(dest))))"
          )
          note("key(s) pointed at no \(dest.name) object and were cleared", m, r)
        case .joinTable(let table, let src, let dst, _) where src == "src":
          try connection.execute(
            "DELETE FROM main.\(Identifier.quote(table)) AS j WHERE NOT EXISTS (SELECT 1 FROM main.\(Identifier.quote(m.root.name)) s WHERE s.\"_pk\" = j.\(Identifier.quote(src)) AND \(ent(m, "s")) IN (\(names(m)))) OR NOT EXISTS (SELECT 1 FROM \(destTable) d WHERE d.\"_pk\" = j.\(Identifier.quote(dst)) AND \(ent(dest, "d")) IN (\(names(dest))))"
          )
          note("link(s) pointed at missing objects and were dropped", m, r)
        default: break
        }
      }
    }
    return warnings
  }
}
