import DatabaseKit
import JSONCore
import SchemaModel

/// One change of a `context.save`.
public enum Change {
  case insert(entity: String, ref: String?, values: JSONObject)
  case update(id: String, values: JSONObject)
  case delete(id: String)
}

/// What a save did: refs mapped to the new ids, and every id touched by kind.
public struct SaveResult {
  public var refs: [(ref: String, id: ObjectID)] = []
  public var inserted = ObjectIDList()
  public var updated = ObjectIDList()
  public var deleted = ObjectIDList()
}

/// `context.save` and client-driven transactions.
extension Store {
  /// Applies all changes atomically, in order (see `save(reading:)`).
  public func save(_ changes: [Change]) throws -> SaveResult {
    var remaining = changes.makeIterator()
    return try save(reading: { remaining.next() }, restart: { remaining = changes.makeIterator() })
  }

  /// Applies the changes `next` gives, one at a time until it returns nil, atomically:
  /// a change is applied before the next one is read, so a large save is never held whole
  /// (its changes may be read from the request text as they are reached). Values may
  /// name the `$ref` of an insert anywhere in the same save (forward references are
  /// resolved at the end). A failing change, or an error thrown by `next`, rolls back
  /// everything; a change's error names its index. After a conflict the save is run again
  /// when `restart` makes `next` give the changes again from the first (protocol.md,
  /// "Busy and retries").
  public func save(reading next: () throws -> Change?, restart: (() throws -> Void)? = nil) throws -> SaveResult {
    try write(rerun: restart) {
      let ctx = WriteContext(allowsRefs: true)
      var result = SaveResult()
      var i = 0
      while let change = try next() {
        if i & 255 == 0 { try checkCancelled() }
        ctx.currentIndex = i
        func path() -> ErrorPlace { ErrorPlace(.changes).index(i) }  // built only for errors
        do {
          switch change {
          case .insert(let entity, let ref, let values):
            if let ref {
              guard ref.hasPrefix("$"), ref.count > 1 else {
                throw StoreError(
                  .validation, at: path().key("ref"), "a ref must start with '$' (got '\(ref)')", ["index": .int(Int64(i))],
                  placeInData: false)
              }
              guard ctx.refs[ref] == nil else {
                throw StoreError(
                  .validation, at: path().key("ref"), "'\(ref)' is used by two inserts", ["index": .int(Int64(i)), "ref": .string(ref)],
                  placeInData: false)
              }
            }
            let id = try insertObject(entity, values, ctx, path: path().key("values"))
            if let ref {
              ctx.refs[ref] = id
              result.refs.append((ref, id))
            }
            result.inserted.append(id)
          case .update(let idText, let values):
            let id = try resolveSaveID(idText, ctx, path: path().key("id"))
            try updateObject(id, values, ctx, path: path().key("values"))
            result.updated.append(id)
          case .delete(let idText):
            let id = try resolveSaveID(idText, ctx, path: path().key("id"))
            result.deleted.append(contentsOf: try deleteObjects([id], ctx))
          }
        } catch var e as StoreError {
          if e.details["index"] == nil { e.details["index"] = .int(Int64(i)) }
          throw e
        }
        i += 1
      }
      ctx.currentIndex = nil
      try finish(ctx)
      if !result.deleted.isEmpty {
        let deleted = Set(result.deleted)
        var kept = ObjectIDList()
        kept.append(contentsOf: result.updated.lazy.filter { !deleted.contains($0) })
        result.updated = kept
      }
      return result
    }
  }

  private func resolveSaveID(_ text: String, _ ctx: WriteContext, path: ErrorPlace) throws -> ObjectID {
    if text.hasPrefix("$") {
      guard let id = ctx.refs[text] else {
        throw StoreError(
          .validation, at: path, "'\(text)' is not the ref of an earlier insert in this save", ["ref": .string(text)], placeInData: false)
      }
      return id
    }
    return try existingID(text, path: path)
  }

  // MARK: - Client transactions

  /// Levels opened by `begin` and not yet closed.
  public var openTransactions: Int { writes.userTransactions }

  public func begin() throws -> Int {
    try checkWritable()
    // The schema is followed now, under the write lock: it cannot change until the end.
    try translatingErrors { try beginFollowingSchema() }
    writes.opened()
    return writes.userTransactions
  }

  /// Closes the innermost level; the outermost commit writes the whole transaction's
  /// changes as one history transaction, inside it.
  public func commit() throws -> Int {
    guard writes.userTransactions > 0 else { throw StoreError(.transaction, "no transaction is open (call transaction.begin first)") }
    let log = writes.transactionLogs.removeLast()
    if let outer = writes.transactionLogs.last {
      outer.merge(log)
    } else {
      try translatingErrors { try appendHistory(log) }
    }
    do {
      try translatingErrors { try connection.commit() }
    } catch  where connection.isAutocommit {
      throw lostClientTransaction(error, "the commit")
    }
    writes.userTransactions -= 1
    return writes.userTransactions
  }

  public func rollback() throws -> Int {
    guard writes.userTransactions > 0 else { throw StoreError(.transaction, "no transaction is open (call transaction.begin first)") }
    connection.rollback()
    writes.rolledBack()
    return writes.userTransactions
  }
}
