import DatabaseKit
import JSONCore
import SchemaModel

/// Which Core Data column holds each attribute and relationship of a ModelStore schema
/// inferred from a store's tables (protocol.md, "Core Data stores", gives the rules).
struct CoreDataMapping {
  struct Attribute {
    var entity: String
    var name: String
    var type: AttributeType
    var column: String
    var kind: CoreDataValueKind
    /// Core Data indexes the column (`<TABLE>_<COLUMN>_INDEX`): the schema indexes it too.
    var indexed = false
  }

  struct ToOne {
    var entity: String
    var name: String
    var destination: String
    var column: String
  }

  /// One side of a many-to-many join table `Z_<n><NAME>`: `owner.name` points to
  /// `destination`, whose keys are in `column` (`Z_<destination number><NAME>`).
  struct JoinSide {
    var owner: String
    var name: String
    var destination: String
    var column: String
    /// `Z_FOK_<column>`: the destination's position in the owner's ordered list.
    var positionColumn: String? = nil
  }

  struct Join {
    var table: String
    var sides: [JoinSide]
    /// For a to-many without an inverse, whose links are rows of the destination's table:
    /// the column holding the owner's key (a row without one is no link).
    var ownerKey: String? = nil
  }

  var layout: CoreDataLayout
  /// Model entities in `Z_ENT` order, with their hierarchy root and table.
  var entities: [(entity: CoreDataLayout.Entity, root: String, table: String)] = []
  var attributes: [Attribute] = []
  var toOnes: [ToOne] = []
  var joins: [Join] = []
  var uniqueness: [String: [[String]]] = [:]
  var warnings: [String] = []
  /// With a model: its entities without a table and properties without a column (each
  /// also in `warnings`); with `unmappedColumns`, how far the model is from the tables.
  var missingColumns = 0
  /// The model's schema, when one was given (see `CoreDataMapping+Model`).
  var modelSchema: Schema?
  /// Where each table's rows are read from (keys stored as text read as integers).
  var rows: CoreDataRows { CoreDataRows(self) }

  /// Columns of derived attributes (`TABLE.COLUMN`): not read, but the model's.
  var derivedColumns: Set<String> = []

  /// Columns of the mapped tables that hold no mapped property (Core Data's own columns,
  /// `Z<n>_` companions, `Z_FOK_` positions and derived attributes aside), each counted in
  /// its own table (a column another table's property has the name of is still unmapped),
  /// and join tables no relationship reads.
  var unmappedColumns: Int {
    let table = Dictionary(entities.map { ($0.entity.name, $0.table) }, uniquingKeysWith: { first, _ in first })
    let used = Set(
      attributes.map { "\(table[$0.entity] ?? "").\($0.column)" } + toOnes.map { "\(table[$0.entity] ?? "").\($0.column)" }
        + joins.compactMap { j in j.ownerKey.map { "\(j.table).\($0)" } }
    ).union(derivedColumns)
    let joinTables = Set(joins.filter { $0.ownerKey == nil }.map(\.table))
    let unreadJoins = layout.tables.keys.filter { Self.joinKey($0) != nil && !joinTables.contains($0) }.count
    return unreadJoins
      + Set(entities.map(\.table)).reduce(0) { n, name in
        n
          + (layout.tables[name]?.columns ?? []).filter {
            !used.contains("\(name).\($0.name)") && !["Z_PK", "Z_ENT", "Z_OPT"].contains($0.name) && !$0.name.hasPrefix("Z_FOK_")
              && Self.companion($0.name) == nil
          }.count
      }
  }

  /// The concrete rows of each entity are those with its `Z_ENT`.
  func number(of entity: String) -> Int64? { entities.first { $0.entity.name == entity }?.entity.number }

