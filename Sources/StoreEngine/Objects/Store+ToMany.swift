import DatabaseKit
import JSONCore
import SchemaModel

/// Reading the to-many relationships of a whole page of objects at once: one statement
/// per relationship (per storage: a foreign key column or a join table) and kind (ids or
/// count), whatever the number of objects, and none for relationships left out. Counts
/// are computed by SQLite (`count(*)` over the foreign key or join table index), never by
/// reading ids.
extension Store {
  /// Appends to each object the to-many members `shape` asks for, in relationship order
  /// (after its attributes and to-ones). Each object's entity and key come from its `_id`.
  func addToMany(_ objects: inout [JSONObject], _ shape: ToManyShape) throws {
    guard !objects.isEmpty else { return }
    let owners = objects.map { o in o["_id"]?.stringValue.flatMap(ObjectID.init) }
    let members = try toManyMembers(owners, shape)
    for i in objects.indices where !members[i].isEmpty { objects[i].members.append(contentsOf: members[i]) }
  }

  /// True when an object of `entity` or of one of its sub-entities gets a to-many member.
  func readsToMany(_ entity: EntityPlan, _ shape: ToManyShape) -> Bool {
    entity.model.concreteNames.contains { name in catalog.plans[name]?.toMany.contains { shape.read($0) != nil } ?? false }
  }

  /// The array `w` holds with each object of `open` (written without its closing brace,
  /// which was at `end`) completed by its to-many members and closed: the members are
  /// read for all the objects at once, then the array is copied once around them.
  func closingWithToMany(_ w: JSONWriter, _ open: [(id: ObjectID, end: Int)], _ shape: ToManyShape) throws -> JSONWriter {
    let members = try toManyMembers(open.map(\.id), shape)
    var out = JSONWriter(capacity: w.bytes.count + open.count * 16)
    var from = 0
    for (i, o) in open.enumerated() {
      out.bytes.append(contentsOf: w.bytes[from..<o.end])
      for m in members[i] {
        out.bytes.append(UInt8(ascii: ","))
        out.writeString(m.key)
        out.bytes.append(UInt8(ascii: ":"))
        out.write(m.value)
      }
      out.bytes.append(UInt8(ascii: "}"))
      from = o.end
    }
    out.bytes.append(contentsOf: w.bytes[from...])
    return out
  }

  /// The to-many members `shape` asks for, per owner (aligned with `owners`; a nil owner
  /// gets none), each list in relationship order.
  func toManyMembers(_ owners: [ObjectID?], _ shape: ToManyShape) throws -> [[JSONObject.Member]] {
    // 1. Which relationship storage each owner needs read, and how.
    var groups: [ToManyGroup] = []
    var wanted: [[(name: String, group: Int)]] = []
    wanted.reserveCapacity(owners.count)
    for owner in owners {
      guard let owner, let plan = catalog.plans[owner.entity] else {
        wanted.append([])
        continue
      }
      var list: [(name: String, group: Int)] = []
      for r in plan.toMany {
        guard let how = shape.read(r), let storage = plan.storage[r.name] else { continue }
        let g: Int
        if let found = groups.firstIndex(where: { $0.matches(storage, r, how) }) {
          g = found
        } else {
          g = groups.count
          groups.append(ToManyGroup(storage: storage, relationship: r, read: how))
        }
        if groups[g].seen.insert(owner.pk).inserted { groups[g].pks.append(owner.pk) }
        list.append((r.name, g))
      }
      wanted.append(list)
    }
    guard !groups.isEmpty else { return wanted.map { _ in [] } }
    // 2. One statement per group, for all its owners.
    var values: [[Int64: JSONValue]] = []
    for g in groups {
      try checkCancelled()
      values.append(try readToMany(g))
    }
    // 3. Each owner's members; an owner without rows has none related.
    return owners.indices.map { i in
      wanted[i].map { name, g in
        JSONObject.Member(name, values[g][owners[i]!.pk] ?? (groups[g].read == .count ? .int(0) : .array([])))
      }
    }
  }

  /// The ids (in relationship order) or the count of `group`'s relationship for each of its
  /// owners that has related objects.
  private func readToMany(_ group: ToManyGroup) throws -> [Int64: JSONValue] {
    let r = group.relationship
    let dest = try plan(r.destination).model
    let polymorphic = dest.root.hasSubentities
    let owner: String
    let from: String
    var idFrom: String
    let id: String
    let order: String
    var shared = ""
    switch group.storage {
    case .foreignKey:
      preconditionFailure("to-many relationship stored as a foreign key")
    case .inverseForeignKey(let table, let col, let pos):
      owner = "d.\(Identifier.quote(col))"
      from = "\(Identifier.quote(table)) d"
      idFrom = from
      id = EntityPlan.idExpression(alias: "d", dest: dest, codes: entityCodes)
      order = (pos.map { connection.dialect.orderTerm("d.\(Identifier.quote($0))", .unstated) + ", " } ?? "") + "d.\"_pk\""
      shared = StorageLayout.sharedInverseColumnFilter(of: r, destination: dest, table: table, alias: "d", codes: entityCodes)
    case .joinTable(let table, let src, let dst, let pos):
      owner = "j.\(Identifier.quote(src))"
      from = "\(Identifier.quote(table)) j"
      idFrom = from
      if polymorphic {
        idFrom += " JOIN \(Identifier.quote(dest.root.name)) d ON d.\"_pk\" = j.\(Identifier.quote(dst))"
        id = EntityPlan.idExpression(alias: "d", dest: dest, codes: entityCodes)
      } else {
        id = "j.\(Identifier.quote(dst))"
      }
      order = (r.ordered ? "j.\(Identifier.quote(pos)), " : "") + "j.\(Identifier.quote(dst))"
    }
    let owners = [SQLValue.text(JSONWriter.encodeString(.array(group.pks.map { .int($0) })))]
    let d = connection.dialect
    let filter = " WHERE \(owner) IN (SELECT \(d.jsonArrayValue(.integer)) FROM \(d.jsonArrayElements("?")))\(shared)"
    var out: [Int64: JSONValue] = [:]
    switch group.read {
    case .count:
      try connection.cached("SELECT \(owner), count(*) FROM \(from)\(filter) GROUP BY \(owner)").forEachRow(owners) {
        out[$0.int(0)] = .int($0.int(1))
      }
    case .ids:
      var current: Int64?
      var items: [JSONValue] = []
      try connection.cached("SELECT \(owner), \(id) FROM \(idFrom)\(filter) ORDER BY \(owner), \(order)").forEachRow(owners) { row in
        let pk = row.int(0)
        if pk != current {
          if let c = current { out[c] = .array(items) }
          current = pk
          items = []
        }
        items.append(.string(polymorphic ? row.text(1) : ObjectID.text(r.destination, row.int(1))))
      }
      if let c = current { out[c] = .array(items) }
    }
    return out
  }
}

/// The owners whose to-many relationship kept in `storage` is read one way.
private struct ToManyGroup {
  let storage: RelationshipStorage
  let relationship: Relationship
  let read: ToManyShape.Read
  var pks: [Int64] = []
  var seen: Set<Int64> = []

  init(storage: RelationshipStorage, relationship: Relationship, read: ToManyShape.Read) {
    self.storage = storage
    self.relationship = relationship
    self.read = read
  }

  func matches(_ s: RelationshipStorage, _ r: Relationship, _ how: ToManyShape.Read) -> Bool {
    storage == s && read == how && relationship.destination == r.destination && relationship.ordered == r.ordered
  }
}
