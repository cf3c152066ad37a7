import CoreDataTooling
import Foundation
import SQLiteCore
import TestSupport

/// Writes a store in Core Data's SQLite layout for one model version, read from the version's
/// `contents` alone (not from ModelStore's import of it), with objects of every concrete
/// entity and links for every stored relationship, and says what Core Data reads from it:
/// the objects of each entity and the links of each relationship of each entity.
///
/// Core Data's layout, as the corpus's stores show it (`shared/corpus/coredata-stores`;
/// `CoreDataWrittenStoreTests` compares the layout written here with theirs):
/// - entities numbered from 1 (`Z_ENT`): root entities by name, each followed by its
///   sub-entities depth-first, by name; `Z_PRIMARYKEY` lists them with `Z_SUPER`, and `Z_MAX`
///   (the table's largest key) on the root;
/// - one table per inheritance tree, `Z<ROOT>`: `Z_PK`, `Z_ENT`, `Z_OPT`, then `Z<NAME>` per
///   stored attribute and to-one relationship of every entity of the tree (a name already
///   taken in the table gets the next free `Z<NAME>1`, `Z<NAME>2`, ...); a to-one to an entity
///   with sub-entities also has `Z<n>_<NAME>` with the destination's `Z_ENT` (artsy:
///   `Z7_COVER`), and one whose inverse is an ordered to-many the position `Z_FOK_<NAME>`
///   (Bookmarks_V4: `Z_FOK_PARENT`);
/// - a to-many whose inverse is a to-one is stored by that to-one's column;
/// - a to-many without inverse: its owner's key in the destination's table, `Z<n><NAME>`
///   (n the declaring entity's `Z_ENT`; ArtsyPartner_1.6: `Z1DOCUMENTS`), with
///   `Z_FOK_<n><NAME>` when ordered;
/// - a many-to-many pair: one join table `Z_<n><NAME>` (after the side of the lower `Z_ENT`)
///   with, per side, `Z_<m><NAME>` holding the keys of that side's destination (m its `Z_ENT`;
///   a name an earlier join table took gets a number, artsy: `Z_2ARTISTS1`), and
///   `Z_FOK_<m><NAME>` for an ordered side (Bookmarks_V4: `Z_FOK_1FAVORITES`);
/// - transient attributes and relationships, fetched properties: nothing (derived
///   attributes are stored);
/// - `Z_METADATA`: the store's UUID and a binary plist with `NSStoreModelVersionHashes` (a key
///   per entity) and `NSStoreModelVersionIdentifiers` (the version's identifier).
struct CoreDataStoreWriter {
  struct Attribute {
    var name: String
    var type: String
    var optional: Bool
    var external: Bool
  }

  struct Relationship {
    var name: String
    var entity: String
    var destination: String
    var inverse: String?
    var toMany: Bool
    var ordered: Bool
    var optional: Bool
  }

  struct Entity {
    var name: String
    var parent: String?
    var abstract: Bool
    var attributes: [Attribute] = []
    var relationships: [Relationship] = []
  }

  struct Table {
    var name: String
    var columns: [(name: String, type: String)] = []
    var primaryKey: [String] = []

    func has(_ column: String) -> Bool { columns.contains { $0.name == column } }
  }

  /// What Core Data reads from the written store.
  struct Expected: Equatable {
    /// Objects of exactly each entity (an abstract one has none).
    var objects: [String: Int] = [:]
    /// Links per `Entity.relationship` (the objects of exactly that entity, the relationship
    /// declared on it or inherited), every relationship that is stored, zero included.
    var links: [String: Int] = [:]
  }

  /// In `Z_ENT` order.
  private(set) var entities: [Entity] = []
  let identifier: String
  var number: [String: Int] = [:]
  var index: [String: Int] = [:]
  var children: [String: [String]] = [:]

  init(contents path: String) throws {
    guard let bytes = FileManager.default.contents(atPath: path) else {
      throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }
    try self.init(xml: Array(bytes))
  }

