import DatabaseKit
import JSONCore
import SchemaModel

/// Reading and writing relationship values, keeping inverses in step.
extension Store {
  /// The key of the object named by `value` for relationship `r`, after checking that it
  /// exists and is of the destination entity (or one of its sub-entities).
  func resolveTarget(
    _ value: JSONValue, _ r: Relationship, _ ctx: WriteContext, path makePath: @autoclosure () -> ErrorPlace, owner: String
  )
    throws -> (ObjectID, EntityPlan)
  {
    var path: ErrorPlace { makePath() }
    guard case .string(let text) = value else {
      throw StoreError(
        .validation, at: path, "expected an object id string for relationship '\(owner).\(r.name)', got \(value.typeName)",
        ["entity": .string(owner), "relationship": .string(r.name)])
    }
    let id: ObjectID
    if text.hasPrefix("$") {
      guard ctx.allowsRefs else {
        throw StoreError(.validation, at: path, "'\(text)' is a $ref, which only context.save accepts")
      }
      guard let resolved = ctx.refs[text] else { throw PendingReference(ref: text) }
      id = resolved
    } else {
      guard let parsed = ObjectID(text) else {
        throw StoreError(
          .validation, at: path, "'\(text)' is not an object id (expected 'Entity/123')",
          ["entity": .string(owner), "relationship": .string(r.name)])
      }
      id = parsed
    }
    let destPlan = try plan(r.destination)
    guard let named = id.entity == destPlan.model.name ? destPlan : catalog.plans[id.entity], destPlan.model.root === named.model.root
    else {
      throw StoreError(
        .validation, at: path, "'\(text)' is not a \(r.destination), as '\(owner).\(r.name)' requires",
        ["entity": .string(owner), "relationship": .string(r.name), "id": .string(text)], placeInData: false)
    }
    // The id may name the object's own entity or an ancestor of it ("Pet/3" for a Dog).
    guard let concrete = try targetID(pk: id.pk, plan: named),
      let target = concrete.entity == named.model.name ? named : catalog.plans[concrete.entity], named.model.includes(target.model)
    else {
      throw StoreError(.notFound, at: path, "object \(text) does not exist", ["id": .string(text)])
    }
    guard destPlan.model.includes(target.model) else {
      throw StoreError(
        .validation, at: path, "\(concrete) is not a \(r.destination), as '\(owner).\(r.name)' requires",
        ["entity": .string(owner), "relationship": .string(r.name), "id": .string(text)], placeInData: false)
    }
    return (concrete, target)
  }

  /// True when a row with this key and exactly this entity exists.
  func exists(_ id: ObjectID, plan: EntityPlan) throws -> Bool {
    guard let code = entityCodes.code(id.entity) else { return false }
    return try connection.cached("SELECT 1 FROM \(plan.table) WHERE \"_pk\" = ? AND \(entityCodes.column(plan.tableName)) = ?").first([
      .integer(id.pk), .integer(code),
    ]) {
      _ in true
    } ?? false
  }

  /// The concrete id of the object with key `pk` in `plan`'s hierarchy, if present.
  /// `concreteID` of a to-one target, remembered for the rest of the write transaction
  /// (on a connection with a `rowsEpoch`, both engines): writers of a store are serialized
  /// (SQLite's write lock, PostgreSQL's advisory lock), so only this transaction can take a
  /// target away, by a rollback, a deletion or a schema change, each of which moves the
  /// epoch and forgets what was remembered. A bulk insert into a few categories looks each
  /// one up once instead of once per insert.
  func targetID(pk: Int64, plan: EntityPlan) throws -> ObjectID? {
    guard connection.transactionDepth > 0, let epoch = connection.rowsEpoch else { return try concreteID(pk: pk, plan: plan) }
    if targets.epoch != epoch || targets.known.count >= TargetMemo.capacity { targets = TargetMemo(epoch: epoch) }
    let key = TargetMemo.Key(table: plan.table, pk: pk)
    if let entity = targets.known[key] { return ObjectID(entity: entity, pk: pk) }
    guard let id = try concreteID(pk: pk, plan: plan) else { return nil }
    targets.known[key] = id.entity
    return id
  }

