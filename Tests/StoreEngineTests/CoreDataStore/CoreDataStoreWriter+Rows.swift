import CoreDataTooling
import Foundation
import SQLiteCore
import TestSupport

/// The rows `CoreDataStoreWriter` writes (a few objects of each concrete entity, every stored
/// relationship linked) and what Core Data reads from them.
extension CoreDataStoreWriter {
  /// The value row `k` (from 0) of a table holds for `a`: every type in Core Data's stored
  /// form (dates in seconds since 2001, UUIDs as 16 bytes, external data behind its marker),
  /// distinct in each row but booleans (so that uniqueness constraints hold); an optional
  /// attribute is empty in every third row.
  static func value(_ a: Attribute, row k: Int, entity: String) -> SQLValue {
    if a.optional && k % 3 == 2 { return .null }
    switch a.type {
    case "Integer 16", "Integer 32", "Integer 64": return .integer(Int64(k * 7 + 1))
    case "Boolean": return .integer(Int64(k % 2))
    case "Double", "Float": return .real(Double(k) + 0.5)
    case "Decimal": return .real(Double(k) * 10 + 0.25)
    case "Date": return .real(700_000_000 + Double(k) * 86_400)
    case "String": return .text("\(entity) \(a.name) \(k)")
    case "URI": return .text("https://example.com/\(entity)/\(k)")
    case "UUID": return .blob((0..<16).map { UInt8(truncatingIfNeeded: $0 * 17 + k) })
    default:
      let bytes = Array("\(entity).\(a.name) \(k)".utf8)
      return .blob(a.external ? [1] + bytes : bytes)
    }
  }

