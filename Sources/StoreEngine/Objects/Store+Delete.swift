import DatabaseKit
import JSONCore
import SchemaModel

/// What a delete would do (`Store.previewDelete`).
public struct DeletePreview: Sendable, Equatable {
  /// Every id the delete would remove: the requested one first, then the cascade.
  public let deleted: [String]
  /// Objects that would stay, with relationships the delete changes.
  public let updated: [String]
}

/// Deleting objects with their relationships' delete rules.
extension Store {
  /// Deletes one object and everything its cascade rules reach; returns every id removed,
  /// the requested one first. `deny` rules with related objects outside the deletion
  /// fail with `deleteDenied` naming the blockers, and nothing is deleted.
  public func delete(id: String) throws -> [String] {
    try write { try deleteChecked(id).map(\.description) }
  }

  /// What `delete(id:)` would do, found by doing it and rolling it back (`dryRun`): the
  /// ids it would remove, in the same order, and the objects that would stay with
  /// relationships changed (a nullified to-one, a to-many losing a member, a reference
  /// without inverse cleared), in order of first change. It fails exactly as the delete
  /// would (`deleteDenied` naming the blockers, `validation` for a nullify that breaks a
  /// required relationship), and on a read-only store with `readOnly`.
  public func previewDelete(id: String) throws -> DeletePreview {
    try dryRun {
      let removed = try deleteChecked(id)
      let gone = Set(removed)
      return DeletePreview(
        deleted: removed.map(\.description),
        updated: writes.requestLog.updatedOrder.lazy.filter { !gone.contains($0) }.map(\.description))
    }
  }

  /// Deletes `id` with its rules and checks the relationship constraints of every object
  /// it touched, inside the caller's transaction.
  private func deleteChecked(_ id: String) throws -> [ObjectID] {
    let ctx = WriteContext()
    let removed = try deleteObjects([try existingID(id, path: ErrorPlace(.id))], ctx)
    try finish(ctx)
    return removed
  }

  func deleteObjects(_ roots: [ObjectID], _ ctx: WriteContext) throws -> [ObjectID] {
    let graph = try requireGraph()
    // 1. The closure under cascade rules, breadth first.
    var order: [ObjectID] = []
    var doomed: Set<ObjectID> = []
    var queue = roots[...]
    var denials: [(ObjectID, Relationship, [ObjectID])] = []
    while let id = queue.popFirst() {
      guard doomed.insert(id).inserted else { continue }
      if doomed.count & 255 == 0 { try checkCancelled() }
      order.append(id)
      let plan = try self.plan(id.entity)
      for r in plan.model.relationships where r.deleteRule == .cascade || r.deleteRule == .deny {
        let others = try related(id, r, plan)
        if r.deleteRule == .cascade { queue.append(contentsOf: others) } else if !others.isEmpty { denials.append((id, r, others)) }
      }
    }
    // 2. Deny rules hold unless every blocker goes too.
    for (id, r, others) in denials {
      let blocking = others.filter { !doomed.contains($0) }
      if !blocking.isEmpty {
        throw StoreError(
          .deleteDenied,
          "cannot delete \(id): relationship '\(id.entity).\(r.name)' has delete rule deny and still holds \(blocking.map(\.description).joined(separator: ", "))",
          [
            "id": .string(id.description), "relationship": .string(r.name),
            "blocking": .array(blocking.map { .string($0.description) }),
          ])
      }
    }
    // 3. Clear references to the doomed objects, then delete their rows.
    for (n, id) in order.enumerated() {
      if n & 255 == 0 { try checkCancelled() }
      let plan = try self.plan(id.entity)
      for r in plan.model.relationships {
        try detach(id, r, plan, graph: graph, doomed: doomed, ctx)
      }
      for (source, r) in plan.incomingWithoutInverse {
        let sourcePlan = catalog.plans[source.name]!
        switch sourcePlan.storage[r.name]! {
        case .foreignKey(let col):
          // The sources lose their value; a required one then fails validation. The
          // history lists them as updated.
          if !r.optional || writes.recordsObjectHistory {
            try connection.cached(
              // By key, as the preview and the history list them on every engine.
              "SELECT \(entityCodes.column(sourcePlan.tableName)), \"_pk\" FROM \(sourcePlan.table) WHERE \(Identifier.quote(col)) = ? ORDER BY \"_pk\""
            ).forEachRow([
              .integer(id.pk)
            ]) {
              let source = ObjectID(entity: entityCodes.name($0, 0), pk: $0.int(1))
              if !r.optional { ctx.touch(source) }
              if writes.recordsObjectHistory { writes.requestLog.update(source, keys: CollectionOfOne(r.name)) }
            }
          }
          // A table without `_opt` gets it only when a row does change.
          let pointing = "FROM \(sourcePlan.table) WHERE \(Identifier.quote(col)) = ?"
          if try catalog.versions.has(sourcePlan.tableName, connection)
            || connection.cached("SELECT 1 \(pointing) LIMIT 1").first([.integer(id.pk)], { _ in true }) != nil
          {
            try connection.cached(
              "UPDATE \(sourcePlan.table) SET \(Identifier.quote(col)) = NULL, \(try versionBump(sourcePlan.tableName)) WHERE \(Identifier.quote(col)) = ?"
            )
            .execute([.integer(id.pk)])
          }
        case .joinTable(let table, let src, let dst, _):
          // The sources' to-many loses a member: the history lists them as updated, so
          // that a live query sending that to-many (ids or count) sees the change.
          if writes.recordsObjectHistory {
            try connection.cached(
              "SELECT \(entityCodes.column(sourcePlan.tableName, alias: "s")), s.\"_pk\" FROM \(Identifier.quote(table)) j JOIN \(sourcePlan.table) s ON s.\"_pk\" = j.\(Identifier.quote(src)) WHERE j.\(Identifier.quote(dst)) = ? ORDER BY s.\"_pk\""
            ).forEachRow([.integer(id.pk)]) {
              writes.requestLog.update(ObjectID(entity: entityCodes.name($0, 0), pk: $0.int(1)), keys: CollectionOfOne(r.name))
            }
          }
          try connection.cached("DELETE FROM \(Identifier.quote(table)) WHERE \(Identifier.quote(dst)) = ?").execute([.integer(id.pk)])
        case .inverseForeignKey: break
        }
      }
    }
    for id in order {
      let plan = try plan(id.entity)
      if writes.recordsObjectHistory { writes.requestLog.delete(id, tombstone: try tombstone(id, plan)) }
      try connection.cached("DELETE FROM \(plan.table) WHERE \"_pk\" = ?").execute([.integer(id.pk)])
    }
    return order
  }