  /// A model given as the text of its `contents`.
  init(xml bytes: [UInt8]) throws {
    let model = try XMLReader.parse(bytes)
    identifier = model[attribute: "userDefinedModelVersionIdentifier"] ?? ""
    func yes(_ e: XMLElement, _ name: String) -> Bool { e[attribute: name] == "YES" }
    var read: [Entity] = []
    for e in model.children(named: "entity") {
      guard let name = e[attribute: "name"] else { continue }
      var entity = Entity(name: name, parent: e[attribute: "parentEntity"], abstract: yes(e, "isAbstract"))
      for a in e.children(named: "attribute") where !yes(a, "transient") {
        guard let attributeName = a[attribute: "name"], let type = a[attribute: "attributeType"] else { continue }
        entity.attributes.append(
          Attribute(
            name: attributeName, type: type, optional: yes(a, "optional"), external: yes(a, "allowsExternalBinaryDataStorage")))
      }
      for r in e.children(named: "relationship") where !yes(r, "transient") {
        guard let relationshipName = r[attribute: "name"], let destination = r[attribute: "destinationEntity"] else { continue }
        entity.relationships.append(
          Relationship(
            name: relationshipName, entity: name, destination: destination, inverse: r[attribute: "inverseName"],
            toMany: yes(r, "toMany"), ordered: yes(r, "ordered"), optional: yes(r, "optional")))
      }
      read.append(entity)
    }
    let names = Set(read.map(\.name))
    for e in read {
      if let p = e.parent, names.contains(p) { children[p, default: []].append(e.name) }
    }
    let byName = Dictionary(read.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    func visit(_ name: String) {
      entities.append(byName[name]!)
      for child in (children[name] ?? []).sorted() { visit(child) }
    }
    for root in read.filter({ $0.parent.map { !names.contains($0) } ?? true }).map(\.name).sorted() { visit(root) }
    for (k, e) in entities.enumerated() {
      number[e.name] = k + 1
      index[e.name] = k
    }
    // Relationships to an entity the model lacks store nothing Core Data could read.
    for k in entities.indices { entities[k].relationships.removeAll { number[$0.destination] == nil } }
  }

  func entity(_ name: String) -> Entity { entities[index[name]!] }

  func root(of name: String) -> String {
    var e = entity(name)
    while let p = e.parent, index[p] != nil { e = entity(p) }
    return e.name
  }

  /// The entity and its descendants, in `Z_ENT` order.
  func subtree(_ name: String) -> [String] { [name] + (children[name] ?? []).sorted().flatMap { subtree($0) } }

  /// The relationship named `name` of `entity` or of one of its ancestors.
  func relationship(_ name: String?, of entity: String) -> Relationship? {
    guard let name else { return nil }
    var e: Entity? = self.entity(entity)
    while let current = e {
      if let r = current.relationships.first(where: { $0.name == name }) { return r }
      e = current.parent.flatMap { index[$0] != nil ? self.entity($0) : nil }
    }
    return nil
  }

  /// Every relationship `entity` has, its ancestors' first.
  func relationships(of name: String) -> [Relationship] {
    let e = entity(name)
    return (e.parent.flatMap { index[$0] != nil ? relationships(of: $0) : nil } ?? []) + e.relationships
  }

  static func tableName(_ root: String) -> String { "Z" + root.uppercased() }

  /// How a to-many is stored: by its inverse's to-one column, in a join table, or by a key
  /// column in the destination's table.
  enum ToManyStorage { case inverseColumn(Relationship), join(Relationship), ownerColumn }

  func storage(of r: Relationship) -> ToManyStorage {
    guard let inverse = relationship(r.inverse, of: r.destination) else { return .ownerColumn }
    return inverse.toMany ? .join(inverse) : .inverseColumn(inverse)
  }

  /// Where each stored property is.
  struct Layout {
    /// In creation order: the entity tables, then the join tables.
    var tables: [Table] = []
    /// `Entity.property` (the declaring entity) → its column; `fok:Entity.toOne` → its
    /// position column; `owner:Entity.toMany` → the owner key of a to-many without inverse;
    /// `join:Entity.toMany` → its side of a join table.
    var columns: [String: (table: String, column: String)] = [:]
    /// `TABLE.COLUMN` of every column holding a key or a position.
    var keys: Set<String> = []

    func table(_ name: String) -> Table { tables.first { $0.name == name }! }
  }

  func layout() -> Layout {
    var layout = Layout()
    var tableIndex: [String: Int] = [:]
    func add(_ base: String, _ type: String, to t: Int, key: Bool) -> String {
      let name = Self.free(base) { layout.tables[t].has($0) }
      layout.tables[t].columns.append((name, type))
      if key { layout.keys.insert(layout.tables[t].name + "." + name) }
      return name
    }
    for e in entities where e.parent.map({ index[$0] == nil }) ?? true {
      tableIndex[e.name] = layout.tables.count
      layout.tables.append(Table(name: Self.tableName(e.name), primaryKey: ["Z_PK"]))
      for fixed in ["Z_PK", "Z_ENT", "Z_OPT"] { _ = add(fixed, "INTEGER", to: layout.tables.count - 1, key: true) }
    }
    for e in entities {
      let t = tableIndex[root(of: e.name)]!
      let table = layout.tables[t].name
      for a in e.attributes {
        layout.columns["\(e.name).\(a.name)"] = (table, add("Z" + a.name.uppercased(), Self.sqlType(a.type), to: t, key: false))
      }
      for r in e.relationships where !r.toMany {
        layout.columns["\(e.name).\(r.name)"] = (table, add("Z" + r.name.uppercased(), "INTEGER", to: t, key: true))
        if children[r.destination] != nil {
          layout.columns["ent:\(e.name).\(r.name)"] = (
            table, add("Z\(number[r.destination]!)_" + r.name.uppercased(), "INTEGER", to: t, key: true)
          )
        }
        if let inverse = relationship(r.inverse, of: r.destination), inverse.toMany, inverse.ordered {
          layout.columns["fok:\(e.name).\(r.name)"] = (table, add("Z_FOK_" + r.name.uppercased(), "INTEGER", to: t, key: true))
        }
      }
    }
    var joinColumns: Set<String> = []
    func joinColumn(_ base: String) -> String {
      let name = Self.free(base) { joinColumns.contains($0) }
      joinColumns.insert(name)
      return name
    }
    var joined: Set<String> = []
    for e in entities {
      for r in e.relationships where r.toMany {
        switch storage(of: r) {
        case .inverseColumn: continue
        case .ownerColumn:
          let t = tableIndex[root(of: r.destination)]!
          let column = add("Z\(number[e.name]!)" + r.name.uppercased(), "INTEGER", to: t, key: true)
          layout.columns["owner:\(e.name).\(r.name)"] = (layout.tables[t].name, column)
          if r.ordered {
            layout.columns["fok:\(e.name).\(r.name)"] = (
              layout.tables[t].name, add("Z_FOK_" + column.dropFirst(), "INTEGER", to: t, key: true)
            )
          }
        case .join(let inverse):
          let pair = ["\(e.name).\(r.name)", "\(inverse.entity).\(inverse.name)"].sorted().joined(separator: "|")
          guard joined.insert(pair).inserted else { continue }
          // Named after the side of the lower Z_ENT (of one entity's two: the later name,
          // Bookmarks_V4's Z_1FAVORITES of favoriteFolders ↔ favorites); the other side's
          // column first. A relationship that is its own inverse has two columns.
          let mineFirst = (number[e.name]!, r.name) >= (number[inverse.entity]!, inverse.name)
          let (first, second) =
            number[e.name]! != number[inverse.entity]!
            ? (number[e.name]! < number[inverse.entity]! ? (r, inverse) : (inverse, r)) : (mineFirst ? (r, inverse) : (inverse, r))
          var table = Table(name: "Z_\(number[first.entity]!)" + first.name.uppercased())
          var sides: [(key: String, column: String, ordered: Bool)] = []
          for (k, side) in [second, first].enumerated() {
            let column = joinColumn("Z_\(number[side.destination]!)" + side.name.uppercased())
            table.columns.append((column, "INTEGER"))
            table.primaryKey.append(column)
            sides.append(
              (k == 0 && first.name == second.name && first.entity == second.entity ? "joinback:" : "join:", column, side.ordered))
            layout.columns[sides[k].key + "\(side.entity).\(side.name)"] = (table.name, column)
          }
          for side in sides where side.ordered { table.columns.append(("Z_FOK_" + side.column.dropFirst(2), "INTEGER")) }
          for c in table.columns { layout.keys.insert(table.name + "." + c.name) }
          layout.tables.append(table)
        }
      }
    }
    return layout
  }

  /// `base`, or Core Data's next name for it when taken: `base1`, `base2`, ...
  static func free(_ base: String, taken: (String) -> Bool) -> String {
    var name = base
    var n = 0
    while taken(name) {
      n += 1
      name = base + String(n)
    }
    return name
  }

  static func sqlType(_ attributeType: String) -> String {
    switch attributeType {
    case "Integer 16", "Integer 32", "Integer 64", "Boolean": return "INTEGER"
    case "Double", "Float": return "FLOAT"
    case "Decimal": return "DECIMAL"
    case "Date": return "TIMESTAMP"
    case "String", "URI": return "VARCHAR"
    default: return "BLOB"
    }
  }
}
