import DatabaseKit
import JSONCore
import SchemaModel

/// The SQL and column bookkeeping for one entity, computed once per schema so that hot
/// paths only bind and step cached statements.
final class EntityPlan {
  let model: EntityModel
  let graph: ModelGraph
  /// Quoted table name of the hierarchy.
  let table: String
  /// Stored attributes of this entity (inherited first), in insert order.
  let storedAttributes: [Attribute]
  /// To-one relationships of this entity, in insert order after the attributes.
  let toOne: [Relationship]
  let toMany: [Relationship]
  let storage: [String: RelationshipStorage]
  /// The entity's code in `_ent`.
  let code: Int64
  /// Unquoted name of the hierarchy's table.
  let tableName: String
  /// True when the table has an `_ent` column (a hierarchy of several entities, or a
  /// table written before format 2 left it out of the others).
  let tagged: Bool
  /// `INSERT INTO t ("_ent", attrs..., toOnes..., "_pk") VALUES (?, ...)`: the key is
  /// bound last (`KeyAllocator`). Without `"_ent"` in an untagged table, slot 0 is not
  /// inserted (`insertValues`).
  let insertSQL: String
  /// True when the insert binds slot 0 without referring to it (an untagged table where
  /// parameters need no type, SQLite: `VALUES (?2, ?3, ...)`), so the bound values need
  /// no copy without it.
  private let bindsUnusedSlotZero: Bool
  /// Entities whose relationships point here without an inverse (cleared on delete).
  let incomingWithoutInverse: [(EntityModel, Relationship)]
  /// True when a write must re-check required to-ones or to-many counts.
  let needsRelationshipValidation: Bool
  /// For each of `toOne`: setting it on a new row changes no other row (no inverse, or an
  /// unordered to-many one, read through this row's column).
  private let toOneStaysInRow: [Bool]
  /// True where a statement a uniqueness refuses would abort the transaction
  /// (`SQLDialect.failedStatementAbortsTransaction`; never on SQLite), so that the object
  /// holding the value can still be looked up after the refusal: an update runs in a
  /// savepoint of its own, and an insert skips a duplicate instead of failing
  /// (`insertSkippingDuplicates`, PostgreSQL's `ON CONFLICT DO NOTHING`, no savepoint: no
  /// subtransaction and no round trip of its own), the skip then reported as the refusal.
  let guardsUniqueWrites: Bool

  /// Where each stored attribute or to-one goes in the insert's bound values.
  let insertSlot: [String: Int]
  /// The key of each slot (slot 0, `_ent`, has none): `slot(of:after:)` tries the next one first.
  private let slotKeys: [String?]
  /// The insert's bound values before any given value: the entity code, encoded literal
  /// defaults, NULL elsewhere, the key last (NULL, set by each insert).
  let insertTemplate: [SQLValue]
  private var cachedInsert: (any PreparedStatement)?
  private var cachedConcreteEntity: (any PreparedStatement)?
  /// `,"name":` as `JSONWriter` writes it, for each attribute (`model.attributes` order),
  /// then each to-one, then each to-many: the members of an object written straight from
  /// the values an insert bound (`Store.insertEncoded`).
  let memberKeys: [[UInt8]]
  /// `"Entity/` as `JSONWriter` writes the start of an id of this entity; the key and the
  /// closing quote follow.
  let wireIDPrefix: [UInt8]
  /// `{"_id":"Entity/`: how an object of this entity starts (`WireObject`'s first member).
  let wireObjectStart: [UInt8]
  /// `,"_entity":"Entity"`.
  let wireEntity: [UInt8]
  /// The type of each of `storedAttributes` (read without copying the attribute).
  let storedTypes: [AttributeType]
  /// What an object written from an insert's bound values has for each attribute
  /// (`model.attributes` order): a stored value of its type, or a transient's default.
  let replyAttributes: [ReplyAttribute]
  enum ReplyAttribute {
    case stored(AttributeType)
    case transient(JSONValue)
  }
  /// Indexes in `storedAttributes` of the attributes without a literal default: an insert
  /// that does not give them generates a value or refuses (literal defaults are in the template).
  let unsetChecks: [Int]