  /// Writes the store at `path` with `perEntity` objects of each concrete entity. `textKeys`
  /// declares and stores every key (Z_PK, Z_ENT, Z_OPT, to-one and join keys, positions) as
  /// TEXT, as a store loaded by hand from CSV has them.
  func write(_ path: String, perEntity: Int = 3, textKeys: Bool = false) throws -> Expected {
    let layout = layout()
    struct Object {
      var entity: String
      var table: String
      var pk: Int
      var values: [String: SQLValue] = [:]
    }
    var objects: [Object] = []
    var rowsOfTable: [String: [Int]] = [:]
    for e in entities where !e.abstract {
      let table = Self.tableName(root(of: e.name))
      for _ in 0..<perEntity {
        var o = Object(entity: e.name, table: table, pk: (rowsOfTable[table]?.count ?? 0) + 1)
        var owner: String? = e.name
        while let name = owner {
          for a in entity(name).attributes {
            o.values[layout.columns["\(name).\(a.name)"]!.column] = Self.value(a, row: o.pk - 1, entity: e.name)
          }
          owner = entity(name).parent.flatMap { index[$0] != nil ? $0 : nil }
        }
        rowsOfTable[table, default: []].append(objects.count)
        objects.append(o)
      }
    }
    func objectsOf(_ entity: String) -> [Int] {
      let names = Set(subtree(entity))
      return objects.indices.filter { names.contains(objects[$0].entity) }
    }
    var positions: [String: Int] = [:]
    func nextPosition(_ key: String) -> SQLValue {
      positions[key, default: 0] += 1
      return .integer(Int64(positions[key]!))
    }
    func link(_ s: Int, _ r: Relationship, to t: Int) {
      objects[s].values[layout.columns["\(r.entity).\(r.name)"]!.column] = .integer(Int64(objects[t].pk))
      if let hierarchy = layout.columns["ent:\(r.entity).\(r.name)"] {
        objects[s].values[hierarchy.column] = .integer(Int64(number[objects[t].entity]!))
      }
      if let fok = layout.columns["fok:\(r.entity).\(r.name)"] { objects[s].values[fok.column] = nextPosition("\(fok.column)#\(t)") }
    }
    // To-ones: the key in the source's row; a one-to-one pair links both sides, each object
    // at most once. An optional one is left empty in every third object.
    var pairs: Set<String> = []
    for e in entities {
      for r in e.relationships where !r.toMany {
        let sources = objectsOf(e.name)
        let targets = objectsOf(r.destination)
        guard !targets.isEmpty else { continue }
        let column = layout.columns["\(e.name).\(r.name)"]!.column
        if let inverse = relationship(r.inverse, of: r.destination), !inverse.toMany,
          relationship(inverse.inverse, of: e.name)?.name == r.name
        {
          guard pairs.insert(["\(e.name).\(r.name)", "\(inverse.entity).\(inverse.name)"].sorted().joined(separator: "|")).inserted
          else { continue }
          let back = layout.columns["\(inverse.entity).\(inverse.name)"]!.column
          let backSources = Set(objectsOf(inverse.entity))
          for (k, s) in sources.enumerated() where objects[s].values[column] == nil && !(r.optional && k % 3 == 2) {
            let free = (0..<targets.count).map { targets[(k + 1 + $0) % targets.count] }.first {
              $0 != s && objects[$0].values[back] == nil && backSources.contains($0)
            }
            guard let t = free else { continue }
            link(s, r, to: t)
            link(t, inverse, to: s)
          }
          continue
        }
        for (k, s) in sources.enumerated() where !(r.optional && k % 3 == 2) { link(s, r, to: targets[k % targets.count]) }
      }
    }
    // To-manys stored on their own: the owner's key in the destination's rows, or a join
    // table's rows (written once per pair; a relationship that is its own inverse both ways).
    var joinRows: [String: [[String: SQLValue]]] = [:]
    var joined: Set<String> = []
    for e in entities {
      for r in e.relationships where r.toMany {
        let sources = objectsOf(e.name)
        let targets = objectsOf(r.destination)
        guard !sources.isEmpty, !targets.isEmpty else { continue }
        switch storage(of: r) {
        case .inverseColumn: continue
        case .ownerColumn:
          let column = layout.columns["owner:\(e.name).\(r.name)"]!.column
          let fok = layout.columns["fok:\(e.name).\(r.name)"]?.column
          for (k, t) in targets.enumerated() where k % 3 != 1 {
            let s = sources[k % sources.count]
            objects[t].values[column] = .integer(Int64(objects[s].pk))
            if let fok { objects[t].values[fok] = nextPosition("\(column)#\(s)") }
          }
        case .join(let inverse):
          guard joined.insert(["\(e.name).\(r.name)", "\(inverse.entity).\(inverse.name)"].sorted().joined(separator: "|")).inserted
          else { continue }
          let reflexive = inverse.name == r.name && inverse.entity == e.name
          let (table, mine) = layout.columns["join:\(e.name).\(r.name)"]!
          let theirs = layout.columns[(reflexive ? "joinback:" : "join:") + "\(inverse.entity).\(inverse.name)"]!.column
          var rows: Set<[Int]> = []
          for (k, s) in sources.enumerated() {
            for t in [targets[k % targets.count], targets[(k + 1) % targets.count]] where t != s {
              rows.insert([s, t])
              if reflexive { rows.insert([t, s]) }
            }
          }
          for pair in rows.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let (s, t) = (pair[0], pair[1])
            var row: [String: SQLValue] = [theirs: .integer(Int64(objects[s].pk)), mine: .integer(Int64(objects[t].pk))]
            if r.ordered { row["Z_FOK_" + mine.dropFirst(2)] = nextPosition("\(mine)#\(s)") }
            if inverse.ordered && !reflexive { row["Z_FOK_" + theirs.dropFirst(2)] = nextPosition("\(theirs)#\(t)") }
            joinRows[table, default: []].append(row)
          }
        }
      }
    }

    try writeTables(path, layout, textKeys: textKeys) { table in
      if let rows = joinRows[table.name] { return rows }
      return (rowsOfTable[table.name] ?? []).map { objects[$0] }.map { o in
        o.values.merging(["Z_PK": .integer(Int64(o.pk)), "Z_ENT": .integer(Int64(number[o.entity]!)), "Z_OPT": 1]) { $1 }
      }
    }

