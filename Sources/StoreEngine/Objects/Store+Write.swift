import DatabaseKit
import JSONCore
import SchemaModel

/// Inserting and updating objects.
extension Store {
  /// Inserts one object and returns it as stored (defaults applied, inverses in place),
  /// with its to-many relationships as `toMany` asks.
  public func insert(entity: String, values: JSONObject, toMany: ToManyMode = .none) throws -> JSONObject {
    try write {
      let ctx = WriteContext()
      let id = try insertObject(entity, values, ctx, path: ErrorPlace(.values))
      try finish(ctx)
      return try object(id, toMany: toMany)
    }
  }

  /// What `insert` returns, as JSON text (`objects.insert`'s result). Without to-many
  /// values the stored row is exactly what was bound, and its to-ones are the targets
  /// resolved: the text is written from them, member by member, instead of reading the
  /// row back and building an object (the hot path of bulk inserts).
  public func insertEncoded(entity: String, values: JSONObject, toMany: ToManyMode = .none) throws -> EncodedJSON {
    let ctx = WriteContext()
    return try writeOpeningLevelOnDemand(ctx) {
      let id = try insertObject(entity, values, ctx, path: ErrorPlace(.values))
      try finish(ctx)
      if let bound = ctx.lastInsertBound {
        return encodedFromBound(id, catalog.plans[id.entity]!, bound, toOne: ctx.lastInsertToOne, toMany: toMany)
      }
      var w = JSONWriter()
      w.write(try object(id, toMany: toMany))
      return EncodedJSON(writtenBy: w)
    }
  }

  /// The wire object of a row of `plan` just inserted with `bound`, its to-ones set to
  /// `toOne` and no to-many values (so with no related object through a to-many: an
  /// inverse kept in step changes other rows, never this one's values). The same members
  /// in the same order as `object(_:toMany:)` reads back.
  private func encodedFromBound(
    _ id: ObjectID, _ plan: EntityPlan, _ bound: [SQLValue], toOne: [(index: Int, target: ObjectID, plan: EntityPlan)], toMany: ToManyMode
  ) -> EncodedJSON {
    let quote = UInt8(ascii: "\"")
    var w = JSONWriter(capacity: 256)
    w.bytes.append(contentsOf: plan.wireObjectStart)
    w.writeInt(id.pk)
    w.bytes.append(quote)
    w.bytes.append(contentsOf: plan.wireEntity)
    var stored = 1
    var key = 0
    for a in plan.replyAttributes {
      w.bytes.append(contentsOf: plan.memberKeys[key])
      key += 1
      switch a {
      case .stored(let type):
        type.write(bound[stored], to: &w)
        stored += 1
      case .transient(let value): w.write(value)
      }
    }
    var next = 0  // in `toOne`, which is in `plan.toOne` order
    for k in plan.toOne.indices {
      w.bytes.append(contentsOf: plan.memberKeys[key])
      key += 1
      if next < toOne.count && toOne[next].index == k {
        w.bytes.append(contentsOf: toOne[next].plan.wireIDPrefix)
        w.writeInt(toOne[next].target.pk)
        w.bytes.append(quote)
        next += 1
      } else {
        w.writeRaw("null")
      }
    }
    if toMany != .none {
      for _ in plan.toMany {
        w.bytes.append(contentsOf: plan.memberKeys[key])
        key += 1
        if toMany == .ids { w.writeRaw("[]") } else { w.writeRaw("0") }
      }
    }
    w.bytes.append(UInt8(ascii: "}"))
    return EncodedJSON(writtenBy: w)
  }

  /// Updates the given keys of one object and returns it. With `ifVersion`, the update
  /// applies only while the object's version (`_opt`, raised by every change, like Core
  /// Data's `Z_OPT`) is still that one; otherwise it fails with `conflict`, so of two
  /// writers that read the same version only the first wins. The comparison and the
  /// update run under the write lock (`write` opens `BEGIN IMMEDIATE`), and the object
  /// returned carries its new `_version`, read by the same statement as its values.
  public func update(id: String, values: JSONObject, ifVersion: Int64? = nil, toMany: ToManyMode = .none) throws -> JSONObject {
    try write {
      let ctx = WriteContext()
      let oid = try existingID(id, path: ErrorPlace(.id))
      if let expected = ifVersion {
        let actual = try version(of: oid)
        guard actual == expected else {
          throw StoreError(
            .conflict, "\(oid) is at version \(actual), not \(expected): another write changed it since it was read",
            ["id": .string(oid.description), "expected": .int(expected), "actual": .int(actual)])
        }
      }
      try updateObject(oid, values, ctx, path: ErrorPlace(.values))
      try finish(ctx)
      return try object(oid, withVersion: ifVersion != nil, toMany: toMany)
    }
  }

