import DatabaseKit
import SchemaModel

/// TEMP views over an attached Core Data store with exactly the names and columns of
/// ModelStore's storage layout (`StorageLayout`): one per hierarchy (`_pk`, `_ent` as an
/// entity code, `_opt`, then every attribute and to-one key, values converted by
/// `CoreDataValues`) and one per join table (`src`, `dst`, `spos`, `dpos`). The query
/// engine runs unchanged against them; the import copies from them. The codes are those
/// of the store reading the views: Core Data's own `Z_ENT` numbers for a store opened in
/// place, the target store's codes for an import.
enum CoreDataViews {
  struct View {
    /// The storage-layout table the view stands for.
    var table: String
    /// Its columns, in order.
    var columns: [String]
    /// What it reads: the Core Data table (qualified and quoted), or the subquery that
    /// reads its keys as integers (`CoreDataRows`).
    var source: String
    /// True when `source` is the table itself, whose Z_PK is its rowid: a range of keys is
    /// a seek (the import copies a hierarchy in such ranges).
    var keyedByRowid = false
    var sql: String
  }

  /// The views for `graph` (the schema built from `mapping`); each is named `prefix + table`;
  /// `_ent` holds `codes`' code of each entity.
  static func views(_ mapping: CoreDataMapping, graph: ModelGraph, prefix: String, codes: EntityCodes) -> [View] {
    let rows = mapping.rows
    var out: [View] = []
    for root in graph.ordered where root.isRoot {
      guard let table = mapping.entities.first(where: { $0.entity.name == root.name })?.table else { continue }
      let names = Set(root.hierarchy.map(\.name))
      // Core Data reads every row of a one-entity table as that entity, whatever its Z_ENT.
      var ent = codes.code(root.name).map(String.init) ?? "NULL"
      if root.hasSubentities {
        ent = "CASE t.\"Z_ENT\""
        for e in mapping.entities where names.contains(e.entity.name) {
          if let code = codes.code(e.entity.name) { ent += " WHEN \(e.entity.number) THEN \(code)" }
        }
        ent += " END"
      }
      var select = ["t.\"Z_PK\" AS \"_pk\"", "\(ent) AS \"_ent\"", "coalesce(t.\"Z_OPT\", 1) AS \"_opt\""]
      var columns = ["_pk", "_ent", "_opt"]
      // A table of one entity written by this version has no `_ent` (in place, views have it).
      if !codes.isTagged(root.name) {
        select.remove(at: 1)
        columns.remove(at: 1)
      }
      // Sibling sub-entities with an attribute or a to-one of the same name: one ModelStore
      // column, one Core Data column each (`ZTITLE`, `ZTITLE1`), read by the row's entity.
      func bySubEntity(_ sources: [(entity: String, expression: String)]) -> String {
        guard sources.count > 1 else { return sources[0].expression }
        var expression = "CASE"
        for (entity, value) in sources {
          let numbers = (graph[entity]?.concreteNames ?? []).compactMap { mapping.number(of: $0) }.map(String.init)
          expression += " WHEN t.\"Z_ENT\" IN (\(numbers.joined(separator: ", "))) THEN \(value)"
        }
        return expression + " END"
      }
      for c in StorageLayout.columns(ofHierarchy: root, graph: graph) {
        var expression: String
        let attributes = mapping.attributes.filter { names.contains($0.entity) && $0.name == c.name }
        let toOnes = mapping.toOnes.filter { names.contains($0.entity) && $0.name == c.name }
        if !attributes.isEmpty {
          expression = bySubEntity(attributes.map { ($0.entity, CoreDataValues.expression($0.kind, "t." + Identifier.quote($0.column))) })
        } else if c.name.hasPrefix("_pos_"), let source = mapping.layout.tables[table],
          case let fok = "Z_FOK_" + c.name.dropFirst(5).uppercased(), source.has(fok)
        {
          expression = "t." + Identifier.quote(fok)
        } else if !toOnes.isEmpty {
          expression = bySubEntity(toOnes.map { ($0.entity, "t." + Identifier.quote($0.column)) })
        } else {
          expression = "NULL"
        }
        select.append("\(expression) AS \(Identifier.quote(c.name))")
        columns.append(c.name)
      }
      let from = rows.source(table, mapping.layout)
      out.append(
        View(
          table: root.name, columns: columns, source: from, keyedByRowid: rows.converted[table] == nil,
          sql: "CREATE TEMP VIEW \(Identifier.quote(prefix + root.name)) AS SELECT \(select.joined(separator: ", ")) FROM \(from) t"))
    }
    var joinColumns: [String: (source: String, columns: [String: String], ownerKey: String?)] = [:]
    for m in graph.ordered {
      for r in m.entity.relationships {
        guard case .joinTable(let table, let src, let dst, let pos) = StorageLayout.storage(of: r, in: m, graph: graph) else { continue }
        for j in mapping.joins {
          guard let i = j.sides.firstIndex(where: { $0.owner == m.name && $0.name == r.name }) else { continue }
          let mine = j.sides[i]
          let other = j.sides[1 - i]
          var entry = joinColumns[table] ?? (j.table, [:], j.ownerKey)
          entry.columns[src] = "j." + Identifier.quote(other.column)
          entry.columns[dst] = "j." + Identifier.quote(mine.column)
          entry.columns[pos] = mine.positionColumn.map { "coalesce(j.\(Identifier.quote($0)), 0)" } ?? "0"
          joinColumns[table] = entry
        }
      }
    }
    for (table, entry) in joinColumns.sorted(by: { $0.key < $1.key }) {
      let select = ["src", "dst", "spos", "dpos"].map { "\(entry.columns[$0] ?? "0") AS \"\($0)\"" }
      let from = rows.source(entry.source, mapping.layout)
      let links = entry.ownerKey.map { " WHERE j.\(Identifier.quote($0)) IS NOT NULL" } ?? ""
      out.append(
        View(
          table: table, columns: ["src", "dst", "spos", "dpos"], source: from,
          sql: "CREATE TEMP VIEW \(Identifier.quote(prefix + table)) AS SELECT \(select.joined(separator: ", ")) FROM \(from) j\(links)"))
    }
    return out
  }
}
