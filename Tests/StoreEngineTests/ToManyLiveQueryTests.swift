import JSONCore
import TestSupport
import XCTest

@testable import StoreEngine

/// Live queries sending to-many relationships (`toMany` ids or count) stay exact: every
/// change, applied to the list as protocol.md says, gives exactly what a fetch returns
/// then, whichever side of a relationship a write touched (a to-one, a to-many, a
/// many-to-many, a to-many without inverse, a delete).
final class ToManyLiveQueryTests: XCTestCase {
  private let model = schema(
    entity("Category", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
    entity(
      "Task", [attr("title", "string")],
      relationships: [rel("category", "Category", inverse: "tasks"), rel("tags", "Tag", inverse: "tasks", toMany: true)]),
    entity("Tag", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "tags", toMany: true)]),
    entity(
      "Playlist", [attr("name", "string")],
      relationships: [
        rel("songs", "Song", inverse: "playlist", toMany: true, ordered: true), rel("favorites", "Song", toMany: true),
      ]),
    entity("Song", [attr("title", "string")], relationships: [rel("playlist", "Playlist", inverse: "songs")]))

  /// One subscription and the list its notifications maintain.
  private final class Follower {
    let request: FetchRequest
    let query: LiveQuery
    var list: [JSONObject]

    init(_ request: FetchRequest, _ store: Store) throws {
      self.request = request
      (query, list) = try {
        let (q, first) = try LiveQuery.start(request, on: store); return (q, first.objects)
      }()
    }

    /// Applies `change` as protocol.md's query/changed describes.
    func apply(_ change: LiveQueryChange) {
      let removed = (change.deleted.map(\.0) + change.moved.map(\.from)).sorted(by: >)
      for i in removed { list.remove(at: i) }
      let added = (change.inserted.map { ($0.0, $0.1) } + change.moved.map { ($0.to, $0.object) }).sorted { $0.0 < $1.0 }
      for (i, o) in added { list.insert(o, at: i) }
      for (i, o) in change.updated { list[i] = o }
    }
  }

  func testEveryLinkChangeReachesTheIdsAndCountsSent() throws {
    let store = try makeStore(model)
    var followers: [Follower] = []
    for entity in ["Category", "Task", "Tag", "Playlist"] {
      for mode in [ToManyMode.ids, .count] {
        var r = FetchRequest(entity: entity)
        r.toMany = mode
        followers.append(try Follower(r, store))
      }
    }
    var cursor = try store.latestHistoryToken()
    func check(_ step: String, file: StaticString = #filePath, line: UInt = #line) throws {
      let ts = try store.history(after: cursor)
      cursor = ts.last?.token ?? cursor
      let entities = ts.reduce(into: Set<String>()) { $0.formUnion($1.entities) }
      for f in followers {
        if let change = try f.query.refresh(on: store, entities: entities, changed: Set(ts.flatMap(\.ids)), bulk: false) {
          f.apply(change)
        }
        XCTAssertEqual(
          f.list, try store.fetch(f.request), "\(step): \(f.request.entity), toMany \(f.request.toMany)", file: file, line: line)
      }
    }
    let home = try store.add("Category", ["name": "home"])
    let work = try store.add("Category", ["name": "work"])
    let t1 = try store.add("Task", ["title": "a", "category": .string(home)])
    let t2 = try store.add("Task", ["title": "b", "category": .string(home)])
    try check("tasks linked through their to-one")
    _ = try store.update(id: t2, values: ["category": .string(work)])
    try check("a task moved to another category")
    _ = try store.update(id: work, values: ["tasks": ids(t1, t2)])
    try check("the to-many side assigned")
    let urgent = try store.add("Tag", ["name": "urgent", "tasks": ids(t1)])
    _ = try store.update(id: t2, values: ["tags": ids(urgent)])
    try check("many-to-many linked from both sides")
    _ = try store.delete(id: t1)
    try check("a task deleted")
    let p = try store.add("Playlist", ["name": "p"])
    let s1 = try store.add("Song", ["title": "s1", "playlist": .string(p)])
    let s2 = try store.add("Song", ["title": "s2", "playlist": .string(p)])
    let s3 = try store.add("Song", ["title": "s3"])
    _ = try store.update(id: p, values: ["songs": ids(s2, s1), "favorites": ids(s3, s2)])
    try check("an ordered to-many reordered, a to-many without inverse set")
    _ = try store.delete(id: s1)
    try check("a song of the playlist deleted")
    _ = try store.delete(id: s3)
    try check("a song only listed by a to-many without inverse deleted: it leaves that list")
    _ = try store.delete(id: urgent)
    _ = try store.delete(id: work)
    try check("a tag and a category deleted")
  }
}