  /// The prepared insert, kept here so the hot path skips the cache lookup by SQL text.
  func insertStatement(_ connection: any DatabaseConnection) throws -> any PreparedStatement {
    try kept(&cachedInsert, insertSQL, connection)
  }

  /// The values an insert binds: `bound` (the template's layout) without slot 0 where the
  /// table has no `_ent`.
  func insertValues(_ bound: [SQLValue]) -> [SQLValue] { tagged || bindsUnusedSlotZero ? bound : Array(bound.dropFirst()) }

  /// `SELECT "_ent" FROM table WHERE "_pk" = ?`, kept here like the insert: every to-one
  /// a write sets looks its target up with it (`Store.concreteID`).
  func concreteEntityStatement(_ connection: any DatabaseConnection) throws -> any PreparedStatement {
    try kept(&cachedConcreteEntity, "SELECT \(codes.column(tableName)) FROM \(table) WHERE \"_pk\" = ?", connection)
  }

  private func kept(
    _ slot: inout (any PreparedStatement)?, _ sql: @autoclosure () -> String, _ connection: any DatabaseConnection
  ) throws -> any PreparedStatement {
    if let s = slot { return s }
    let s = try connection.cached(sql())
    slot = s
    return s
  }

  /// `insertSlot[key]`, trying first the slot after `previous`: values usually come in the
  /// model's order, and comparing two keys costs less than hashing one.
  func slot(of key: String, after previous: Int) -> Int? {
    let next = previous + 1
    if next < slotKeys.count, slotKeys[next] == key { return next }
    return insertSlot[key]
  }

  init(model: EntityModel, graph: ModelGraph, codes: EntityCodes, dialect: any SQLDialect) {
    self.model = model
    guardsUniqueWrites = dialect.failedStatementAbortsTransaction && !model.uniqueness.isEmpty
    self.graph = graph
    self.codes = codes
    code = codes.code(model.name)!
    tableName = StorageLayout.table(model)
    table = Identifier.quote(tableName)
    tagged = codes.isTagged(tableName)
    storedAttributes = model.attributes.filter { !$0.transient }
    toOne = model.relationships.filter { !$0.toMany }
    toMany = model.relationships.filter(\.toMany)
    var storage: [String: RelationshipStorage] = [:]
    for r in model.relationships { storage[r.name] = StorageLayout.storage(of: r, in: model, graph: graph) }
    self.storage = storage
    let cols =
      (tagged ? ["\"_ent\""] : []) + storedAttributes.map { Identifier.quote($0.name) } + toOne.map { Identifier.quote($0.name) } + [
        "\"_pk\""
      ]
    // A parameter that needs no type (SQLite) may go unreferenced; PostgreSQL types each one.
    bindsUnusedSlotZero = !tagged && dialect.parameter("?1", .integer(0)) == "?1"
    let values = bindsUnusedSlotZero ? (2...cols.count + 1).map { "?\($0)" } : Array(repeating: "?", count: cols.count)
    let insert = "\(table) (\(cols.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
    insertSQL = guardsUniqueWrites ? dialect.insertSkippingDuplicates(insert) : "INSERT INTO " + insert
    var slots: [String: Int] = [:]
    var template: [SQLValue] = [.integer(code)]
    for a in storedAttributes {
      slots[a.name] = template.count
      if case .literal(let v)? = a.defaultValue, let encoded = try? a.type.encode(v) {
        template.append(encoded)
      } else {
        template.append(.null)
      }
    }
    for r in toOne {
      slots[r.name] = template.count
      template.append(.null)
    }
    template.append(.null)  // the key
    insertSlot = slots
    slotKeys = [nil] + storedAttributes.map(\.name) + toOne.map(\.name)
    memberKeys = (model.attributes.map(\.name) + toOne.map(\.name) + toMany.map(\.name)).map { name in
      var w = JSONWriter(capacity: name.utf8.count + 4)
      w.bytes.append(UInt8(ascii: ","))
      w.writeString(name)
      w.bytes.append(UInt8(ascii: ":"))
      return w.bytes
    }
    wireIDPrefix = Array(JSONWriter.encode(.string(model.name + ObjectID.separator)).dropLast())
    wireObjectStart = [UInt8(ascii: "{")] + JSONWriter.encode(.string(WireObject.idKey)) + [UInt8(ascii: ":")] + wireIDPrefix
    wireEntity =
      [UInt8(ascii: ",")] + JSONWriter.encode(.string(WireObject.entityKey)) + [UInt8(ascii: ":")] + JSONWriter.encode(.string(model.name))
    let stored = storedAttributes
    storedTypes = stored.map(\.type)
    replyAttributes = model.attributes.map { a in
      a.transient ? .transient(WireObject.transient(a)) : .stored(a.type)
    }
    unsetChecks = stored.indices.filter {
      if case .literal? = stored[$0].defaultValue { return false }
      return true
    }
    insertTemplate = template
    incomingWithoutInverse = graph.incomingWithoutInverse(to: model)
    needsRelationshipValidation = model.relationships.contains {
      (!$0.toMany && !$0.optional) || ($0.toMany && (($0.minCount ?? 0) > 0 || ($0.maxCount ?? 0) > 0))
    }
    toOneStaysInRow = toOne.map { r in graph.inverse(of: r).map { $0.toMany && !$0.ordered } ?? true }
  }

