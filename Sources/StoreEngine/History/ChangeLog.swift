import JSONCore
import SchemaModel

/// The object changes of one commit, collected while it runs and written to the history
/// as one transaction. An object inserted and deleted in the same commit never existed
/// for anyone else, so it is left out; an inserted or deleted object is not also listed
/// as updated.
final class ChangeLog {
  private(set) var inserted = IDRanges()
  private(set) var updatedOrder: [ObjectID] = []
  private(set) var updatedKeys: [ObjectID: Set<String>] = [:]
  private(set) var deleted: [(id: ObjectID, tombstone: JSONObject?)] = []
  /// Bulk work recorded as a summary instead of per object (imports, migrations).
  private(set) var bulk: [JSONValue] = []

  var isEmpty: Bool { inserted.isEmpty && updatedOrder.isEmpty && deleted.isEmpty && bulk.isEmpty }

  func insert(_ id: ObjectID) { inserted.append(id) }

  func update(_ id: ObjectID, keys: some Sequence<String>) {
    // One hash of `id` when it is already there (a category touched by each of its tasks' inserts).
    if let i = updatedKeys.index(forKey: id) {
      updatedKeys.values[i].formUnion(keys)
    } else {
      updatedOrder.append(id)
      updatedKeys[id] = Set(keys)
    }
  }

  func delete(_ id: ObjectID, tombstone: JSONObject?) { deleted.append((id, tombstone)) }

  func addBulk(_ summary: JSONValue) { bulk.append(summary) }

  /// Empties the log, keeping its storage (the request log is reused request after request).
  func removeAll() {
    // Only what holds something: clearing a dictionary visits its whole capacity.
    if !inserted.isEmpty { inserted.removeAll() }
    if !updatedOrder.isEmpty {
      updatedOrder.removeAll(keepingCapacity: true)
      updatedKeys.removeAll(keepingCapacity: true)
    }
    if !deleted.isEmpty { deleted.removeAll(keepingCapacity: true) }
    if !bulk.isEmpty { bulk.removeAll() }
  }

  /// True when `id` was inserted by the changes in this log.
  func wasInserted(_ id: ObjectID) -> Bool { inserted.contains(id) }

  /// Appends `other`'s changes (a nested transaction that committed).
  func merge(_ other: ChangeLog) {
    inserted.append(contentsOf: other.inserted)
    for id in other.updatedOrder { update(id, keys: other.updatedKeys[id]!) }
    deleted += other.deleted
    bulk += other.bulk
  }

  /// Every entity with a change (bulk summaries name theirs).
  var entities: Set<String> {
    var out = Set(inserted.runs.map(\.entity)).union(updatedOrder.map(\.entity)).union(deleted.map(\.id.entity))
    for b in bulk { for e in b["entities"]?.arrayValue ?? [] { if let s = e.stringValue { out.insert(s) } } }
    return out
  }

  /// The compact stored form: groups of `{op, entity, keys?, pks: [[first, last], ...]}`
  /// (consecutive keys as ranges), deletes with a tombstone one by one, then bulk entries.
  func encoded() -> JSONValue {
    let gone = Set(deleted.map(\.id))
    var groups: [JSONValue] = []
    func ranges(_ ids: [ObjectID]) -> [(String, [[Int64]])] {
      var byEntity: [(String, [Int64])] = []
      var index: [String: Int] = [:]
      for id in ids {
        if let i = index[id.entity] { byEntity[i].1.append(id.pk) } else {
          index[id.entity] = byEntity.count
          byEntity.append((id.entity, [id.pk]))
        }
      }
      return byEntity.map { entity, pks in
        var out: [[Int64]] = []
        for pk in pks {
          if let last = out.last, last[1] + 1 == pk { out[out.count - 1][1] = pk } else { out.append([pk, pk]) }
        }
        return (entity, out)
      }
    }
    func group(_ op: String, _ entity: String, _ pks: [[Int64]], keys: [String]? = nil) -> JSONValue {
      var o: JSONObject = ["op": .string(op), "entity": .string(entity)]
      if let keys { o.append("keys", .array(keys.map { .string($0) })) }
      o.append("pks", .array(pks.map { .array($0.map { .int($0) }) }))
      return .object(o)
    }
    if gone.isEmpty {
      // The common case: the runs are the groups.
      var order: [String] = []
      var byEntity: [String: [[Int64]]] = [:]
      for r in inserted.runs {
        if byEntity[r.entity] == nil { order.append(r.entity) }
        byEntity[r.entity, default: []].append([r.first, r.last])
      }
      for e in order { groups.append(group("insert", e, byEntity[e]!)) }
    } else {
      for (entity, pks) in ranges(inserted.ids.filter { !gone.contains($0) }) { groups.append(group("insert", entity, pks)) }
    }
    // Updates grouped by their key sets, in first-touch order.
    var byKeys: [[String]: [ObjectID]] = [:]
    var keyOrder: [[String]] = []
    for id in updatedOrder where !inserted.contains(id) && !gone.contains(id) {
      let keys = updatedKeys[id]!.sorted()
      if byKeys[keys] == nil { keyOrder.append(keys) }
      byKeys[keys, default: []].append(id)
    }
    for keys in keyOrder {
      for (entity, pks) in ranges(byKeys[keys]!) { groups.append(group("update", entity, pks, keys: keys)) }
    }
    let deletes = deleted.filter { !inserted.contains($0.id) }
    for (entity, pks) in ranges(deletes.filter { $0.tombstone == nil }.map(\.id)) { groups.append(group("delete", entity, pks)) }
    for d in deletes where d.tombstone != nil {
      groups.append(.object(["op": "delete", "entity": .string(d.id.entity), "pks": .array([.array([.int(d.id.pk), .int(d.id.pk)])]), "tombstone": .object(d.tombstone!)]))
    }
    return .array(groups + bulk)
  }
}
