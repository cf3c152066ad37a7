import JSONCore
import RPCCore
import StoreEngine

/// `objects.*`: one object at a time, or many by predicate.
enum ObjectHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ObjectsInsertParams.self) { p, _ in
        .encoded(try s.requireStore().insertEncoded(entity: p.entity, values: p.values, toMany: p.toMany))
      },
      MethodEntry(ObjectsUpdateParams.self) { p, _ in
        .object(try s.requireStore().update(id: p.id, values: p.values, ifVersion: p.ifVersion, toMany: p.toMany))
      },
      MethodEntry(ObjectsUpsertParams.self) { p, _ in
        let (object, inserted) = try s.requireStore().upsert(entity: p.entity, values: p.values, on: p.on, toMany: p.toMany)
        return .object(["object": .object(object), "inserted": .bool(inserted)])
      },
      MethodEntry(ObjectsDeleteParams.self) { p, _ in
        .object(["deleted": .array(try s.requireStore().delete(id: p.id).map { .string($0) })])
      },
      MethodEntry(ObjectsGetParams.self) { p, _ in
        let store = try s.requireStore()
        if let ids = p.ids {
          return .object(
            [
              "objects": .array(
                try store.get(ids: ids, include: p.include, withVersion: p.withVersion, toMany: p.toMany).map { .object($0) })
            ])
        }
        guard let id = p.id else {
          throw RPCError.invalidParams("params.id: missing (or give params.ids)", ["path": "params.id", "expected": "string"])
        }
        return .object(try store.get(id: id, include: p.include, withVersion: p.withVersion, toMany: p.toMany))
      },
      MethodEntry(ObjectsUpdateWhereParams.self) { p, _ in
        let ids = try s.requireStore().updateWhere(p.request, values: p.values)
        return .object(["updated": .array(ids.map { .string($0) }), "count": .int(Int64(ids.count))])
      },
      MethodEntry(ObjectsDeleteWhereParams.self) { p, _ in
        let ids = try s.requireStore().deleteWhere(p.request)
        return .object(["deleted": .array(ids.map { .string($0) }), "count": .int(Int64(ids.count))])
      },
    ]
  }
}
