import JSONCore
import RPCCore
import StoreEngine

/// `objects.*`: one object at a time, or many by predicate.
enum ObjectHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ObjectsInsertParams.self) { p, _ in
        WireObjectJSON(.encoded(try s.requireStore().insertEncoded(entity: p.entity, values: p.values, toMany: p.toMany)))
      },
      MethodEntry(ObjectsUpdateParams.self) { p, _ in
        WireObjectJSON(try s.requireStore().update(id: p.id, values: p.values, ifVersion: p.ifVersion, toMany: p.toMany))
      },
      MethodEntry(ObjectsUpsertParams.self) { p, _ in
        let (object, inserted) = try s.requireStore().upsert(entity: p.entity, values: p.values, on: p.on, toMany: p.toMany)
        return ObjectsUpsertResult(object: WireObjectJSON(object), inserted: inserted)
      },
      MethodEntry(ObjectsDeleteParams.self) { p, _ in
        let store = try s.requireStore()
        guard p.dryRun else { return DeletedIDsResult(deleted: try store.delete(id: p.id)) }
        let preview = try store.previewDelete(id: p.id)
        return DeletedIDsResult(deleted: preview.deleted, updated: preview.updated)
      },
      MethodEntry(ObjectsGetParams.self) { p, _ in
        let store = try s.requireStore()
        if let ids = p.ids {
          return .many(try store.get(ids: ids, include: p.include, withVersion: p.withVersion, toMany: p.toMany))
        }
        guard let id = p.id else {
          throw RPCError.invalidParams("params.id: missing (or give params.ids)", ["path": "params.id", "expected": "string"])
        }
        return .one(try store.get(id: id, include: p.include, withVersion: p.withVersion, toMany: p.toMany))
      },
      MethodEntry(ObjectsUpdateWhereParams.self) { p, _ in
        let ids = try s.requireStore().updateWhere(p.request, values: p.values)
        return UpdatedWhereResult(updated: ids)
      },
      MethodEntry(ObjectsDeleteWhereParams.self) { p, _ in
        let ids = try s.requireStore().deleteWhere(p.request)
        return DeletedWhereResult(deleted: ids)
      },
    ]
  }
}