  /// The object's change counter (`_opt`).
  func version(of id: ObjectID) throws -> Int64 {
    let plan = try plan(id.entity)
    let version = try catalog.versions.expression(plan.tableName, alias: nil, connection)
    return try connection.cached("SELECT \(version) FROM \(plan.table) WHERE \"_pk\" = ?").first([.integer(id.pk)]) { $0.int(0) } ?? 0
  }

  /// Inserts, or updates the object that matches on a uniqueness constraint (SwiftData's
  /// upsert). `on` names the keys to match; by default the first uniqueness constraint
  /// whose keys all appear in `values`.
  public func upsert(entity: String, values: JSONObject, on: [String]?, toMany: ToManyMode = .none) throws -> (
    object: JSONObject, inserted: Bool
  ) {
    try write {
      let plan = try self.plan(entity)
      let keys = try upsertKeys(plan, values, on)
      let ctx = WriteContext()
      var filter: [String] = []
      var args: [SQLValue] = []
      for k in keys {
        filter.append("t.\(Identifier.quote(k)) = ?")
        args.append(try storedValue(plan, key: k, values[k]!, ctx, path: ErrorPlace(.values).key(k)))
      }
      let ent = plan.entityFilter(alias: "t")
      if !ent.isEmpty { filter.append(ent) }
      let existing = try connection.cached(
        "SELECT \(entityCodes.column(plan.tableName, alias: "t")), t.\"_pk\" FROM \(plan.table) t WHERE \(filter.joined(separator: " AND ")) LIMIT 1"
      )
      .first(args) { ObjectID(entity: entityCodes.name($0, 0), pk: $0.int(1)) }
      let id: ObjectID
      if let existing {
        try updateObject(existing, values, ctx, path: ErrorPlace(.values))
        id = existing
      } else {
        id = try insertObject(entity, values, ctx, path: ErrorPlace(.values))
      }
      try finish(ctx)
      return (try object(id, toMany: toMany), existing == nil)
    }
  }

  private func upsertKeys(_ plan: EntityPlan, _ values: JSONObject, _ on: [String]?) throws -> [String] {
    if let on {
      for k in on where values[k] == nil || values[k]!.isNull {
        throw StoreError(
          .validation, at: ErrorPlace(.on), "key '\(k)' has no value in \(place: ErrorPlace(.values))",
          ["entity": .string(plan.model.name), "attribute": .string(k)], placeInData: false)
      }
      guard plan.model.uniqueness.contains(where: { Set($0) == Set(on) }) else {
        throw StoreError(
          .validation, at: ErrorPlace(.on), "[\(on.joined(separator: ", "))] is not a uniqueness constraint of '\(plan.model.name)'",
          ["entity": .string(plan.model.name)], placeInData: false)
      }
      return on
    }
    guard let keys = plan.model.uniqueness.first(where: { $0.allSatisfy { values[$0] != nil && !values[$0]!.isNull } }) else {
      throw StoreError(
        .validation,
        "upsert needs the values of a uniqueness constraint of '\(plan.model.name)' (it has \(plan.model.uniqueness.isEmpty ? "none" : plan.model.uniqueness.map { "[\($0.joined(separator: ", "))]" }.joined(separator: ", ")))",
        ["entity": .string(plan.model.name)])
    }
    return keys
  }

