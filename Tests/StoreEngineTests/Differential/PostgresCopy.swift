import DatabaseKit
import PostgresCore
import SchemaModel
import TestSupport

@testable import StoreEngine

/// The statements that make a PostgreSQL schema hold what a SQLite store holds: the
/// store's own functions (`storeSetupStatements`), then each hierarchy and join table in
/// PostgreSQL's DDL (`StorageLayout` with `PostgresDialect`), its rows as literals, and its
/// indexes. Engine SQL written in PostgreSQL's dialect then runs on it as on the store.
enum PostgresCopy {
  static func statements(of store: Store) throws -> [PostgresScratch.Statement] {
    let dialect = PostgresDialect()
    let graph = try store.requireGraph()
    var out = dialect.storeSetupStatements(folding: TextFolding.table).map { PostgresScratch.Statement($0) }
    for root in graph.ordered where root.isRoot {
      // The store's layout, table by table: `_ent` and `_opt` where it has them.
      let tagged = store.entityCodes.isTagged(root.name)
      let versioned = try store.catalog.versions.has(root.name, store.connection)
      out.append(
        .init(StorageLayout.createTableSQL(root, graph: graph, dialect: dialect, entityColumn: tagged, versionColumn: versioned)))
      let columns =
        [("_pk", ColumnContent.integer)] + (tagged ? [("_ent", .integer)] : []) + (versioned ? [("_opt", .integer)] : [])
        + StorageLayout.columns(ofHierarchy: root, graph: graph)
      out += try rows(of: Identifier.quote(root.name), columns, store, dialect)
      out += StorageLayout.indexSQL(root, graph: graph, codes: store.entityCodes).map { .init($0) }
    }
    for (name, ddl) in StorageLayout.joinTables(graph, dialect: dialect) {
      out += ddl.map { .init($0) }
      out += try rows(of: Identifier.quote(name), ["src", "dst", "spos", "dpos"].map { ($0, .integer) }, store, dialect)
    }
    return out
  }

  /// One INSERT of every row of `table` (none when it is empty).
  private static func rows(
    of table: String, _ columns: [(name: String, content: ColumnContent)], _ store: Store, _ dialect: PostgresDialect
  ) throws -> [PostgresScratch.Statement] {
    let names = columns.map { Identifier.quote($0.name) }.joined(separator: ", ")
    var values: [String] = []
    try store.connection.prepare("SELECT \(names) FROM \(table)").forEachRow { row in
      let literals = columns.indices.map { dialect.defaultLiteral(row.value($0), for: columns[$0].content) ?? "NULL" }
      values.append("(" + literals.joined(separator: ", ") + ")")
    }
    guard !values.isEmpty else { return [] }
    return [.init("INSERT INTO \(table) (\(names)) VALUES " + values.joined(separator: ", "))]
  }
}
