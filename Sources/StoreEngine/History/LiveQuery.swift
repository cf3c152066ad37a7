import JSONCore
import SchemaModel

/// A fetch kept current: after a commit that touches what it depends on, it re-runs its
/// id query (index-backed, no objects built), diffs the ids against the previous result,
/// and reads only the objects that came in, moved, or changed, as NSFetchedResultsController
/// reports them.
public final class LiveQuery {
  public let request: FetchRequest
  public private(set) var ids: [ObjectID] = []
  /// The sections of `ids` (with `sectionBy`): a section key read through a relationship
  /// can change while the list stays the same.
  private var sections: [Section]?
  /// Which entities' changes can alter the result (see `LiveQueryDependencies`).
  let dependencies: LiveQueryDependencies
  /// How many times the id query was run again (commits that could not change the result
  /// cost nothing and are not counted).
  public private(set) var refreshes = 0

  /// Runs the fetch; returns the live query and the first result.
  public static func start(_ request: FetchRequest, on store: Store) throws -> (LiveQuery, FetchResult) {
    let q = LiveQuery(request, graph: try store.requireGraph())
    let first = try store.fetchWithSections(request)
    // The ids of exactly the objects the client got (another process may commit between
    // two statements, so they are not queried again).
    q.ids = first.objects.compactMap { o in o["_id"]?.stringValue.flatMap(ObjectID.init) }
    q.sections = first.sections
    return (q, first)
  }

  private init(_ request: FetchRequest, graph: ModelGraph) {
    self.request = request
    dependencies = LiveQueryDependencies(request, graph: graph)
  }

  /// The change to report after commits that changed `entities` (and the objects `changed`,
  /// or every object when `bulk`), or nil when the result is the same.
  /// Its statements read one snapshot.
  public func refresh(on store: Store, entities: Set<String>, changed: Set<String>, bulk: Bool) throws -> LiveQueryChange? {
    let expanded = !dependencies.included.isDisjoint(with: entities)
    if !dependencies.reach.meets(entities), !expanded { return nil }
    refreshes += 1
    // A change to an included object alters the objects that include it: all are re-read.
    return try store.readingOneSnapshot { try diff(on: store, changed: changed, bulk: bulk || expanded) }
  }

  private func diff(on store: Store, changed: Set<String>, bulk: Bool) throws -> LiveQueryChange? {
    let old = ids
    let oldSections = sections
    let (new, newSections) = try store.matchingIDsAndSections(request)
    ids = new
    sections = newSections
    var oldIndex: [ObjectID: Int] = [:]
    for (i, id) in old.enumerated() { oldIndex[id] = i }
    var newIndex: [ObjectID: Int] = [:]
    for (i, id) in new.enumerated() { newIndex[id] = i }

    var change = LiveQueryChange()
    for (i, id) in old.enumerated() where newIndex[id] == nil { change.deleted.append((i, id.description)) }
    // Objects in both: those off the longest run kept in order moved.
    let common = new.filter { oldIndex[$0] != nil }
    let kept = Self.longestIncreasing(common.map { oldIndex[$0]! })
    var movedIDs: [ObjectID] = []
    for (k, id) in common.enumerated() where !kept.contains(k) { movedIDs.append(id) }
    let moved = Set(movedIDs)
    let inserted = new.filter { oldIndex[$0] == nil }
    let updated = common.filter { !moved.contains($0) && (bulk || changed.contains($0.description)) }
    let wanted = inserted + movedIDs + updated
    if change.deleted.isEmpty && wanted.isEmpty && sections == oldSections { return nil }
    let objects = try read(wanted, store)
    // The id query and the reads see one snapshot, so every id is there.
    func object(_ id: ObjectID) throws -> JSONObject {
      guard let o = objects[id] else { throw StoreError(.storage, "live query: \(id) matched but could not be read in the same snapshot") }
      return o
    }
    for id in inserted { change.inserted.append((newIndex[id]!, try object(id))) }
    for id in movedIDs { change.moved.append((oldIndex[id]!, newIndex[id]!, try object(id))) }
    for id in updated { change.updated.append((newIndex[id]!, try object(id))) }
    change.inserted.sort { $0.0 < $1.0 }
    change.moved.sort { $0.to < $1.to }
    change.updated.sort { $0.0 < $1.0 }
    change.deleted.sort { $0.0 > $1.0 }
    change.sections = sections
    return change
  }

  /// The objects for `ids`, shaped as the fetch shapes them (select, include). However
  /// many ids one commit brings, `SELF IN %@` binds them as one value (a long `IN` list
  /// is one JSON array, see `SQLBuilder.boundMembership`).
  private func read(_ ids: [ObjectID], _ store: Store) throws -> [ObjectID: JSONObject] {
    guard !ids.isEmpty else { return [:] }
    var r = request
    r.predicate = try PredicateParser.parse("SELF IN %@", args: [.array(ids.map { .string($0.description) })])
    r.limit = nil
    r.offset = nil
    r.sort = []
    r.sectionBy = nil
    var out: [ObjectID: JSONObject] = [:]
    for o in try store.fetch(r) {
      if case .string(let text)? = o["_id"], let id = ObjectID(text) { out[id] = o }
    }
    return out
  }

  /// Positions (into `values`) of one longest strictly increasing subsequence.
  static func longestIncreasing(_ values: [Int]) -> Set<Int> {
    var tails: [Int] = []  // index into values of the smallest tail of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (i, v) in values.enumerated() {
      var lo = 0, hi = tails.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
      }
      if lo > 0 { previous[i] = tails[lo - 1] }
      if lo == tails.count { tails.append(i) } else { tails[lo] = i }
    }
    var out: Set<Int> = []
    var k = tails.last ?? -1
    while k >= 0 {
      out.insert(k)
      k = previous[k]
    }
    return out
  }
}

/// One `query/changed`: apply `deleted` and the `from` side of `moved` to the previous
/// list (old indexes, highest first), then `inserted` and the `to` side of `moved` (new
/// indexes, lowest first), then replace at `updated` (new indexes).
public struct LiveQueryChange {
  public var inserted: [(Int, JSONObject)] = []
  public var deleted: [(Int, String)] = []
  public var updated: [(Int, JSONObject)] = []
  public var moved: [(from: Int, to: Int, object: JSONObject)] = []
  public var sections: [Section]?

  public var json: JSONObject {
    var o: JSONObject = [
      "inserted": .array(inserted.map { .object(["index": .int(Int64($0.0)), "object": .object($0.1)]) }),
      "deleted": .array(deleted.map { .object(["index": .int(Int64($0.0)), "id": .string($0.1)]) }),
      "updated": .array(updated.map { .object(["index": .int(Int64($0.0)), "object": .object($0.1)]) }),
      "moved": .array(moved.map { .object(["from": .int(Int64($0.from)), "to": .int(Int64($0.to)), "object": .object($0.object)]) }),
    ]
    if let sections { o.append("sections", .array(sections.map(\.json))) }
    return o
  }
}