  /// True when nothing an insert of this entity does after its INSERT can fail or write,
  /// given the to-one targets it sets (`Store.insertObject`, the order there): no
  /// relationship of the new object or of a target to check again (`finish`), and no
  /// inverse kept in another row (`linkToOne` then only notes the target as touched).
  func insertEndsAtItsRow(_ targets: [(index: Int, target: ObjectID, plan: EntityPlan)]) -> Bool {
    if needsRelationshipValidation { return false }
    for t in targets where !toOneStaysInRow[t.index] || t.plan.needsRelationshipValidation { return false }
    return true
  }

  let codes: EntityCodes

  /// SQL filter restricting a hierarchy table to this entity (and its sub-entities when
  /// `deep`); empty for a root fetched deep.
  func entityFilter(alias: String, deep: Bool = true) -> String {
    if model.isRoot && deep { return "" }
    return codes.filter(codes.column(tableName, alias: alias), deep ? model.concreteNames : [model.name])
  }

  /// The SQL expression giving the wire id of a destination row `alias` of `dest`: its
  /// key, or `Entity/key` when the destination's hierarchy has several entities.
  static func idExpression(alias: String, dest: EntityModel, codes: EntityCodes) -> String {
    guard dest.root.hasSubentities else { return "\(alias).\"_pk\"" }
    return ObjectID.sql(
      entity: codes.nameSQL(codes.column(dest.root.name, alias: alias), dest.root.hierarchy.map(\.name)), pk: "\(alias).\"_pk\"")
  }
}

/// How to turn one row of a hierarchy's select into an object of a concrete entity.
final class ReadPlan {
  enum Slot {
    case attribute(Attribute, column: Int)
    case transient(Attribute)
    /// To-one: key column, and the column with the destination's entity name if polymorphic.
    case toOne(Relationship, column: Int, entityColumn: Int?, destination: String)
    /// To-many: a column with comma-separated keys (or `Entity/pk` when polymorphic),
    /// computed only by `selectSQL(for:keys:)` (an export).
    case toMany(Relationship, column: Int, destination: String)
  }