  /// Commits the deferred `$ref` assignments, then checks relationship constraints.
  /// A ref that no insert of the save defined is an error, never silently dropped; work
  /// for objects deleted later in the same save is skipped.
  func finish(_ ctx: WriteContext) throws {
    let pending = ctx.deferred
    ctx.deferred = []
    for d in pending {
      guard let plan = catalog.plans[d.id.entity], try exists(d.id, plan: plan) else { continue }
      ctx.currentIndex = d.index
      try updateObject(d.id, d.values, ctx, path: d.path)
    }
    if let unresolved = ctx.deferred.first {
      let ref =
        unresolved.values.members.lazy.compactMap { m -> String? in
          if case .string(let s) = m.value, s.hasPrefix("$") { return s }
          if case .array(let items) = m.value {
            return items.lazy.compactMap(\.stringValue).first { $0.hasPrefix("$") && ctx.refs[$0] == nil }
          }
          return nil
        }.first ?? "$?"
      var details: JSONObject = ["ref": .string(ref)]
      if let index = unresolved.index { details.append("index", .int(Int64(index))) }
      throw StoreError(.validation, at: unresolved.path, "'\(ref)' is not the ref of any insert in this save", details, placeInData: false)
    }
    if writes.recordsObjectHistory {
      // Objects whose links changed as a side effect (inverses, nullified references).
      // (With `ctx.historyLog`, the request inserted one object, never in `touched`.)
      let log = ctx.historyLog ?? writes.requestLog
      for id in ctx.touched where !writes.requestLog.wasInserted(id) { log.update(id, keys: EmptyCollection()) }
    }
    try validateTouched(ctx)
  }

  /// An existing object named by a wire id; `notFound` otherwise.
  func existingID(_ text: String, path: ErrorPlace) throws -> ObjectID {
    _ = try requireGraph()
    guard let id = ObjectID(text) else {
      throw StoreError(
        .validation, at: path, "'\(text)' is not an object id (expected 'Entity/123')", ["id": .string(text)], placeInData: false)
    }
    guard let plan = catalog.plans[id.entity] else {
      throw StoreError(
        .notFound, at: path, "unknown entity '\(id.entity)' in id '\(text)'", ["id": .string(text), "entity": .string(id.entity)],
        placeInData: false)
    }
    // `_ent` is read from the file: another writer may have put any value there.
    guard let concrete = try concreteID(pk: id.pk, plan: plan), let target = catalog.plans[concrete.entity],
      plan.model.includes(target.model)
    else {
      throw StoreError(.notFound, "object \(text) does not exist", ["id": .string(text)])
    }
    return concrete
  }

  /// The stored form of `value` for attribute or to-one key `key` (for matching).
  func storedValue(_ plan: EntityPlan, key: String, _ value: JSONValue, _ ctx: WriteContext, path: ErrorPlace) throws -> SQLValue {
    if let a = plan.model.attribute(key) { return try encode(a, value, plan, path: path) }
    if let r = plan.model.relationship(key), !r.toMany {
      if value.isNull { return .null }
      return .integer(try resolveTarget(value, r, ctx, path: path, owner: plan.model.name).0.pk)
    }
    throw StoreError(
      .validation, at: path, "'\(key)' is not an attribute or to-one relationship of '\(plan.model.name)'",
      ["entity": .string(plan.model.name), "attribute": .string(key)], placeInData: false)
  }

  /// `path` is only built when the value is refused: this runs for every attribute written.
  func encode(_ a: Attribute, _ value: JSONValue, _ plan: EntityPlan, path: @autoclosure () -> ErrorPlace) throws -> SQLValue {
    do {
      return try a.type.encode(value)
    } catch let e as ValueError {
      throw StoreError(
        .validation, at: path(), "\(plan.model.name).\(a.name) \(e.message)",
        ["entity": .string(plan.model.name), "attribute": .string(a.name), "expected": .string(e.expected)])
    }
  }

  func unknownKey(_ key: String, _ plan: EntityPlan, path: ErrorPlace) -> StoreError {
    StoreError(
      .validation, at: path.key(key), "'\(key)' is not an attribute or relationship of '\(plan.model.name)'",
      ["entity": .string(plan.model.name), "attribute": .string(key)])
  }

  /// Members every object carries on the wire; accepted in `values` only as echoes.
  func checkWireKey(_ m: JSONObject.Member, _ plan: EntityPlan, path: @autoclosure () -> ErrorPlace, id: ObjectID?) throws -> Bool {
    guard m.key.hasPrefix("_") else { return false }
    switch (m.key, m.value) {
    case ("_entity", .string(let e)) where e == (id?.entity ?? plan.model.name): return true
    case ("_id", .string(let s)) where id != nil && s == id!.description: return true
    default:
      throw StoreError(
        .validation, at: path().key(m.key), "'\(m.key)' cannot be set (it is assigned by the store)",
        ["entity": .string(plan.model.name), "attribute": .string(m.key)], placeInData: false)
    }
  }