  func concreteID(pk: Int64, plan: EntityPlan) throws -> ObjectID? {
    try plan.concreteEntityStatement(connection).first([.integer(pk)]) {
      let code = $0.int(0)
      return ObjectID(entity: code == plan.code ? plan.model.name : entityCodes.name(code), pk: pk)
    }
  }

  /// Ids currently related to `source` through `r`, in relationship order.
  func related(_ source: ObjectID, _ r: Relationship, _ plan: EntityPlan) throws -> [ObjectID] {
    let dest = try self.plan(r.destination)
    var out: [ObjectID] = []
    switch plan.storage[r.name]! {
    case .foreignKey(let col):
      let pk = try connection.cached("SELECT \(Identifier.quote(col)) FROM \(plan.table) WHERE \"_pk\" = ?").first([.integer(source.pk)]) {
        $0.isNull(0) ? nil : $0.int(0)
      }
      if let pk = pk ?? nil {
        out.append(try concreteID(pk: pk, plan: dest) ?? ObjectID(entity: r.destination, pk: pk))
      }
    case .inverseForeignKey(let table, let col, let pos):
      let order = pos.map { connection.dialect.orderTerm(Identifier.quote($0), .unstated) + ", \"_pk\"" } ?? "\"_pk\""
      try connection.cached(
        "SELECT \(entityCodes.column(table)), \"_pk\" FROM \(Identifier.quote(table)) WHERE \(Identifier.quote(col)) = ?\(StorageLayout.sharedInverseColumnFilter(of: r, destination: dest.model, table: table, alias: nil, codes: entityCodes)) ORDER BY \(order)"
      ).forEachRow([.integer(source.pk)]) { out.append(ObjectID(entity: entityCodes.name($0, 0), pk: $0.int(1))) }
    case .joinTable(let table, let src, let dst, let pos):
      try connection.cached(
        "SELECT \(entityCodes.column(dest.tableName, alias: "d")), j.\(Identifier.quote(dst)) FROM \(Identifier.quote(table)) j LEFT JOIN \(dest.table) d ON d.\"_pk\" = j.\(Identifier.quote(dst)) WHERE j.\(Identifier.quote(src)) = ? ORDER BY \(r.ordered ? "j.\(Identifier.quote(pos)), " : "")j.\(Identifier.quote(dst))"
      ).forEachRow([.integer(source.pk)]) {
        out.append(ObjectID(entity: $0.isNull(0) ? r.destination : entityCodes.name($0, 0), pk: $0.int(1)))
      }
    }
    return out
  }

  /// After the row of `source` has its to-one `r` set to `target` (nil: cleared), brings the
  /// inverse side in step. `previous` is the value before the write.
  func linkToOne(
    _ source: ObjectID, _ r: Relationship, from previous: Int64?, to target: ObjectID?, _ plan: EntityPlan, _ ctx: WriteContext
  ) throws {
    guard previous != target?.pk else { return }
    let graph = try requireGraph()
    if let prev = previous, let prevID = try concreteID(pk: prev, plan: try self.plan(r.destination)) { ctx.touch(prevID) }
    guard let inv = graph.inverse(of: r) else { return }
    if !inv.toMany {
      let dest = try self.plan(r.destination)
      let invCol = Identifier.quote(inv.name)
      // One-to-one: the old partner lets go of us, the new partner's old partner lets go of it.
      if let prev = previous {
        try connection.cached(
          "UPDATE \(dest.table) SET \(invCol) = NULL, \(try versionBump(dest.tableName)) WHERE \"_pk\" = ? AND \(invCol) = ?"
        )
        .execute([.integer(prev), .integer(source.pk)])
      }
      if let t = target {
        let stolen =
          try connection.cached("SELECT \(invCol) FROM \(dest.table) WHERE \"_pk\" = ?").first([.integer(t.pk)]) {
            $0.isNull(0) ? nil : $0.int(0)
          } ?? nil
        if let other = stolen, other != source.pk {
          try connection.cached(
            "UPDATE \(plan.table) SET \(Identifier.quote(r.name)) = NULL, \(try versionBump(plan.tableName)) WHERE \"_pk\" = ?"
          )
          .execute([.integer(other)])
          if let otherID = try concreteID(pk: other, plan: plan) { ctx.touch(otherID) }
        }
        try connection.cached("UPDATE \(dest.table) SET \(invCol) = ?, \(try versionBump(dest.tableName)) WHERE \"_pk\" = ?")
          .execute([.integer(source.pk), .integer(t.pk)])
        ctx.touch(t)
      }
    } else if let t = target {
      ctx.touch(t)
      if inv.ordered {
        // Appended at the end of the new owner's ordered list.
        let posCol = Identifier.quote(StorageLayout.positionColumn(forInverse: r.name))
        try connection.cached(
          "UPDATE \(plan.table) SET \(posCol) = (SELECT coalesce(max(\(posCol)), -1) + 1 FROM \(plan.table) WHERE \(Identifier.quote(r.name)) = ? AND \"_pk\" <> ?) WHERE \"_pk\" = ?"
        ).execute([.integer(t.pk), .integer(source.pk), .integer(source.pk)])
      }
    }
  }

