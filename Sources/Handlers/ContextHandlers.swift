import JSONCore
import RPCCore
import StoreEngine

/// `context.save` and `transaction.*`.
enum ContextHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ContextSaveParams.self) { p, context in
        var changes = try context.elements(p.json, "changes")
        let store = try s.requireStore()
        store.requestAuthor = p.author
        defer { store.requestAuthor = nil }
        var index = 0
        let r = try store.save(
          reading: {
            guard let v = try changes.next() else { return nil }
            defer { index += 1 }
            return try ChangeParam.read(v, index: index)
          },
          restart: {
            changes = try changes.rewound()
            index = 0
          })
        return ContextSaveResult(save: r)
      },
      MethodEntry(TransactionBeginParams.self) { _, _ in DepthResult(depth: try s.requireStore().begin()) },
      MethodEntry(TransactionCommitParams.self) { _, _ in DepthResult(depth: try s.requireStore().commit()) },
      MethodEntry(TransactionRollbackParams.self) { _, _ in DepthResult(depth: try s.requireStore().rollback()) },
    ]
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
}