  init(layout: CoreDataLayout, connection c: any DatabaseConnection) throws {
    self.layout = layout
    var claimed: [String: Set<String>] = [:]  // names used per hierarchy root (attributes live on roots)
    for e in layout.entities {
      if let problem = Names.entityNameProblem(e.name) {
        throw StoreError(.invalidModel, "Z_PRIMARYKEY entity \(e.number): \(problem)", ["entity": .string(e.name)])
      }
      let root = layout.root(of: e)
      let table = CoreDataLayout.tableName(ofRoot: root.name)
      guard layout.tables[table] != nil else {
        warnings.append("entity '\(e.name)' (Z_ENT \(e.number)) has no table \(table); it is left out")
        continue
      }
      entities.append((e, root.name, table))
    }
    let known = Set(entities.map(\.entity.name))
    for root in entities where root.entity.name == root.root {
      let table = layout.tables[root.table]!
      var names = claimed[root.root] ?? []
      let exact = Self.exactNames(table)
      func propertyName(_ wanted: String) -> String {
        var base = wanted
        if Names.propertyNameProblem(base) != nil { base = "p" + base.filter { $0.isLetter || $0.isNumber || $0 == "_" } }
        if Names.propertyNameProblem(base) != nil { base += "_" }
        var name = base
        var n = 1
        while names.contains(name) {
          n += 1
          name = base + String(n)
        }
        names.insert(name)
        return name
      }
      // `Z<n>_<NAME>` companions give the destination of to-one `Z<NAME>` (entity n).
      var companions: [String: Int64] = [:]
      var positions: Set<String> = []
      for col in table.columns {
        if col.name.hasPrefix("Z_FOK_") {
          positions.insert("Z" + col.name.dropFirst(6))
        } else if let (n, rest) = Self.companion(col.name) {
          companions["Z" + rest] = n
        }
      }
      for col in table.columns where !["Z_PK", "Z_ENT", "Z_OPT"].contains(col.name) && Self.companion(col.name) == nil {
        if col.name.hasPrefix("Z_FOK_") {
          let to = Self.lowerName("Z" + col.name.dropFirst(6))
          attributes.append(Attribute(entity: root.root, name: propertyName(to + "Position"), type: .int64, column: col.name, kind: .plain))
          continue
        }
        if col.type.contains("INT") {
          var destination: String? = nil
          if let n = companions[col.name] {
            destination = layout.entity(n).flatMap { known.contains($0.name) ? $0.name : nil }
          } else if table.indexed.contains(col.name) || positions.contains(col.name) {
            destination = Self.destination(named: Self.lowerName(col.name), among: entities.map(\.entity.name))
          }
          if let destination {
            toOnes.append(
              ToOne(entity: root.root, name: propertyName(Self.lowerName(col.name)), destination: destination, column: col.name))
            continue
          }
          if companions[col.name] != nil || positions.contains(col.name) || table.indexed.contains(col.name) {
            warnings.append(
              "\(root.table).\(col.name) may be a to-one key, but its destination cannot be told from the tables; it is kept as an int64 attribute (give the model for exact relationships)"
            )
          }
        }
        let (type, kind) = try Self.attributeType(col.name, col.type, table: root.table, layout: layout, c)
        attributes.append(
          Attribute(
            entity: root.root, name: propertyName(exact[col.name] ?? Self.lowerName(col.name)), type: type, column: col.name, kind: kind,
            indexed: table.indexed.contains(col.name)))
      }
      claimed[root.root] = names
      for ix in table.uniqueIndexes {
        guard let (entity, _) = Self.uniqueIndexName(ix.name), known.contains(entity) else { continue }
        let keys = ix.columns.compactMap { c in attributes.first { $0.entity == root.root && $0.column == c }?.name }
        if keys.count == ix.columns.count, !keys.isEmpty { uniqueness[entity, default: []].append(keys) }
      }
    }
    try inferJoins(known: known, claimed: &claimed)
  }

