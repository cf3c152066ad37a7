import CoreDataTooling
import DatabaseKit
import JSONCore
import SchemaModel

extension CoreDataMapping {
  /// The mapping for a store whose model is known (`import.coreData {model}`): names and
  /// types come from the model; columns are Core Data's `Z<NAME>` (a collision within a
  /// table takes the next free `Z<NAME>1`, `Z<NAME>2`, ...), many-to-many pairs are found
  /// by their key columns `Z_<n><NAME>`.
  /// `details` says which attributes allow external storage, and which derived attributes
  /// (left out of the schema) have a column all the same, so that it counts as mapped.
  init(layout: CoreDataLayout, model schema: Schema, details: ModelDetails, connection c: any DatabaseConnection) throws {
    let externalStorage = details.externalStorage
    self.layout = layout
    modelSchema = schema
    let graph = ModelGraph(schema)
    for e in schema.entities {
      guard let found = layout.entities.first(where: { $0.name == e.name }) else {
        warnings.append("entity '\(e.name)' of the model is not in this store's Z_PRIMARYKEY; it stays empty")
        missingColumns += 1
        continue
      }
      let root = graph[e.name]!.root.name
      let table = CoreDataLayout.tableName(ofRoot: root)
      guard layout.tables[table] != nil else {
        warnings.append("entity '\(e.name)' has no table \(table) in this store; it stays empty")
        missingColumns += 1
        continue
      }
      entities.append((found, root, table))
    }
    for e in layout.entities where schema.entities.first(where: { $0.name == e.name }) == nil {
      warnings.append("entity '\(e.name)' (Z_ENT \(e.number)) of the store is not in the model; its rows are refused")
    }
    var claimed: [String: Set<String>] = [:]
    func column(_ name: String, table: String) -> String? {
      guard let t = layout.tables[table] else { return nil }
      let base = "Z" + name.uppercased()
      for candidate in [base] + (1...9).map({ base + String($0) }) where t.has(candidate) {
        if claimed[table, default: []].insert(candidate).inserted { return candidate }
      }
      return nil
    }
    for (found, _, table) in entities {
      let e = schema.entities.first { $0.name == found.name }!
      for a in e.attributes where !a.transient {
        guard let col = column(a.name, table: table) else {
          warnings.append("\(e.name).\(a.name) has no column Z\(a.name.uppercased()) in \(table); it is left empty")
          missingColumns += 1
          continue
        }
        let kind: CoreDataValueKind
        switch a.type {
        case .date: kind = .date
        case .uuid: kind = .uuid
        case .decimal: kind = .decimal
        case .data: kind = externalStorage.contains("\(e.name).\(a.name)") ? .externalData : .plain
        default: kind = .plain
        }
        attributes.append(Attribute(entity: e.name, name: a.name, type: a.type, column: col, kind: kind))
      }
      for r in e.relationships where !r.toMany {
        guard let col = column(r.name, table: table) else {
          warnings.append("\(e.name).\(r.name) has no column Z\(r.name.uppercased()) in \(table); it is left empty")
          missingColumns += 1
          continue
        }
        toOnes.append(ToOne(entity: e.name, name: r.name, destination: r.destination, column: col))
      }
    }
    for key in details.derivedAttributes.sorted() {
      let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
      guard parts.count == 2, let (_, _, table) = entities.first(where: { $0.entity.name == parts[0] }),
        let col = column(parts[1], table: table)
      else { continue }
      derivedColumns.insert("\(table).\(col)")
    }
    try findJoins(schema, graph)
  }

  /// A to-many without an inverse: Core Data keeps each link in the destination's table, as
  /// the key of its one owner in column `Z<n><NAME>` (n the declaring entity's `Z_ENT`; an
  /// ordered one's position in `Z_FOK_<n><NAME>`). It is read as a join whose rows are the
  /// destination rows with that key.
  private mutating func linksInDestination(_ e: Entity, _ r: Relationship, _ graph: ModelGraph) {
    let tableName = CoreDataLayout.tableName(ofRoot: graph[r.destination]!.root.name)
    let column = "Z\(number(of: e.name).map(String.init) ?? "?")\(r.name.uppercased())"
    guard let table = layout.tables[tableName], table.has(column) else {
      warnings.append(
        "\(e.name).\(r.name) is a to-many without an inverse and \(tableName) has no column \(column) for it; its links are not read")
      missingColumns += 1
      return
    }
    let fok = "Z_FOK_" + column.dropFirst()
    joins.append(
      Join(
        table: tableName,
        sides: [
          JoinSide(owner: e.name, name: r.name, destination: r.destination, column: "Z_PK", positionColumn: table.has(fok) ? fok : nil),
          JoinSide(owner: r.destination, name: "", destination: e.name, column: column),
        ], ownerKey: column))
  }

  /// Many-to-many pairs: the table holding `Z_<dest><NAME>` for both sides.
  private mutating func findJoins(_ schema: Schema, _ graph: ModelGraph) throws {
    var done: Set<String> = []
    for e in schema.entities {
      for r in e.relationships where r.toMany {
        guard let inverseName = r.inverse, let inverse = graph.inverse(of: r), inverse.toMany else {
          if r.inverse == nil { linksInDestination(e, r, graph) }
          continue
        }
        let key = [e.name + "." + r.name, r.destination + "." + inverseName].sorted().joined(separator: "|")
        guard done.insert(key).inserted, let mine = number(of: r.destination), let theirs = number(of: e.name) else { continue }
        let wantMine = "Z_\(mine)\(r.name.uppercased())"
        let wantTheirs = "Z_\(theirs)\(inverseName.uppercased())"
        // A relationship that is its own inverse (friends ↔ friends) has two columns of the
        // same name but for the number Core Data adds (Z_1FRIENDS, Z_1FRIENDS1), one per side.
        func match(_ t: CoreDataLayout.Table, _ prefix: String, besides taken: String? = nil) -> String? {
          t.columns.map(\.name).first {
            $0 != taken && ($0 == prefix || ($0.hasPrefix(prefix) && $0.dropFirst(prefix.count).allSatisfy(\.isNumber)))
          }
        }
        func columns(_ t: CoreDataLayout.Table) -> (mine: String, theirs: String)? {
          guard let mine = match(t, wantMine), let theirs = match(t, wantTheirs, besides: mine) else { return nil }
          return (mine, theirs)
        }
        guard
          let table = layout.tables.values.sorted(by: { $0.name < $1.name }).first(where: {
            CoreDataMapping.joinKey($0.name) != nil && columns($0) != nil
          }), let (mineColumn, theirsColumn) = columns(table)
        else {
          warnings.append("no join table holds \(e.name).\(r.name) (columns \(wantMine), \(wantTheirs)); its links are not read")
          missingColumns += 1
          continue
        }
        func side(_ owner: String, _ name: String, _ destination: String, _ column: String) -> JoinSide {
          let fok = "Z_FOK_" + column.dropFirst(2)
          return JoinSide(owner: owner, name: name, destination: destination, column: column, positionColumn: table.has(fok) ? fok : nil)
        }
        joins.append(
          Join(
            table: table.name,
            sides: [
              side(e.name, r.name, r.destination, mineColumn),
              side(
                StorageLayout.owningEntity(of: inverse, in: graph[r.destination]!, graph: graph).name, inverseName, e.name, theirsColumn),
            ]))
      }
    }
  }
}