  /// Applies `r`'s effect on the other side when `id` is deleted.
  private func detach(_ id: ObjectID, _ r: Relationship, _ plan: EntityPlan, graph: ModelGraph, doomed: Set<ObjectID>, _ ctx: WriteContext)
    throws
  {
    let others = try related(id, r, plan).filter { !doomed.contains($0) }
    let keepReferences = r.deleteRule == .noAction
    switch plan.storage[r.name]! {
    case .foreignKey:
      // Our row holds the key. A one-to-one partner holds ours too.
      if let inv = graph.inverse(of: r), !inv.toMany, !keepReferences {
        let dest = try self.plan(r.destination)
        for o in others {
          try connection.cached(
            "UPDATE \(dest.table) SET \(Identifier.quote(inv.name)) = NULL, \(try versionBump(dest.tableName)) WHERE \"_pk\" = ?"
          )
          .execute([.integer(o.pk)])
        }
      }
      for o in others { ctx.touch(o) }
    case .inverseForeignKey(let table, let col, let pos):
      guard !keepReferences else { return }
      let setPos = pos.map { ", \(Identifier.quote($0)) = NULL" } ?? ""
      for o in others {
        try connection.cached(
          "UPDATE \(Identifier.quote(table)) SET \(Identifier.quote(col)) = NULL\(setPos), \(try versionBump(table)) WHERE \"_pk\" = ?"
        )
        .execute([.integer(o.pk)])
        ctx.touch(o)
      }
    case .joinTable(let table, let src, let dst, _):
      // Join rows belong to both sides; they always go with the object.
      try connection.cached("DELETE FROM \(Identifier.quote(table)) WHERE \(Identifier.quote(src)) = ?").execute([.integer(id.pk)])
      if StorageLayout.isSelfInverse(r, in: plan.model, graph: graph) {
        try connection.cached("DELETE FROM \(Identifier.quote(table)) WHERE \(Identifier.quote(dst)) = ?").execute([.integer(id.pk)])
      }
      for o in others { ctx.touch(o) }
    }
  }
}
