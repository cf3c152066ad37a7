import JSONCore
import RPCCore
import StoreEngine

/// `objects.*`: one object at a time, or many by predicate.
enum ObjectHandlers {
  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "objects.insert",
        { p, _ in
          try p.rejectUnknown(["entity", "values", "toMany"])
          return .encoded(
            try s.requireStore().insertEncoded(
              entity: try p.requireString("entity"), values: try RequestParsing.values(p), toMany: try RequestParsing.toMany(p)))
        }
      ),
      (
        "objects.update",
        { p, _ in
          try p.rejectUnknown(["id", "values", "ifVersion", "toMany"])
          return .object(
            try s.requireStore().update(
              id: try p.requireString("id"), values: try RequestParsing.values(p), ifVersion: try p.int("ifVersion", min: 1),
              toMany: try RequestParsing.toMany(p)))
        }
      ),
      (
        "objects.upsert",
        { p, _ in
          try p.rejectUnknown(["entity", "values", "on", "toMany"])
          let (object, inserted) = try s.requireStore().upsert(
            entity: try p.requireString("entity"), values: try RequestParsing.values(p), on: try p.stringArray("on"),
            toMany: try RequestParsing.toMany(p))
          return .object(["object": .object(object), "inserted": .bool(inserted)])
        }
      ),
      (
        "objects.delete",
        { p, _ in
          try p.rejectUnknown(["id"])
          return .object(["deleted": .array(try s.requireStore().delete(id: try p.requireString("id")).map { .string($0) })])
        }
      ),
      (
        "objects.get",
        { p, _ in
          try p.rejectUnknown(["id", "ids", "include", "withVersion", "toMany"])
          let include = try p.stringArray("include") ?? []
          let store = try s.requireStore()
          let versions = try p.bool("withVersion") ?? false
          let toMany = try RequestParsing.toMany(p)
          if let ids = try p.stringArray("ids") {
            guard !p.has("id") else { throw RPCError.invalidParams("give either 'id' or 'ids', not both", ["path": "params"]) }
            return .object(
              ["objects": .array(try store.get(ids: ids, include: include, withVersion: versions, toMany: toMany).map { .object($0) })])
          }
          guard let id = try p.string("id") else {
            throw RPCError.invalidParams("params.id: missing (or give params.ids)", ["path": "params.id", "expected": "string"])
          }
          return .object(try store.get(id: id, include: include, withVersion: versions, toMany: toMany))
        }
      ),
      (
        "objects.updateWhere",
        { p, _ in
          try p.rejectUnknown(["entity", "where", "args", "variables", "values", "includeSubentities"])
          guard p.has("values") else {
            throw RPCError.invalidParams("params.values: missing", ["path": "params.values", "expected": "object"])
          }
          var r = try RequestParsing.filteredRequest(p)
          r.includeSubentities = try p.bool("includeSubentities") ?? true
          let ids = try s.requireStore().updateWhere(r, values: try RequestParsing.values(p))
          return .object(["updated": .array(ids.map { .string($0) }), "count": .int(Int64(ids.count))])
        }
      ),
      (
        "objects.deleteWhere",
        { p, _ in
          try p.rejectUnknown(["entity", "where", "args", "variables", "includeSubentities"])
          var r = try RequestParsing.filteredRequest(p)
          r.includeSubentities = try p.bool("includeSubentities") ?? true
          let ids = try s.requireStore().deleteWhere(r)
          return .object(["deleted": .array(ids.map { .string($0) }), "count": .int(Int64(ids.count))])
        }
      ),
    ]
  }
}
