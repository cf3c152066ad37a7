import JSONCore
import RPCCore
import StoreEngine

/// `context.save` and `transaction.*`.
enum ContextHandlers {
  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "context.save",
        { p, _ in
          try p.rejectUnknown(["changes", "author"])
          let author = try p.string("author")
          let changes = try p.requireArray("changes").enumerated().map { i, v in try change(JSONReader(v, arrayPath: "params.changes", index: i)) }
          let store = try s.requireStore()
          store.requestAuthor = author
          defer { store.requestAuthor = nil }
          let r = try store.save(changes)
          var refs = JSONObject()
          for (ref, id) in r.refs { refs.append(ref, .string(id)) }
          return .object([
            "ids": .object(refs), "inserted": .array(r.inserted.map { .string($0) }),
            "updated": .array(r.updated.map { .string($0) }), "deleted": .array(r.deleted.map { .string($0) }),
          ])
        }
      ),
      (
        "transaction.begin",
        { p, _ in
          try p.rejectUnknown([])
          return .object(["depth": .int(Int64(try s.requireStore().begin()))])
        }
      ),
      (
        "transaction.commit",
        { p, _ in
          try p.rejectUnknown([])
          return .object(["depth": .int(Int64(try s.requireStore().commit()))])
        }
      ),
      (
        "transaction.rollback",
        { p, _ in
          try p.rejectUnknown([])
          return .object(["depth": .int(Int64(try s.requireStore().rollback()))])
        }
      ),
    ]
  }

  static func change(_ c: JSONReader) throws -> Change {
    let op = try c.requireString("op")
    switch op {
    case "insert":
      try c.rejectUnknown(["op", "entity", "ref", "values"])
      return .insert(entity: try c.requireString("entity"), ref: try c.string("ref"), values: try values(c))
    case "update":
      try c.rejectUnknown(["op", "id", "values"])
      return .update(id: try c.requireString("id"), values: try values(c))
    case "delete":
      try c.rejectUnknown(["op", "id"])
      return .delete(id: try c.requireString("id"))
    default:
      throw RPCError.invalidParams("\(c.path).op: expected insert, update or delete, got '\(op)'", ["path": .string("\(c.path).op")])
    }
  }

  private static func values(_ c: JSONReader) throws -> JSONObject {
    guard let v = c.value("values") else { return [:] }
    guard case .object(let o) = v else {
      throw RPCError.invalidParams("\(c.path).values: expected an object, got \(v.typeName)", ["path": .string("\(c.path).values")])
    }
    return o
  }
}
