/// Object ids kept as runs of consecutive keys per entity, in order of arrival: a commit
/// that inserts 200,000 objects holds one run, not 200,000 ids, so a long write's history
/// costs memory per run rather than per object.
struct IDRanges {
  private(set) var runs: [(entity: String, first: Int64, last: Int64)] = []
  /// Per entity, the indexes of its runs in `runs` (keys grow within an entity when they
  /// come from inserts; `contains` falls back to a scan otherwise).
  private var byEntity: [String: [Int]] = [:]
  private var sorted = true

  var isEmpty: Bool { runs.isEmpty }

  mutating func removeAll() {
    runs.removeAll(keepingCapacity: true)
    byEntity.removeAll(keepingCapacity: true)
    sorted = true
  }

  mutating func append(_ id: ObjectID) {
    // The common case, one insert after another of the same entity: extend the last run.
    if let i = runs.indices.last, runs[i].last + 1 == id.pk, runs[i].entity == id.entity {
      runs[i].last = id.pk
      return
    }
    if let i = byEntity[id.entity]?.last {
      if runs[i].last + 1 == id.pk {
        runs[i].last = id.pk
        return
      }
      if id.pk <= runs[i].last { sorted = false }
    }
    byEntity[id.entity, default: []].append(runs.count)
    runs.append((id.entity, id.pk, id.pk))
  }

  mutating func append(contentsOf other: IDRanges) {
    for r in other.runs {
      append(ObjectID(entity: r.entity, pk: r.first))
      if r.last > r.first {
        let i = byEntity[r.entity]!.last!
        runs[i].last = max(runs[i].last, r.last)
      }
    }
  }

  func contains(_ id: ObjectID) -> Bool {
    guard let indexes = byEntity[id.entity] else { return false }
    if !sorted { return indexes.contains { runs[$0].first <= id.pk && id.pk <= runs[$0].last } }
    var lo = 0, hi = indexes.count - 1
    while lo <= hi {
      let mid = (lo + hi) / 2
      let r = runs[indexes[mid]]
      if id.pk < r.first { hi = mid - 1 } else if id.pk > r.last { lo = mid + 1 } else { return true }
    }
    return false
  }

  /// Every id, run by run.
  var ids: [ObjectID] { runs.flatMap { r in (r.first...r.last).map { ObjectID(entity: r.entity, pk: $0) } } }
}