  /// `SELECT t._pk, t._ent, ... FROM table t` (no WHERE). To-many columns are NULL: a
  /// fetch reads the to-many relationships it sends for a whole page at once
  /// (`Store.addToMany`), and none it does not send.
  let selectSQL: String
  private let columnList: String
  /// The column expressions, in order, to-many ones included (`selectSQL(for:keys:)`).
  private let columns: [String]
  private let fromClause: String
  let slotsByEntity: [String: [Slot]]

  /// Decodes `_ent` (column 1) and polymorphic to-one entities.
  let codes: EntityCodes

  /// Builds the select for every entity of `root`'s hierarchy.
  init(root: EntityModel, graph: ModelGraph, plans: [String: EntityPlan], codes: EntityCodes, dialect: any SQLDialect) {
    self.codes = codes
    var exprs = ["t.\"_pk\"", codes.column(root.name, alias: "t")]
    var columnIndex: [String: Int] = [:]
    var relIndex: [String: (Int, Int?)] = [:]
    var toManyColumns: Set<Int> = []
    let polymorphicHierarchy = root.hasSubentities
    func add(_ e: String) -> Int {
      exprs.append(e)
      return exprs.count - 1
    }
    for c in StorageLayout.columns(ofHierarchy: root, graph: graph) where !c.name.hasPrefix("_") {
      columnIndex[c.name] = add("t.\(Identifier.quote(c.name))")
    }
    var slots: [String: [Slot]] = [:]
    for m in root.hierarchy {
      guard let plan = plans[m.name] else { continue }
      var list: [Slot] = []
      for a in m.attributes {
        if a.transient { list.append(.transient(a)) } else { list.append(.attribute(a, column: columnIndex[a.name]!)) }
      }
      for r in m.relationships {
        let dest = graph[r.destination]!
        let key = "\(r.name)->\(r.destination)"
        switch plan.storage[r.name]! {
        case .foreignKey(let col):
          if relIndex[key] == nil {
            var entCol: Int? = nil
            if dest.root.hasSubentities {
              entCol = add(
                "(SELECT \(codes.column(dest.root.name, alias: "d")) FROM \(Identifier.quote(dest.root.name)) d WHERE d.\"_pk\" = t.\(Identifier.quote(col)))"
              )
            }
            relIndex[key] = (columnIndex[col]!, entCol)
          }
          let (c, ec) = relIndex[key]!
          list.append(.toOne(r, column: c, entityColumn: ec, destination: r.destination))
        case .inverseForeignKey(let table, let col, let pos):
          if relIndex[key] == nil {
            let order = pos.map { dialect.orderTerm("d.\(Identifier.quote($0))", .unstated) + ", d.\"_pk\"" } ?? "d.\"_pk\""
            let inner =
              "SELECT \(EntityPlan.idExpression(alias: "d", dest: dest, codes: codes)) AS x FROM \(Identifier.quote(table)) d WHERE d.\(Identifier.quote(col)) = t.\"_pk\"\(StorageLayout.sharedInverseColumnFilter(of: r, destination: dest, table: table, alias: "d", codes: codes)) ORDER BY \(order)"
            relIndex[key] = (add(guarded(dialect.orderedList(inner), m, polymorphicHierarchy)), nil)
            toManyColumns.insert(exprs.count - 1)
          }
          list.append(.toMany(r, column: relIndex[key]!.0, destination: r.destination))
        case .joinTable(let table, let src, let dst, let pos):
          if relIndex[key] == nil {
            let order = r.ordered ? "j.\(Identifier.quote(pos)), j.\(Identifier.quote(dst))" : "j.\(Identifier.quote(dst))"
            let inner: String
            if dest.root.hasSubentities {
              inner =
                "SELECT \(EntityPlan.idExpression(alias: "d", dest: dest, codes: codes)) AS x FROM \(Identifier.quote(table)) j JOIN \(Identifier.quote(dest.root.name)) d ON d.\"_pk\" = j.\(Identifier.quote(dst)) WHERE j.\(Identifier.quote(src)) = t.\"_pk\" ORDER BY \(order)"
            } else {
              inner =
                "SELECT j.\(Identifier.quote(dst)) AS x FROM \(Identifier.quote(table)) j WHERE j.\(Identifier.quote(src)) = t.\"_pk\" ORDER BY \(order)"
            }
            relIndex[key] = (add(guarded(dialect.orderedList(inner), m, polymorphicHierarchy)), nil)
            toManyColumns.insert(exprs.count - 1)
          }
          list.append(.toMany(r, column: relIndex[key]!.0, destination: r.destination))
        }
      }
      slots[m.name] = list
    }
    slotsByEntity = slots
    columns = exprs
    columnList = exprs.indices.map { toManyColumns.contains($0) ? "NULL" : exprs[$0] }.joined(separator: ", ")
    fromClause = " FROM \(Identifier.quote(root.name)) t"
    selectSQL = "SELECT " + columnList + fromClause

    /// In a shared table, only compute a sub-entity's to-many list for its own rows.
    func guarded(_ expr: String, _ owner: EntityModel, _ polymorphic: Bool) -> String {
      guard polymorphic else { return expr }
      return "CASE WHEN \(codes.filter(codes.column(root.name, alias: "t"), owner.concreteNames)) THEN \(expr) END"
    }
  }

