import JSONCore
import RPCCore
import StoreEngine

/// `context.save` and `transaction.*`.
enum ContextHandlers {
  /// `context.save`'s changes are read one at a time from the message text
  /// (`MethodRegistry.streamedParams`): each is applied before the next is parsed.
  static let streamedParams = ["context.save": "changes"]

  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "context.save",
        { p, context in
          try p.rejectUnknown(["changes", "author"])
          let author = try p.string("author")
          var changes = try context.elements(p, "changes")
          let store = try s.requireStore()
          store.requestAuthor = author
          defer { store.requestAuthor = nil }
          var index = 0
          let r = try store.save(reading: {
            guard let v = try changes.next() else { return nil }
            defer { index += 1 }
            return try change(JSONReader(v, arrayPath: "params.changes", index: index))
          })
          return encoded(r)
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

  /// `{ids, inserted, updated, deleted}`, written straight to text: a save of 100,000
  /// inserts answers with 100,000 ids, which need no tree (or string) of their own.
  static func encoded(_ r: SaveResult) -> JSONValue {
    // An upper bound of the length, so that the buffer is never copied while it grows (its
    // pages are touched only as written).
    var longest = 0
    var refBytes = 0
    for (ref, id) in r.refs {
      refBytes += ref.utf8.count
      longest = max(longest, id.entity.utf8.count)
    }
    for list in [r.inserted, r.updated, r.deleted] { for run in list.entities { longest = max(longest, run.utf8.count) } }
    let ids = r.inserted.count + r.updated.count + r.deleted.count + r.refs.count
    var w = JSONWriter(capacity: 64 + ids * (longest + 24) + 6 * refBytes)  // an escape takes at most 6 bytes
    w.writeRaw("{\"ids\":{")
    for (i, (ref, id)) in r.refs.enumerated() {
      if i > 0 { w.writeRaw(",") }
      w.writeString(ref)
      w.writeRaw(":")
      write(id, &w)
    }
    w.writeRaw("}")
    for (key, ids) in [("inserted", r.inserted), ("updated", r.updated), ("deleted", r.deleted)] {
      w.writeRaw(",")
      w.writeString(key)
      w.writeRaw(":[")
      var first = true
      for id in ids {
        if !first { w.writeRaw(",") }
        first = false
        write(id, &w)
      }
      w.writeRaw("]")
    }
    w.writeRaw("}")
    return .encoded(EncodedJSON(writtenBy: w))
  }

  /// `"Entity/123"`, as `ObjectID.description` would be written, without making it.
  private static func write(_ id: ObjectID, _ w: inout JSONWriter) {
    w.writeString(id.entity)
    w.bytes.removeLast()  // the closing quote: the key follows inside the string
    w.bytes.append(ObjectID.separatorByte)
    w.writeInt(id.pk)
    w.writeRaw("\"")
  }

  private static func values(_ c: JSONReader) throws -> JSONObject {
    guard let v = c.value("values") else { return [:] }
    guard case .object(let o) = v else {
      throw RPCError.invalidParams("\(c.path).values: expected an object, got \(v.typeName)", ["path": .string("\(c.path).values")])
    }
    return o
  }
}
