import CoreDataTooling
import DatabaseKit

/// The facts a Core Data SQLite store states about itself, read from an attached schema:
/// `Z_PRIMARYKEY` (entities, inheritance, last keys), `Z_METADATA` (store UUID and the
/// metadata plist), and every table's declared columns and indexes. No model needed.
struct CoreDataLayout {
  struct Entity {
    var number: Int64
    var name: String
    /// `Z_SUPER`: the parent entity's number, 0 for none.
    var parent: Int64
    var maxKey: Int64
  }

  struct Table {
    var name: String
    /// Columns in declared order, with their declared type in upper case.
    var columns: [(name: String, type: String)]
    /// Columns with a single-column index named `<TABLE>_<COLUMN>_INDEX` (Core Data's
    /// name for the index of a to-one key or an indexed attribute).
    var indexed: Set<String>
    /// Unique indexes: their name (`Z_<Entity>_UNIQUE_<keys>`) and columns.
    var uniqueIndexes: [(name: String, columns: [String])]

    func has(_ column: String) -> Bool { columns.contains { $0.name == column } }
  }

  /// The attached schema name, quoted, to qualify every table.
  let schema: String
  /// Model entities (`Z_ENT` below 16000), by number.
  var entities: [Entity] = []
  /// Core Data's own entities (persistent history: `Z_ENT` 16000 and up).
  var systemEntities: [Entity] = []
  var tables: [String: Table] = [:]
  var storeUUID: String?
  var metadata: PlistValue?
  /// Why the metadata plist could not be read, if it could not.
  var metadataProblem: String?

  static let firstSystemEntity: Int64 = 16000

  /// Reads the layout of the store attached as `schemaName`; `notAStore` when it lacks
  /// `Z_PRIMARYKEY` or `Z_METADATA`, naming `path`.
  static func read(_ c: any DatabaseConnection, schemaName: String, path: String) throws -> CoreDataLayout {
    var layout = CoreDataLayout(schema: Identifier.quote(schemaName))
    let q = layout.schema
    var names: [String] = []
    do {
      try c.prepare("SELECT name FROM \(q).sqlite_schema WHERE type = 'table' ORDER BY name").forEachRow { names.append($0.text(0)) }
    } catch let e as any DatabaseError where e.isNotADatabase {
      throw StoreError(.notAStore, "'\(path)' is not a Core Data store (not an SQLite database)", ["path": .string(path)])
    }
    guard names.contains("Z_PRIMARYKEY"), names.contains("Z_METADATA") else {
      throw StoreError(
        .notAStore, "'\(path)' is an SQLite database but not a Core Data store (it has no Z_PRIMARYKEY and Z_METADATA tables)",
        ["path": .string(path)])
    }
    try c.prepare("SELECT Z_ENT, Z_NAME, coalesce(Z_SUPER, 0), coalesce(Z_MAX, 0) FROM \(q).Z_PRIMARYKEY ORDER BY Z_ENT").forEachRow {
      let e = Entity(number: $0.int(0), name: $0.text(1), parent: $0.int(2), maxKey: $0.int(3))
      if e.number >= firstSystemEntity { layout.systemEntities.append(e) } else { layout.entities.append(e) }
    }
    var indexes: [String: [(name: String, unique: Bool, columns: [String])]] = [:]
    try c.prepare("SELECT name, tbl_name FROM \(q).sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").forEachRow { row in
      indexes[row.text(1), default: []].append((row.text(0), false, []))
    }
    for (table, list) in indexes {
      for (i, ix) in list.enumerated() {
        var columns: [String] = []
        try c.prepare("SELECT name FROM pragma_index_info(?, ?) ORDER BY seqno").forEachRow([.text(ix.name), .text(schemaName)]) {
          columns.append($0.isNull(0) ? "" : $0.text(0))
        }
        let unique =
          try c.prepare("SELECT \"unique\" FROM pragma_index_list(?, ?) WHERE name = ?").first(
            [.text(table), .text(schemaName), .text(ix.name)], { $0.int(0) != 0 }) ?? false
        indexes[table]![i] = (ix.name, unique, columns)
      }
    }
    for name in names {
      var columns: [(String, String)] = []
      try c.prepare("SELECT name, upper(type) FROM pragma_table_info(?, ?) ORDER BY cid").forEachRow([.text(name), .text(schemaName)]) {
        columns.append(($0.text(0), $0.text(1)))
      }
      var table = Table(name: name, columns: columns, indexed: [], uniqueIndexes: [])
      for ix in indexes[name] ?? [] {
        if ix.unique {
          table.uniqueIndexes.append((ix.name, ix.columns))
        } else if ix.columns.count == 1, ix.name == "\(name)_\(ix.columns[0])_INDEX" {
          table.indexed.insert(ix.columns[0])
        }
      }
      layout.tables[name] = table
    }
    if let row = try c.prepare("SELECT Z_UUID, Z_PLIST FROM \(q).Z_METADATA ORDER BY Z_VERSION LIMIT 1").first(
      [], { ($0.value(0), $0.value(1)) })
    {
      if case .text(let u) = row.0 { layout.storeUUID = u }
      if case .blob(let b) = row.1 {
        do {
          layout.metadata = try BinaryPlist.parse(b)
        } catch let e as PlistError {
          layout.metadataProblem = e.description
        }
      }
    }
    return layout
  }

  func entity(_ number: Int64) -> Entity? { entities.first { $0.number == number } }

  /// The root of `e`'s hierarchy (following `Z_SUPER`; a cycle or a missing parent stops).
  func root(of e: Entity) -> Entity {
    var current = e
    var seen: Set<Int64> = [e.number]
    while current.parent != 0, let p = entity(current.parent), seen.insert(p.number).inserted { current = p }
    return current
  }

  /// Core Data's table for a hierarchy: `Z` + the root entity's name in upper case.
  static func tableName(ofRoot name: String) -> String { "Z" + name.uppercased() }
}