  /// `selectSQL` with `extra` as one more column, the row's last (`sectionBy` keys).
  func selectSQL(appending extra: String) -> String { "SELECT " + columnList + ", " + extra + fromClause }

  /// `selectSQL` computing only the columns that `entity`'s members named in `keys`
  /// read; every other column is NULL at the same position, so `object(_:select:)` with
  /// the same `keys` reads the rows unchanged. An export uses it so that to-many lists it
  /// leaves out are never built.
  func selectSQL(for entity: String, keys: Set<String>) -> String {
    var used: Set<Int> = [0, 1]
    for slot in slotsByEntity[entity] ?? [] {
      switch slot {
      case .attribute(let a, let c): if keys.contains(a.name) { used.insert(c) }
      case .transient: break
      case .toOne(let r, let c, let ec, _):
        guard keys.contains(r.name) else { continue }
        used.insert(c)
        if let ec { used.insert(ec) }
      case .toMany(let r, let c, _): if keys.contains(r.name) { used.insert(c) }
      }
    }
    let list = columns.indices.map { used.contains($0) ? columns[$0] : "NULL" }
    return "SELECT " + list.joined(separator: ", ") + fromClause
  }

  /// The wire object for the current row of a statement running `selectSQL`: attributes
  /// and to-ones. To-many relationships come from their columns only with
  /// `toManyColumns` (a row of `selectSQL(for:keys:)`); otherwise they are left out.
  func object(_ row: any ResultRow, select: Set<String>? = nil, toManyColumns: Bool = false) -> JSONObject {
    let pk = row.int(0)
    let entity = codes.name(row, 1)
    var o = WireObject.start(entity, pk, members: slotsByEntity[entity]?.count ?? 0)
    guard let slots = slotsByEntity[entity] else { return o }
    for slot in slots {
      switch slot {
      case .attribute(let a, let c):
        if let select, !select.contains(a.name) { continue }
        o.append(a.name, a.type.decode(row.value(c)))
      case .transient(let a):
        if let select, !select.contains(a.name) { continue }
        o.append(a.name, WireObject.transient(a))
      case .toOne(let r, let c, let ec, let dest):
        if let select, !select.contains(r.name) { continue }
        o.append(r.name, WireObject.toOne(row, column: c, entityColumn: ec, destination: dest, codes: codes))
      case .toMany(let r, let c, let dest):
        guard toManyColumns else { continue }
        if let select, !select.contains(r.name) { continue }
        o.append(r.name, WireObject.toMany(row, column: c, destination: dest))
      }
    }
    return o
  }

  /// The id of the current row's object (a row of `selectSQL`).
  func id(_ row: any ResultRow) -> ObjectID { ObjectID(entity: codes.name(row, 1), pk: row.int(0)) }
}
