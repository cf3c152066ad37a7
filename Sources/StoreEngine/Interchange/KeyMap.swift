/// The store key each file key of one hierarchy became in an `insert` or `upsert` import.
/// Held as runs of keys that both go up by one: an export read into a store gives dense
/// file keys and dense new keys, so one run covers any number of objects and memory does
/// not grow with the import. A key below the latest run goes into a dictionary.
struct KeyMap {
  /// Sorted by `file`, disjoint: `file + i` became `store + i` for `i` in `0..<count`.
  private var runs: [(file: Int64, store: Int64, count: Int64)] = []
  private var others: [Int64: Int64] = [:]

  /// The store key that file key `file` became, if it was recorded.
  subscript(file: Int64) -> Int64? {
    var lo = 0
    var hi = runs.count
    while lo < hi {  // the first run starting after `file`
      let mid = (lo + hi) / 2
      if runs[mid].file <= file { lo = mid + 1 } else { hi = mid }
    }
    if lo > 0 {
      let r = runs[lo - 1]
      if file < r.file + r.count { return r.store + (file - r.file) }
    }
    return others.isEmpty ? nil : others[file]
  }

  /// Records that `file` became `store`; `file` must not be recorded yet.
  mutating func insert(_ file: Int64, _ store: Int64) {
    guard let last = runs.last else {
      runs.append((file, store, 1))
      return
    }
    if file == last.file + last.count && store == last.store + last.count {
      runs[runs.count - 1].count += 1
    } else if file >= last.file + last.count {
      runs.append((file, store, 1))
    } else {
      others[file] = store
    }
  }
}