  // MARK: - Insert

  /// `key` gives the new object that primary key instead of a new one (`KeyAllocator`):
  /// imports that keep ids; the caller has checked that no object holds it.
  func insertObject(
    _ entity: String, _ values: JSONObject, _ ctx: WriteContext, path: @autoclosure () -> ErrorPlace, key: Int64? = nil
  ) throws -> ObjectID {
    let plan = try self.plan(entity)
    let model = plan.model
    if model.entity.abstract {
      throw StoreError(
        .validation, "entity '\(entity)' is abstract; insert one of its sub-entities (\(model.concreteNames.joined(separator: ", ")))",
        ["entity": .string(entity)])
    }
    // Slot 0 is `_ent`; attributes then to-ones follow in `insertSQL` order, and the key
    // last. Given values are placed by a slot lookup; the rest get their (pre-encoded) defaults.
    var bound = plan.insertTemplate
    var given = [Bool](repeating: false, count: bound.count)
    var relationshipValues = false
    var toManyValues = false
    var previousSlot = 0
    for m in values.members {
      guard let slot = plan.slot(of: m.key, after: previousSlot) else {
        if try checkWireKey(m, plan, path: path(), id: nil) { continue }
        if model.relationship(m.key) != nil {
          // Not a slot of the row: a to-many.
          relationshipValues = true
          toManyValues = true
          continue
        }
        if model.attribute(m.key) != nil { continue }  // transient: not stored
        throw unknownKey(m.key, plan, path: path())
      }
      previousSlot = slot
      if slot > plan.storedAttributes.count {
        relationshipValues = true
        continue
      }
      if case .null = m.value { continue }
      if let encoded = try? plan.storedTypes[slot - 1].encode(m.value) {
        bound[slot] = encoded
      } else {
        // Encoded again for the error that names the attribute and the place.
        bound[slot] = try encode(plan.storedAttributes[slot - 1], m.value, plan, path: path().key(m.key))
      }
      given[slot] = true
    }
    for i in plan.unsetChecks where !given[i + 1] {
      let a = plan.storedAttributes[i]
      switch a.defaultValue {
      case .literal?: break  // already in the template
      case .generate(let g)?: bound[i + 1] = g.storedValue(for: a.type)
      case nil:
        guard a.optional else {
          throw StoreError(
            .validation, at: path().key(a.name), "missing required value for '\(entity).\(a.name)' (\(a.type.rawValue), no default)",
            ["entity": .string(entity), "attribute": .string(a.name)])
        }
      }
    }
    var deferredValues = JSONObject()
    var toOneTargets: [(index: Int, target: ObjectID, plan: EntityPlan)] = []
    let firstToOne = 1 + plan.storedAttributes.count
    for k in plan.toOne.indices where relationshipValues {
      guard let v = values[plan.toOne[k].name], !v.isNull else { continue }
      do {
        let (target, targetPlan) = try resolveTarget(v, plan.toOne[k], ctx, path: path().key(plan.toOne[k].name), owner: entity)
        bound[firstToOne + k] = .integer(target.pk)
        toOneTargets.append((k, target, targetPlan))
      } catch is PendingReference {
        deferredValues.append(plan.toOne[k].name, v)
      }
    }
    let table = StorageLayout.table(model)
    let pk: Int64
    if let key {
      try keys.noteUsed(table, key: key)
      pk = key
    } else {
      pk = try keys.allocate(table)
    }
    bound[bound.count - 1] = .integer(pk)
    if ctx.levelOnDemand {
      // Nothing is written yet (`Store.writeOpeningLevelOnDemand`): the INSERT needs no
      // level of its own only if nothing after it can fail.
      ctx.levelOnDemand = false
      if toManyValues || !deferredValues.isEmpty || !plan.insertEndsAtItsRow(toOneTargets) {
        try connection.begin()
      } else {
        // The last point where a cancel still wins: nothing after the INSERT can undo it.
        try checkCancelled()
        // Recorded straight into the transaction's log: no merge and clear per request.
        ctx.historyLog = writes.transactionLogs.last
      }
    }
    do {
      try plan.insertStatement(connection).execute(plan.insertValues(bound))
      // A duplicate the insert skipped (`guardsUniqueWrites`): a uniqueness refused it.
      if plan.guardsUniqueWrites && connection.changes == 0 {
        throw try uniqueViolation(plan, values: rowValues(plan, bound), excluding: nil, path: path())
          ?? StoreError(.constraint, "a uniqueness constraint refused the new object", ["constraint": "unique"])
      }
    } catch let e as any DatabaseError where e.isConstraint {
      throw try uniqueViolation(plan, values: rowValues(plan, bound), excluding: nil, path: path()) ?? StoreError(sqlite: e)
    }
    let id = ObjectID(entity: entity, pk: pk)
    if writes.recordsObjectHistory { (ctx.historyLog ?? writes.requestLog).insert(id) }
    // A new object is in `touched` only for the relationship checks at the end (history
    // has it as inserted): a save of 100,000 inserts kept 100,000 entries (4 MB) otherwise.
    if plan.needsRelationshipValidation { ctx.touch(id) }
    ctx.lastInsertBound = toManyValues || !deferredValues.isEmpty ? nil : bound
    ctx.lastInsertToOne = toOneTargets
    for t in toOneTargets { try linkToOne(id, plan.toOne[t.index], from: nil, to: t.target, plan, ctx) }
    for r in plan.toMany where relationshipValues {
      guard let v = values[r.name], !v.isNull else { continue }
      do {
        try assignToMany(id, r, v, plan, ctx, path: path().key(r.name))
      } catch is PendingReference {
        deferredValues.append(r.name, v)
      }
    }
    if !deferredValues.isEmpty { ctx.deferred.append((id, deferredValues, path(), ctx.currentIndex)) }
    return id
  }

