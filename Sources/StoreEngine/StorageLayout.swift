import DatabaseKit
import SchemaModel

/// How a relationship is kept in SQLite.
public enum RelationshipStorage: Equatable {
  /// To-one: a column of the source hierarchy's table holding the destination's key.
  case foreignKey(column: String)
  /// To-many whose inverse is to-one: the inverse's column in the destination table,
  /// with a position column there when the to-many side is ordered.
  case inverseForeignKey(table: String, column: String, positionColumn: String?)
  /// To-many otherwise (many-to-many, or no inverse): a join table. `sourceColumn` holds
  /// this side's key; `positionColumn` this side's order.
  case joinTable(table: String, sourceColumn: String, destinationColumn: String, positionColumn: String)
}

/// The mapping from a schema to tables and columns, Core Data style: one table per
/// inheritance hierarchy (`_pk`, `_ent` the entity's code in `_ms_entities` where the
/// hierarchy has several entities, `_opt` once a row was updated, then every stored attribute and to-one key of every entity in it), join tables for to-many
/// relationships without a to-one inverse. All names are quoted where they are used; see
/// `Identifier.quote`. protocol.md's "Store file layout" documents it.
public enum StorageLayout {
  public static let metaTable = "_ms_meta"
  public static let versionsTable = "_ms_schema_versions"

  public static func table(_ e: EntityModel) -> String { e.root.name }

  public static func positionColumn(forInverse inverse: String) -> String { "_pos_\(inverse)" }

  public static func storage(of r: Relationship, in source: EntityModel, graph: ModelGraph) -> RelationshipStorage {
    if !r.toMany { return .foreignKey(column: r.name) }
    let dest = graph[r.destination]!
    if let inv = graph.inverse(of: r), !inv.toMany {
      return .inverseForeignKey(
        table: table(dest), column: inv.name, positionColumn: r.ordered ? positionColumn(forInverse: inv.name) : nil)
    }
    // Many-to-many pairs share one table, named after the side that sorts first.
    let owner = owningEntity(of: r, in: source, graph: graph)
    let mine = "\(owner.name).\(r.name)"
    if let invName = r.inverse {
      let other = "\(r.destination).\(invName)"
      if other < mine {
        return .joinTable(
          table: joinTableName(r.destination, invName), sourceColumn: "dst", destinationColumn: "src", positionColumn: "dpos")
      }
    }
    return .joinTable(table: joinTableName(owner.name, r.name), sourceColumn: "src", destinationColumn: "dst", positionColumn: "spos")
  }

  /// `_J_Entity.relationship`: the dot cannot occur in a name, so two pairs never collide.
  static func joinTableName(_ entity: String, _ relationship: String) -> String { "_J_\(entity).\(relationship)" }

  /// True for a to-many that is its own inverse (`Person.friends` ↔ `Person.friends`): the
  /// validator only allows that when it points back at the entity declaring it.
  public static func isSelfInverse(_ r: Relationship, in e: EntityModel, graph: ModelGraph) -> Bool {
    r.toMany && r.inverse == r.name && r.destination == owningEntity(of: r, in: e, graph: graph).name
  }

  /// For a to-many kept in its inverse's column (`.inverseForeignKey`) that other rows of
  /// the table can hold a value in too, the entities whose rows are its destinations, for
  /// reads to keep to: sibling sub-entities may each declare a to-one of the same name (Core
  /// Data's `ChildA.owner` and `ChildB.owner`, one column `owner` of the hierarchy's table),
  /// each the inverse of another to-many. Nil when every value in the column is a link of `r`.
  public static func sharedInverseColumnEntities(of r: Relationship, destination dest: EntityModel) -> [String]? {
    guard r.toMany, let inverse = r.inverse.flatMap(dest.relationship), !inverse.toMany else { return nil }
    let shared = dest.root.hierarchy.contains {
      !dest.includes($0) && ($0.relationship(inverse.name) != nil || $0.attribute(inverse.name) != nil)
    }
    return shared ? dest.concreteNames : nil
  }

  /// ` AND <condition>` keeping a read of `r`'s inverse column (rows aliased `alias` of
  /// `table`) to its destinations when the column is shared; empty otherwise.
  static func sharedInverseColumnFilter(
    of r: Relationship, destination: EntityModel, table: String, alias: String?, codes: EntityCodes
  ) -> String {
    guard let entities = sharedInverseColumnEntities(of: r, destination: destination) else { return "" }
    return " AND " + codes.filter(codes.column(table, alias: alias), entities)
  }

  /// The entity that declares `r` (itself or an ancestor).
  static func owningEntity(of r: Relationship, in e: EntityModel, graph: ModelGraph) -> EntityModel {
    if e.entity.relationships.contains(where: { $0.name == r.name }) { return e }
    return e.ancestors.first { $0.entity.relationships.contains(where: { $0.name == r.name }) } ?? e
  }

  // MARK: - DDL

  /// `ALTER TABLE` giving an existing table the `_ent` column, its rows reading `code`
  /// (the entity they all are) without being rewritten: when a hierarchy of one entity
  /// gains sub-entities.
  static func addEntityColumnSQL(_ table: String, code: Int64, dialect: any SQLDialect) -> String {
    "ALTER TABLE \(Identifier.quote(table)) ADD COLUMN \"_ent\" \(dialect.columnType(.integer)) NOT NULL DEFAULT \(code)"
  }