  /// Replaces the members of to-many `r` of `source` with `targets` (in order).
  func setToMany(_ source: ObjectID, _ r: Relationship, _ targets: [ObjectID], _ plan: EntityPlan, _ ctx: WriteContext, path: ErrorPlace)
    throws
  {
    var seen: Set<ObjectID> = []
    for t in targets where !seen.insert(t).inserted {
      throw StoreError(
        .validation, at: path, "\(t) appears twice in '\(source.entity).\(r.name)'",
        ["id": .string(source.description), "relationship": .string(r.name)], placeInData: false)
    }
    let current = try related(source, r, plan)
    let removed = current.filter { !seen.contains($0) }
    let currentSet = Set(current)
    let dest = try self.plan(r.destination)
    switch plan.storage[r.name]! {
    case .foreignKey:
      preconditionFailure("to-many relationship stored as a foreign key")
    case .inverseForeignKey(_, let col, let pos):
      let c = Identifier.quote(col)
      for d in removed {
        try connection.cached("UPDATE \(dest.table) SET \(c) = NULL, \(try versionBump(dest.tableName)) WHERE \"_pk\" = ?").execute([
          .integer(d.pk)
        ])
        ctx.touch(d)
      }
      for (i, d) in targets.enumerated() {
        if !currentSet.contains(d) {
          let previousOwner =
            try connection.cached("SELECT \(c) FROM \(dest.table) WHERE \"_pk\" = ?").first([.integer(d.pk)]) {
              $0.isNull(0) ? nil : $0.int(0)
            } ?? nil
          if let p = previousOwner, let pid = try concreteID(pk: p, plan: plan) { ctx.touch(pid) }
          try connection.cached("UPDATE \(dest.table) SET \(c) = ?, \(try versionBump(dest.tableName)) WHERE \"_pk\" = ?")
            .execute([.integer(source.pk), .integer(d.pk)])
          ctx.touch(d)
        }
        if let pos {
          try connection.cached("UPDATE \(dest.table) SET \(Identifier.quote(pos)) = ? WHERE \"_pk\" = ?").execute([
            .integer(Int64(i)), .integer(d.pk),
          ])
        }
      }
    case .joinTable(let table, let src, let dst, let pos):
      let t = Identifier.quote(table), s = Identifier.quote(src), ds = Identifier.quote(dst)
      let otherPos = Identifier.quote(pos == "spos" ? "dpos" : "spos")
      let tracksInverse = try requireGraph().inverse(of: r) != nil
      // A relationship that is its own inverse (friends ↔ friends) keeps a mirrored row, so
      // each side reads the link from its own `src` rows.
      let symmetric = StorageLayout.isSelfInverse(r, in: plan.model, graph: try requireGraph())
      for d in removed {
        try connection.cached("DELETE FROM \(t) WHERE \(s) = ? AND \(ds) = ?").execute([.integer(source.pk), .integer(d.pk)])
        if symmetric {
          try connection.cached("DELETE FROM \(t) WHERE \(s) = ? AND \(ds) = ?").execute([.integer(d.pk), .integer(source.pk)])
        }
        if tracksInverse { ctx.touch(d) }
      }
      // Positions matter only for an ordered side: the other side's next position is a
      // max() over the destination's links, so it is computed only when that side is ordered.
      let otherOrdered = try requireGraph().inverse(of: r)?.ordered ?? false
      for (i, d) in targets.enumerated() {
        if currentSet.contains(d) {
          guard r.ordered else { continue }
          try connection.cached("UPDATE \(t) SET \(Identifier.quote(pos)) = ? WHERE \(s) = ? AND \(ds) = ?")
            .execute([.integer(Int64(i)), .integer(source.pk), .integer(d.pk)])
        } else if otherOrdered {
          try connection.cached(
            "INSERT INTO \(t) (\(s), \(ds), \(Identifier.quote(pos)), \(otherPos)) VALUES (?, ?, ?, (SELECT coalesce(max(\(otherPos)), -1) + 1 FROM \(t) WHERE \(ds) = ?))"
          ).execute([.integer(source.pk), .integer(d.pk), .integer(Int64(i)), .integer(d.pk)])
        } else {
          try connection.cached("INSERT INTO \(t) (\(s), \(ds), \(Identifier.quote(pos))) VALUES (?, ?, ?)")
            .execute([.integer(source.pk), .integer(d.pk), .integer(Int64(i))])
        }
        if !currentSet.contains(d) {
          if symmetric {
            try connection.cached(
              connection.dialect.insertSkippingDuplicates(
                "\(t) (\(s), \(ds), \(Identifier.quote(pos))) VALUES (?, ?, (SELECT coalesce(max(\(Identifier.quote(pos))), -1) + 1 FROM \(t) WHERE \(s) = ?))"
              )
            ).execute([.integer(d.pk), .integer(source.pk), .integer(d.pk)])
          }
          if tracksInverse { ctx.touch(d) }
        }
      }
    }
    ctx.touch(source)
  }