  private func rowValues(_ plan: EntityPlan, _ bound: [SQLValue]) -> [String: SQLValue] {
    var out: [String: SQLValue] = [:]
    for (i, a) in plan.storedAttributes.enumerated() { out[a.name] = bound[1 + i] }
    for (i, r) in plan.toOne.enumerated() { out[r.name] = bound[1 + plan.storedAttributes.count + i] }
    return out
  }

  func assignToMany(_ id: ObjectID, _ r: Relationship, _ v: JSONValue, _ plan: EntityPlan, _ ctx: WriteContext, path: ErrorPlace) throws {
    guard case .array(let items) = v else {
      throw StoreError(
        .validation, at: path, "expected an array of object ids for to-many '\(id.entity).\(r.name)', got \(v.typeName)",
        ["entity": .string(id.entity), "relationship": .string(r.name)], placeInData: false)
    }
    var targets: [ObjectID] = []
    for (i, item) in items.enumerated() {
      targets.append(try resolveTarget(item, r, ctx, path: path.index(i), owner: id.entity).0)
    }
    try setToMany(id, r, targets, plan, ctx, path: path)
  }

  /// Finds which uniqueness constraint `values` break and the object already holding them.
  func uniqueViolation(_ plan: EntityPlan, values: [String: SQLValue], excluding: Int64?, path: ErrorPlace) throws -> StoreError? {
    for (keys, owner) in zip(plan.model.uniqueness, plan.model.uniquenessOwners) {
      let vals = keys.map { values[$0] ?? .null }
      if vals.contains(.null) { continue }
      // The constraint covers the objects of the entity that declares it (and below).
      let scope = entityCodes.filter(entityCodes.column(plan.tableName), catalog.plans[owner]?.model.concreteNames ?? [owner])
      var sql =
        "SELECT \(entityCodes.column(plan.tableName)), \"_pk\" FROM \(plan.table) WHERE \(scope) AND "
        + keys.map { "\(Identifier.quote($0)) = ?" }.joined(separator: " AND ")
      var args = vals
      if let excluding {
        sql += " AND \"_pk\" <> ?"
        args.append(.integer(excluding))
      }
      if let existing = try connection.prepare(sql + " LIMIT 1").first(args, { ObjectID(entity: entityCodes.name($0, 0), pk: $0.int(1)) }) {
        let shown = keys.count == 1 ? "'\(keys[0])'" : "[\(keys.joined(separator: ", "))]"
        return StoreError(
          .constraint, at: path, "unique constraint \(shown) of '\(plan.model.name)' violated: the value is already used by \(existing)",
          [
            "entity": .string(plan.model.name), "attributes": .array(keys.map { .string($0) }), "constraint": "unique",
            "existing": .string(existing.description),
          ], placeInData: false)
      }
    }
    return nil
  }