    // What Core Data reads: each object's to-one key, or the rows naming it as the owner.
    var expected = Expected()
    for e in entities {
      let mine = objects.indices.filter { objects[$0].entity == e.name }
      expected.objects[e.name] = mine.count
      for r in relationships(of: e.name) {
        var n = 0
        for s in mine {
          let pk = SQLValue.integer(Int64(objects[s].pk))
          guard r.toMany else {
            if objects[s].values[layout.columns["\(r.entity).\(r.name)"]!.column] != nil { n += 1 }
            continue
          }
          switch storage(of: r) {
          case .inverseColumn(let inverse):
            let column = layout.columns["\(inverse.entity).\(inverse.name)"]!.column
            n += objectsOf(r.destination).filter { objects[$0].values[column] == pk }.count
          case .ownerColumn:
            let column = layout.columns["owner:\(r.entity).\(r.name)"]!.column
            n += objectsOf(r.destination).filter { objects[$0].values[column] == pk }.count
          case .join(let inverse):
            let reflexive = inverse.name == r.name && inverse.entity == r.entity
            let (table, theirs) = layout.columns[(reflexive ? "joinback:" : "join:") + "\(inverse.entity).\(inverse.name)"]!
            n += (joinRows[table] ?? []).filter { $0[theirs] == pk }.count
          }
        }
        expected.links["\(e.name).\(r.name)"] = n
      }
    }
    return expected
  }

  /// Creates Core Data's tables and `layout`'s, and fills each with `rows(table)` (column →
  /// value; keys as text with `textKeys`), `Z_PRIMARYKEY` and `Z_METADATA`.
  private func writeTables(
    _ path: String, _ layout: Layout, textKeys: Bool, rows: (Table) -> [[String: SQLValue]]
  ) throws {
    let c = try Connection(path: path)
    defer { c.close() }
    try c.execute("BEGIN")
    try c.execute(
      """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
      """)
    var max: [String: Int] = [:]
    for t in layout.tables {
      let isKey = t.columns.map { layout.keys.contains(t.name + "." + $0.name) }
      let definitions = zip(t.columns, isKey).map { c, key in
        Identifier.quote(c.name) + " " + (textKeys && key ? "TEXT" : c.type) + (t.primaryKey == [c.name] ? " PRIMARY KEY" : "")
      }
      let compound = t.primaryKey.count > 1 ? ", PRIMARY KEY (" + t.primaryKey.map(Identifier.quote).joined(separator: ", ") + ")" : ""
      try c.execute("CREATE TABLE \(Identifier.quote(t.name)) ( \(definitions.joined(separator: ", "))\(compound) )")
      let insert = try c.prepare(
        "INSERT INTO \(Identifier.quote(t.name)) VALUES (\(t.columns.map { _ in "?" }.joined(separator: ", ")))")
      for row in rows(t) {
        try insert.execute(
          zip(t.columns, isKey).map { c, key in
            guard textKeys, key, case .integer(let n)? = row[c.name] else { return row[c.name] ?? .null }
            return .text(String(n))
          })
        if case .integer(let pk)? = row["Z_PK"] { max[t.name] = Swift.max(max[t.name] ?? 0, Int(pk)) }
      }
    }
    let primaryKeys = try c.prepare("INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)")
    for e in entities {
      let isRoot = e.parent.map { index[$0] == nil } ?? true
      try primaryKeys.execute([
        .integer(Int64(number[e.name]!)), .text(e.name), .integer(Int64(e.parent.flatMap { number[$0] } ?? 0)),
        .integer(Int64(isRoot ? max[Self.tableName(e.name)] ?? 0 : 0)),
      ])
    }
    let hashes: [(String, PlistWriter.Value)] = entities.map {
      ($0.name, .data(Array(repeating: UInt8($0.name.utf8.count % 256), count: 32)))
    }
    let plist = PlistWriter.encode(
      .dict([
        ("NSStoreType", .string("SQLite")), ("NSStoreModelVersionHashes", .dict(hashes)),
        ("NSStoreModelVersionIdentifiers", .array([.string(identifier)])), ("NSPersistenceFrameworkVersion", .int(1344)),
        ("NSStoreModelVersionHashesVersion", .int(3)),
      ]))
    try c.run("INSERT INTO Z_METADATA VALUES (1, ?, ?)", [.text(UUID().uuidString), .blob(plist)])
    try c.execute("COMMIT")
  }
}