  /// `Z_<n><NAME>` tables with two key columns `Z_<a><X>`, `Z_<b><Y>` (and `Z_FOK_` order
  /// columns): entity b's to-many X points to a, entity a's to-many Y points to b.
  private mutating func inferJoins(known: Set<String>, claimed: inout [String: Set<String>]) throws {
    for table in layout.tables.values.sorted(by: { $0.name < $1.name }) where Self.joinKey(table.name) != nil {
      let keys = table.columns.filter { !$0.name.hasPrefix("Z_FOK_") }
      guard keys.count == 2, let a = Self.joinKey(keys[0].name), let b = Self.joinKey(keys[1].name),
        let ea = layout.entity(a.number), let eb = layout.entity(b.number), known.contains(ea.name), known.contains(eb.name)
      else {
        warnings.append("table \(table.name) looks like a many-to-many join table but its columns do not name two entities; it is left out")
        continue
      }
      func side(_ key: (number: Int64, name: String), column: String, owner: CoreDataLayout.Entity, dest: CoreDataLayout.Entity) -> JoinSide
      {
        let root = layout.root(of: owner).name
        var name = Self.lowerName("Z" + key.name)
        if Names.propertyNameProblem(name) != nil { name = "p" + name }
        var n = 1
        let base = name
        while claimed[root, default: []].contains(name) {
          n += 1
          name = base + String(n)
        }
        claimed[root, default: []].insert(name)
        let fok = "Z_FOK_" + column.dropFirst(2)
        return JoinSide(owner: owner.name, name: name, destination: dest.name, column: column, positionColumn: table.has(fok) ? fok : nil)
      }
      if keys[0].name == keys[1].name { continue }
      let first = side(a, column: keys[0].name, owner: eb, dest: ea)
      let second = side(b, column: keys[1].name, owner: ea, dest: eb)
      joins.append(Join(table: table.name, sides: [first, second]))
    }
  }

  // MARK: - Name and type rules

  /// `ZCREATEDAT` -> `createdat`: the letter case of the model is not in the table.
  static func lowerName(_ column: String) -> String {
    let body = column.hasPrefix("Z") && column.count > 1 ? String(column.dropFirst()) : column
    return body.lowercased()
  }

  /// Exact-case property names recovered from unique index names
  /// (`Z_Person_UNIQUE_firstName_lastName` over `ZFIRSTNAME, ZLASTNAME`).
  static func exactNames(_ table: CoreDataLayout.Table) -> [String: String] {
    var out: [String: String] = [:]
    for ix in table.uniqueIndexes {
      guard let (_, keys) = uniqueIndexName(ix.name) else { continue }
      let parts = keys.split(separator: "_").map(String.init)
      guard parts.count == ix.columns.count else { continue }
      for (part, column) in zip(parts, ix.columns) where "Z" + part.uppercased() == column && Names.propertyNameProblem(part) == nil {
        out[column] = part
      }
    }
    return out
  }

  /// The destination a to-one key's name suggests: the entity of that name, else the
  /// entity with the longest name that ends it (`parentlist` -> `List`), compared in
  /// lower case.
  static func destination(named name: String, among entities: [String]) -> String? {
    if let exact = entities.first(where: { $0.lowercased() == name }) { return exact }
    return entities.filter { name.hasSuffix($0.lowercased()) }.max { $0.count < $1.count }
  }

  /// `Z_<Entity>_UNIQUE_<keys>` -> (Entity, keys).
  static func uniqueIndexName(_ name: String) -> (String, String)? {
    let u = Array(name.utf8)
    let marker = Array("_UNIQUE_".utf8)
    guard u.count > 2 + marker.count, u[0] == 90, u[1] == 95 else { return nil }
    for i in 3...(u.count - marker.count) where Array(u[i..<(i + marker.count)]) == marker {
      return (String(decoding: u[2..<i], as: UTF8.self), String(decoding: u[(i + marker.count)...], as: UTF8.self))
    }
    return nil
  }

  /// `Z7_COVER` -> (7, "COVER"): the entity number of a to-one's destination row.
  static func companion(_ column: String) -> (Int64, String)? {
    let u = Array(column.utf8)
    guard u.count > 3, u[0] == 90 else { return nil }
    var i = 1
    while i < u.count, u[i] >= 48, u[i] <= 57 { i += 1 }
    guard i > 1, i < u.count - 1, u[i] == 95, let n = Int64(String(decoding: u[1..<i], as: UTF8.self)) else { return nil }
    return (n, String(decoding: u[(i + 1)...], as: UTF8.self))
  }

  /// `Z_3ARTWORKS` -> (3, "ARTWORKS"): a join table or join key column.
  static func joinKey(_ name: String) -> (number: Int64, name: String)? {
    let u = Array(name.utf8)
    guard u.count > 3, u[0] == 90, u[1] == 95 else { return nil }
    var i = 2
    while i < u.count, u[i] >= 48, u[i] <= 57 { i += 1 }
    guard i > 2, i < u.count, let n = Int64(String(decoding: u[2..<i], as: UTF8.self)) else { return nil }
    return (n, String(decoding: u[i...], as: UTF8.self))
  }