  // MARK: - Update

  func updateObject(_ id: ObjectID, _ values: JSONObject, _ ctx: WriteContext, path: @autoclosure () -> ErrorPlace) throws {
    let plan = try self.plan(id.entity)
    let model = plan.model
    var sets: [String] = []
    var args: [SQLValue] = []
    var changed: [String: SQLValue] = [:]
    var toOneChanges: [(Relationship, ObjectID?)] = []
    var toManyChanges: [(Relationship, JSONValue)] = []
    var deferredValues = JSONObject()
    for m in values.members {
      if try checkWireKey(m, plan, path: path(), id: id) { continue }
      if let a = model.attribute(m.key) {
        if a.transient { continue }
        if m.value.isNull && !a.optional {
          throw StoreError(
            .validation, at: path().key(a.name), "'\(id.entity).\(a.name)' is required and cannot be set to null",
            ["entity": .string(id.entity), "attribute": .string(a.name), "id": .string(id.description)], placeInData: false)
        }
        let v = try encode(a, m.value, plan, path: path().key(a.name))
        sets.append("\(Identifier.quote(a.name)) = ?")
        args.append(v)
        changed[a.name] = v
      } else if let r = model.relationship(m.key) {
        if r.toMany {
          toManyChanges.append((r, m.value))
          continue
        }
        if m.value.isNull {
          toOneChanges.append((r, nil))
        } else {
          do {
            toOneChanges.append((r, try resolveTarget(m.value, r, ctx, path: path().key(r.name), owner: id.entity).0))
          } catch is PendingReference {
            deferredValues.append(r.name, m.value)
          }
        }
      } else {
        throw unknownKey(m.key, plan, path: path())
      }
    }
    var previous: [String: Int64?] = [:]
    for (r, target) in toOneChanges {
      previous[r.name] =
        try connection.cached("SELECT \(Identifier.quote(r.name)) FROM \(plan.table) WHERE \"_pk\" = ?")
        .first([.integer(id.pk)]) { $0.isNull(0) ? nil : $0.int(0) } ?? nil
      sets.append("\(Identifier.quote(r.name)) = ?")
      let v: SQLValue = target.map { .integer($0.pk) } ?? .null
      args.append(v)
      changed[r.name] = v
    }
    if !sets.isEmpty {
      args.append(.integer(id.pk))
      let update = "UPDATE \(plan.table) SET \(sets.joined(separator: ", ")), \(try versionBump(plan.tableName)) WHERE \"_pk\" = ?"
      do {
        if plan.guardsUniqueWrites {
          try connection.inTransaction { try connection.cached(update).execute(args) }
        } else {
          try connection.cached(update).execute(args)
        }
      } catch let e as any DatabaseError where e.isConstraint {
        var merged = try currentValues(plan, id)
        for (k, v) in changed { merged[k] = v }
        throw try uniqueViolation(plan, values: merged, excluding: id.pk, path: path()) ?? StoreError(sqlite: e)
      }
    }
    if writes.recordsObjectHistory { writes.requestLog.update(id, keys: values.members.lazy.map(\.key).filter { !$0.hasPrefix("_") }) }
    ctx.touch(id)
    for (r, target) in toOneChanges { try linkToOne(id, r, from: previous[r.name] ?? nil, to: target, plan, ctx) }
    for (r, v) in toManyChanges {
      if v.isNull {
        try setToMany(id, r, [], plan, ctx, path: path().key(r.name))
        continue
      }
      do {
        try assignToMany(id, r, v, plan, ctx, path: path().key(r.name))
      } catch is PendingReference {
        deferredValues.append(r.name, v)
      }
    }
    if !deferredValues.isEmpty { ctx.deferred.append((id, deferredValues, path(), ctx.currentIndex)) }
  }

  private func currentValues(_ plan: EntityPlan, _ id: ObjectID) throws -> [String: SQLValue] {
    let keys = plan.storedAttributes.map(\.name) + plan.toOne.map(\.name)
    var out: [String: SQLValue] = [:]
    try connection.prepare("SELECT \(keys.map(Identifier.quote).joined(separator: ", ")) FROM \(plan.table) WHERE \"_pk\" = ?")
      .forEachRow([.integer(id.pk)]) { row in
        for (i, k) in keys.enumerated() { out[k] = row.value(i) }
      }
    return out
  }
}