  /// Checks required to-ones and to-many min/max counts of every touched object that
  /// still exists. Core Data validates the same things at save time.
  func validateTouched(_ ctx: WriteContext) throws {
    var seen: Set<ObjectID> = []
    for (id, index) in zip(ctx.touched, ctx.touchedIndex) {
      guard let plan = catalog.plans[id.entity], plan.needsRelationshipValidation, seen.insert(id).inserted, try exists(id, plan: plan)
      else {
        continue
      }
      do {
        try validateRelationships(id, plan)
      } catch var e as StoreError {
        if let index, e.details["index"] == nil { e.details["index"] = .int(Int64(index)) }
        throw e
      }
    }
  }

  private func validateRelationships(_ id: ObjectID, _ plan: EntityPlan) throws {
    for r in plan.model.relationships {
      if !r.toMany {
        guard !r.optional else { continue }
        if try related(id, r, plan).isEmpty {
          throw StoreError(
            .validation, "\(id): required relationship '\(id.entity).\(r.name)' has no value",
            ["id": .string(id.description), "entity": .string(id.entity), "relationship": .string(r.name)])
        }
      } else if (r.minCount ?? 0) > 0 || (r.maxCount ?? 0) > 0 {
        let n = try related(id, r, plan).count
        if let mn = r.minCount, mn > 0, n < mn {
          throw StoreError(
            .validation, "\(id): '\(id.entity).\(r.name)' has \(n) object\(n == 1 ? "" : "s"), fewer than its minimum \(mn)",
            [
              "id": .string(id.description), "entity": .string(id.entity), "relationship": .string(r.name), "min": .int(Int64(mn)),
              "count": .int(Int64(n)),
            ])
        }
        if let mx = r.maxCount, mx > 0, n > mx {
          throw StoreError(
            .validation, "\(id): '\(id.entity).\(r.name)' has \(n) objects, more than its maximum \(mx)",
            [
              "id": .string(id.description), "entity": .string(id.entity), "relationship": .string(r.name), "max": .int(Int64(mx)),
              "count": .int(Int64(n)),
            ])
        }
      }
    }
  }
}

/// The to-one targets a write transaction has found, by hierarchy and key, with their
/// concrete entity (`Store.targetID`); valid for one `rowsEpoch` of the connection.
struct TargetMemo {
  struct Key: Hashable {
    /// The hierarchy's table (keys are unique in it).
    var table: String
    var pk: Int64
  }
  /// At most this many are remembered (then it starts again).
  static let capacity = 100_000
  var epoch: Int = -1
  var known: [Key: String] = [:]
}