  /// The attribute type of a column from its declared type; a BLOB column whose name
  /// ends in `ID` or contains `UUID` and that holds at least one 16-byte value is a UUID
  /// (a value of another length is then an error), one whose values all start with an
  /// external-storage marker (1 or 2, at least one a file reference) is external data.
  static func attributeType(
    _ column: String, _ declared: String, table: String, layout: CoreDataLayout, _ c: any DatabaseConnection
  ) throws -> (AttributeType, CoreDataValueKind) {
    switch declared {
    case "VARCHAR", "TEXT", "CLOB": return (.string, .plain)
    case "INTEGER", "INT": return (.int64, .plain)
    case "FLOAT", "REAL", "DOUBLE": return (.double, .plain)
    case "TIMESTAMP": return (.date, .date)
    case "DECIMAL", "NUMERIC": return (.decimal, .decimal)
    case "BLOB":
      let col = Identifier.quote(column)
      let from = "\(layout.schema).\(Identifier.quote(table))"
      let stats =
        try c.prepare(
          "SELECT count(*), sum(typeof(\(col)) = 'blob' AND length(\(col)) = 16), sum(typeof(\(col)) = 'blob' AND hex(substr(\(col), 1, 1)) IN ('01', '02')), sum(typeof(\(col)) = 'blob' AND hex(substr(\(col), 1, 1)) = '02' AND length(\(col)) IN (37, 38)) FROM \(from) WHERE \(col) IS NOT NULL"
        ).first([], { ($0.int(0), $0.int(1), $0.int(2), $0.int(3)) }) ?? (0, 0, 0, 0)
      if stats.1 > 0 && (column.hasSuffix("ID") || column.contains("UUID")) { return (.uuid, .uuid) }
      if stats.0 > 0 && stats.2 == stats.0 && stats.3 > 0 { return (.data, .externalData) }
      return (.data, .plain)
    default:
      if declared.contains("INT") { return (.int64, .plain) }
      if declared.contains("CHAR") || declared.contains("TEXT") { return (.string, .plain) }
      if declared.contains("REAL") || declared.contains("FLOA") || declared.contains("DOUB") { return (.double, .plain) }
      return (.data, .plain)
    }
  }

  // MARK: - The schema

  /// The ModelStore schema: one entity per Core Data entity (parents from `Z_SUPER`,
  /// attributes and to-ones on the hierarchy's root, join relationships on their owners),
  /// every property optional.
  func schemaJSON(version: String) -> JSONValue {
    if let modelSchema { return modelSchema.json }
    var out: [JSONValue] = []
    for (e, root, _) in entities {
      var o: JSONObject = ["name": .string(e.name)]
      if e.parent != 0, let p = layout.entity(e.parent) { o.append("parent", .string(p.name)) }
      var attrs: [JSONValue] = []
      var rels: [JSONValue] = []
      if e.name == root {
        for a in attributes where a.entity == e.name {
          var o: JSONObject = ["name": .string(a.name), "type": .string(a.type.rawValue), "optional": true]
          if a.indexed { o.append("indexed", true) }
          attrs.append(.object(o))
        }
        for r in toOnes where r.entity == e.name {
          rels.append(.object(["name": .string(r.name), "destination": .string(r.destination), "toMany": false]))
        }
      }
      for j in joins {
        for (i, s) in j.sides.enumerated() where s.owner == e.name {
          let other = j.sides[1 - i]
          var r: JSONObject = [
            "name": .string(s.name), "destination": .string(s.destination), "inverse": .string(other.name), "toMany": true,
          ]
          if s.positionColumn != nil { r.append("ordered", true) }
          rels.append(.object(r))
        }
      }
      o.append("attributes", .array(attrs))
      o.append("relationships", .array(rels))
      if let u = uniqueness[e.name] { o.append("uniqueness", .array(u.map { .array($0.map { .string($0) }) })) }
      out.append(.object(o))
    }
    return .object(["version": .string(version), "entities": .array(out)])
  }
}