  /// The columns of a hierarchy's table beyond `_pk`/`_ent`/`_opt`, in a fixed order.
  public static func columns(ofHierarchy root: EntityModel, graph: ModelGraph) -> [(name: String, content: ColumnContent)] {
    var out: [(String, ColumnContent)] = []
    var seen: Set<String> = []
    for m in root.hierarchy {
      for a in m.entity.attributes where !a.transient && seen.insert(a.name).inserted {
        out.append((a.name, a.type.columnContent))
      }
      for r in m.entity.relationships where !r.toMany && seen.insert(r.name).inserted {
        out.append((r.name, .integer))
      }
    }
    // Position columns for ordered to-many relationships whose inverse lives here.
    for other in graph.ordered {
      for r in other.entity.relationships where r.toMany && r.ordered {
        if let inv = graph.inverse(of: r), !inv.toMany, let dest = graph[r.destination], dest.root === root {
          let col = positionColumn(forInverse: inv.name)
          if seen.insert(col).inserted { out.append((col, .integer)) }
        }
      }
    }
    return out
  }

  /// A new hierarchy table: `_ent` only when the hierarchy has sub-entities (unless
  /// `entityColumn` says), and `_opt` only when `versionColumn` (an update adds it:
  /// `VersionColumns`).
  public static func createTableSQL(
    _ root: EntityModel, graph: ModelGraph, dialect: any SQLDialect, entityColumn: Bool? = nil, versionColumn: Bool = false
  ) -> String {
    // No AUTOINCREMENT: keys come from `KeyAllocator`, which never reuses one.
    let integer = dialect.columnType(.integer)
    var defs = ["\"_pk\" \(integer) PRIMARY KEY"]
    if entityColumn ?? root.hasSubentities { defs.append("\"_ent\" \(integer) NOT NULL") }
    if versionColumn { defs.append("\"_opt\" \(integer) NOT NULL DEFAULT 1") }
    for c in columns(ofHierarchy: root, graph: graph) { defs.append("\(Identifier.quote(c.name)) \(dialect.columnDefinition(c.content))") }
    return "CREATE TABLE \(Identifier.quote(root.name)) (\(defs.joined(separator: ", ")))"
  }

  /// The names of the join tables the schema needs.
  public static func joinTableNames(_ graph: ModelGraph) -> [String] { joinTables(graph, dialect: nil).map(\.name) }

  /// Every join table the schema needs, by name, with its DDL (none without `dialect`).
  public static func joinTables(_ graph: ModelGraph, dialect: (any SQLDialect)?) -> [(name: String, sql: [String])] {
    var out: [(String, [String])] = []
    var seen: Set<String> = []
    for m in graph.ordered {
      for r in m.entity.relationships {
        if case .joinTable(let t, _, _, _) = storage(of: r, in: m, graph: graph), seen.insert(t).inserted {
          guard let dialect else {
            out.append((t, []))
            continue
          }
          let q = Identifier.quote(t)
          let integer = dialect.columnType(.integer)
          out.append(
            (
              t,
              [
                "CREATE TABLE \(q) (\"src\" \(integer) NOT NULL, \"dst\" \(integer) NOT NULL, \"spos\" \(integer) NOT NULL DEFAULT 0, \"dpos\" \(integer) NOT NULL DEFAULT 0, PRIMARY KEY (\"src\", \"dst\"))\(dialect.keyOnlyTableOptions)",
                destinationIndexSQL(t),
              ]
            ))
        }
      }
    }
    return out
  }

  /// The index a join table is read through from its destination side: by `dst`, in
  /// `dpos` order (the inverse's order), and it makes the next `dpos` (the largest so far)
  /// one lookup instead of a scan of the destination's links.
  public static func destinationIndexSQL(_ table: String) -> String {
    "CREATE INDEX \(Identifier.quote(table + "_dst")) ON \(Identifier.quote(table)) (\"dst\", \"dpos\", \"src\")"
  }

  /// Index statements for a hierarchy: `_ent`, every to-one key, declared indexes, and
  /// unique indexes (partial on `_ent` when the constraint belongs to a sub-entity).
  static func indexSQL(_ root: EntityModel, graph: ModelGraph, codes: EntityCodes) -> [String] {
    let t = root.name
    let qt = Identifier.quote(t)
    var out: [String] = []
    if root.hasSubentities { out.append("CREATE INDEX \(Identifier.quote("_ix_\(t)__ent")) ON \(qt) (\"_ent\")") }
    var done: Set<String> = []
    var serial = 0
    func name(_ prefix: String, _ entity: String) -> String {
      serial += 1
      return "\(prefix)_\(entity)_\(serial)"
    }
    for m in root.hierarchy {
      let filter = m.isRoot ? "" : " WHERE \"_ent\" IN (\(codes.list(m.concreteNames)))"
      for r in m.entity.relationships where !r.toMany {
        if done.insert("fk:\(r.name)").inserted {
          out.append("CREATE INDEX \(Identifier.quote(name("_fk", t))) ON \(qt) (\(Identifier.quote(r.name)))")
        }
      }
      let single = m.entity.attributes.filter { $0.indexed && !$0.unique }.map { [$0.name] }
      for keys in single + m.entity.indexes {
        if done.insert("i:\(m.name):\(keys)").inserted {
          out.append(
            "CREATE INDEX \(Identifier.quote(name("_ix", m.name))) ON \(qt) (\(keys.map(Identifier.quote).joined(separator: ", ")))\(filter)"
          )
        }
      }
      let uniques = m.entity.attributes.filter(\.unique).map { [$0.name] } + m.entity.uniqueness
      for keys in uniques {
        if done.insert("u:\(m.name):\(keys)").inserted {
          out.append(
            "CREATE UNIQUE INDEX \(Identifier.quote(name("_ux", m.name))) ON \(qt) (\(keys.map(Identifier.quote).joined(separator: ", ")))\(filter)"
          )
        }
      }
    }
    return out
  }
}
