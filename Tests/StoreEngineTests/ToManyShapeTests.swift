import JSONCore
import XCTest

@testable import StoreEngine

/// How objects carry their to-many relationships (`toMany`): left out by default, ids
/// (in relationship order) or counts when asked; `select` and `include` override it for
/// the relationships they name. Every read gives the same shape (objects.get, a fetch
/// built as a tree or written straight to JSON, a write's answer).
final class ToManyShapeTests: XCTestCase {
  /// A fetch of `entity` in each of its forms, which must agree.
  private func fetch(_ store: Store, _ r: FetchRequest, file: StaticString = #filePath, line: UInt = #line) throws -> [JSONObject] {
    let tree = try store.fetch(r)
    if r.include.isEmpty {
      let encoded = try store.fetchWithSections(r, encoded: true).encoded?.bytes
      XCTAssertEqual(encoded, JSONWriter.encode(.array(tree.map { .object($0) })), "encoded fetch of \(r.entity)", file: file, line: line)
    }
    return tree
  }

  private func request(_ entity: String, _ mode: ToManyMode, select: [String]? = nil, include: [String] = []) -> FetchRequest {
    var r = FetchRequest(entity: entity)
    r.toMany = mode
    r.select = select
    r.include = include
    return r
  }

  private func categories() throws -> (Store, home: String, work: String, tasks: [String]) {
    let store = try makeStore(taskCategorySchema)
    let home = try store.add("Category", ["name": "home"])
    let work = try store.add("Category", ["name": "work"])
    _ = try store.add("Category", ["name": "empty"])
    var tasks: [String] = []
    for (i, c) in [work, home, work, home, home].enumerated() {
      tasks.append(try store.add("Task", ["title": .string("t\(i)"), "category": .string(c)]))
    }
    return (store, home, work, tasks)
  }

  func testLeftOutIdsOrCountEverywhere() throws {
    let (store, home, work, tasks) = try categories()
    XCTAssertNil(try store.get(id: home)["tasks"], "left out by default")
    XCTAssertEqual(try store.get(id: home, toMany: .ids)["tasks"], ids(tasks[1], tasks[3], tasks[4]), "by ascending key")
    XCTAssertEqual(try store.get(id: home, toMany: .count)["tasks"], 3)
    XCTAssertEqual(try store.get(ids: [work, home, "Category/3"], toMany: .count).map { $0["tasks"] }, [2, 3, 0])
    XCTAssertEqual(try fetch(store, request("Category", .none)).map { $0["tasks"] }, [nil, nil, nil])
    XCTAssertEqual(try fetch(store, request("Category", .count)).map { $0["tasks"] }, [3, 2, 0])
    XCTAssertEqual(
      try fetch(store, request("Category", .ids)).map { strings($0["tasks"]) },
      [[tasks[1], tasks[3], tasks[4]], [tasks[0], tasks[2]], []])
    // The members come after the attributes and to-ones, in relationship order.
    XCTAssertEqual(try store.get(id: home, toMany: .count).keys, ["_id", "_entity", "name", "color", "tasks"])
    // Writes answer in the same shape as a read.
    XCTAssertEqual(try store.update(id: home, values: ["color": "red"], toMany: .count)["tasks"], 3)
    XCTAssertEqual(try store.update(id: work, values: ["color": "red"], toMany: .ids), try store.get(id: work, toMany: .ids))
    XCTAssertEqual(
      try store.upsert(entity: "Category", values: ["name": "home"], on: nil, toMany: .ids).object["tasks"]?.arrayValue?.count, 3)
    XCTAssertNil(try store.update(id: home, values: ["color": "blue"])["tasks"])
  }

  func testSelectNamingAToManySendsItsIdsWhateverTheMode() throws {
    let (store, home, _, tasks) = try categories()
    for mode in ToManyMode.allCases {
      let named = try fetch(store, request("Category", mode, select: ["name", "tasks"]))
      XCTAssertEqual(named[0].keys, ["_id", "_entity", "name", "tasks"])
      XCTAssertEqual(named[0]["tasks"], ids(tasks[1], tasks[3], tasks[4]), "\(mode)")
      let unnamed = try fetch(store, request("Category", mode, select: ["name"]))
      XCTAssertEqual(unnamed[0].keys, ["_id", "_entity", "name"], "\(mode): a to-many not selected is left out")
    }
    XCTAssertEqual(try fetch(store, request("Task", .count, select: ["category"]))[0].keys, ["_id", "_entity", "category"])
    XCTAssertEqual(home, "Category/1")
  }

  func testIncludeExpandsWhateverTheModeAndExpandedObjectsFollowIt() throws {
    let (store, home, _, tasks) = try categories()
    for mode in ToManyMode.allCases {
      let list = try fetch(store, request("Category", mode, include: ["tasks"]))
      let expanded = list[0]["tasks"]?.arrayValue?.compactMap { $0["_id"]?.stringValue }
      XCTAssertEqual(expanded, [tasks[1], tasks[3], tasks[4]], "\(mode)")
    }
    // Tasks of the home category, each with its category expanded, whose own tasks follow
    // the mode, or are expanded by a longer key path.
    var r = request("Task", .count, include: ["category"])
    r.predicate = try PredicateParser.parse("category == %@", args: [.string(home)])
    let counted = try fetch(store, r)
    XCTAssertEqual(counted.map { $0["category"]?["tasks"] }, [3, 3, 3])
    r.toMany = .none
    XCTAssertEqual(try fetch(store, r).map { $0["category"]?["tasks"] }, [nil, nil, nil])
    r.include = ["category", "category.tasks"]
    let nested = try fetch(store, r)
    XCTAssertEqual(nested[0]["category"]?["tasks"]?.arrayValue?.compactMap { $0["_id"]?.stringValue }, [tasks[1], tasks[3], tasks[4]])
    let one = try store.get(id: tasks[1], include: ["category.tasks"], toMany: .ids)
    XCTAssertEqual(one["category"]?["tasks"]?.arrayValue?.first?["category"], .string(home), "expanded tasks keep their to-one id")
    // Objects of several entities: an include segment one of them lacks is named by its path.
    let e = expectStoreError(.validation) { try store.get(ids: [home, tasks[0]], include: ["category", "tasks"]) }
    XCTAssertEqual(e?.message, "include[0]: 'category' is not a relationship of 'Category'")
  }

  func testOrderedToManyIdsComeInTheirOrder() throws {
    let store = try makeStore(
      schema(
        entity(
          "Playlist", [attr("name", "string")], relationships: [rel("songs", "Song", inverse: "playlist", toMany: true, ordered: true)]),
        entity("Song", [attr("title", "string")], relationships: [rel("playlist", "Playlist", inverse: "songs")]),
        entity("Board", [attr("name", "string")], relationships: [rel("pins", "Pin", inverse: "boards", toMany: true, ordered: true)]),
        entity("Pin", [attr("url", "string")], relationships: [rel("boards", "Board", inverse: "pins", toMany: true, ordered: true)])))
    let songs = try (1...4).map { try store.add("Song", ["title": .string("s\($0)")]) }
    let p = try store.add("Playlist", ["name": "p", "songs": ids(songs[2], songs[0], songs[3])])
    _ = try store.update(id: songs[1], values: ["playlist": .string(p)])
    XCTAssertEqual(try store.get(id: p, toMany: .ids)["songs"], ids(songs[2], songs[0], songs[3], songs[1]), "appended through its to-one")
    XCTAssertEqual(try fetch(store, request("Playlist", .ids))[0]["songs"], ids(songs[2], songs[0], songs[3], songs[1]))
    XCTAssertEqual(try fetch(store, request("Playlist", .count))[0]["songs"], 4)
    let pins = try (1...3).map { try store.add("Pin", ["url": .string("\($0)")]) }
    let b1 = try store.add("Board", ["name": "b1", "pins": ids(pins[2], pins[0], pins[1])])
    let b2 = try store.add("Board", ["name": "b2", "pins": ids(pins[1], pins[2])])
    XCTAssertEqual(try fetch(store, request("Board", .ids)).map { $0["pins"] }, [ids(pins[2], pins[0], pins[1]), ids(pins[1], pins[2])])
    XCTAssertEqual(try fetch(store, request("Pin", .ids)).map { $0["boards"] }, [ids(b1), ids(b1, b2), ids(b1, b2)])
    XCTAssertEqual(try fetch(store, request("Pin", .count)).map { $0["boards"] }, [1, 2, 2])
  }

  func testManyToManyBothSidesAndASelfInverse() throws {
    let lib = try Library()
    let books = try fetch(lib.store, request("Book", .ids))
    XCTAssertEqual(books.map { $0["tags"] }, [ids(lib.classic, lib.french), ids(lib.french), ids(lib.classic), ids(), ids()])
    XCTAssertEqual(
      try fetch(lib.store, request("Tag", .ids)).map { $0["books"] }, [ids(lib.germinal, lib.emma), ids(lib.germinal, lib.nana), ids()])
    XCTAssertEqual(try fetch(lib.store, request("Tag", .count)).map { $0["books"] }, [2, 2, 0])
    XCTAssertEqual(try fetch(lib.store, request("Author", .count)).map { $0["books"] }, [2, 2, 0, 0])
    let store = try makeStore(
      schema(entity("Person", [attr("name", "string")], relationships: [rel("friends", "Person", inverse: "friends", toMany: true)])))
    let ann = try store.add("Person", ["name": "Ann"])
    let bob = try store.add("Person", ["name": "Bob", "friends": ids(ann)])
    let cy = try store.add("Person", ["name": "Cy", "friends": ids(ann, bob)])
    XCTAssertEqual(try fetch(store, request("Person", .ids)).map { $0["friends"] }, [ids(bob, cy), ids(ann, cy), ids(ann, bob)])
    XCTAssertEqual(try fetch(store, request("Person", .count)).map { $0["friends"] }, [2, 2, 2])
  }

  func testSubEntitiesGetTheirOwnAndInheritedToManys() throws {
    let store = try makeStore(
      schema(
        entity("Owner", [attr("name", "string")], relationships: [rel("pets", "Pet", inverse: "owner", toMany: true)]),
        entity(
          "Pet", abstract: true, [attr("name", "string")],
          relationships: [rel("owner", "Owner", inverse: "pets"), rel("toys", "Toy", inverse: "pet", toMany: true)]),
        entity("Dog", parent: "Pet", relationships: [rel("bones", "Bone", toMany: true)]),
        entity("Cat", parent: "Pet", [attr("lives", "int", default: 9)]),
        entity("Toy", [attr("name", "string")], relationships: [rel("pet", "Pet", inverse: "toys")]),
        entity("Bone", [attr("size", "int")])))
    let owner = try store.add("Owner", ["name": "o"])
    let bone = try store.add("Bone", ["size": 1])
    let dog = try store.add("Dog", ["name": "Rex", "owner": .string(owner), "bones": ids(bone)])
    let cat = try store.add("Cat", ["name": "Tom", "owner": .string(owner)])
    let toys = try (1...3).map { try store.add("Toy", ["name": .string("toy\($0)"), "pet": .string($0 == 2 ? cat : dog)]) }
    XCTAssertEqual(try store.get(id: owner, toMany: .ids)["pets"], ids(dog, cat), "ids carry the concrete entity")
    let counted = try fetch(store, request("Pet", .count))
    XCTAssertEqual(
      counted.map(\.keys), [["_id", "_entity", "name", "owner", "toys", "bones"], ["_id", "_entity", "name", "lives", "owner", "toys"]])
    XCTAssertEqual(counted.map { $0["toys"] }, [2, 1])
    XCTAssertEqual(counted[0]["bones"], 1)
    let listed = try fetch(store, request("Pet", .ids))
    XCTAssertEqual(listed.map { $0["toys"] }, [ids(toys[0], toys[2]), ids(toys[1])])
    XCTAssertEqual(try fetch(store, request("Dog", .ids))[0]["bones"], ids(bone))
    XCTAssertEqual(
      try fetch(store, request("Pet", .none)).map(\.keys),
      [["_id", "_entity", "name", "owner"], ["_id", "_entity", "name", "lives", "owner"]])
    let mixed = try store.get(ids: [cat, owner, dog], include: [], toMany: .count)
    XCTAssertEqual(mixed.map { $0["pets"] ?? $0["toys"] }, [1, 2, 2])
  }

  /// One statement reads a to-many relationship for the whole page: the statements a
  /// fetch runs do not grow with the objects it returns.
  func testOneStatementPerRelationshipForAWholePage() throws {
    let lib = try Library()
    for i in 0..<200 { _ = try lib.store.add("Book", ["title": .string("extra \(i)"), "pages": 1, "tags": ids(lib.classic)]) }
    func statements(_ r: FetchRequest, encoded: Bool) throws -> Int {
      let before = lib.store.connection.statementsRun
      _ = try lib.store.fetchWithSections(r, encoded: encoded)
      return lib.store.connection.statementsRun - before
    }
    for encoded in [false, true] {
      XCTAssertEqual(try statements(request("Book", .none), encoded: encoded), 1)
      XCTAssertEqual(try statements(request("Book", .ids), encoded: encoded), 2, "Book has one to-many: tags")
      XCTAssertEqual(try statements(request("Book", .count), encoded: encoded), 2)
      XCTAssertEqual(try statements(request("Tag", .count), encoded: encoded), 2)
    }
  }

  /// The cost of a fetch does not grow with to-many relationships it does not send: ten
  /// categories read with the same SQLite work (virtual machine steps, subqueries
  /// included) whether they hold no task or 50,000.
  func testAFetchOfTenCategoriesDoesNotReadTheirFiftyThousandTasks() throws {
    let store = try makeStore(taskCategorySchema)
    _ = try store.save((0..<10).map { .insert(entity: "Category", ref: "$c\($0)", values: ["name": .string("c\($0)")]) })
    func steps(_ mode: ToManyMode, encoded: Bool = false) throws -> Int {
      let before = store.connection.vmSteps
      let result = try store.fetchWithSections(request("Category", mode), encoded: encoded)
      XCTAssertEqual(encoded ? nil : result.objects.count, encoded ? nil : 10)
      return store.connection.vmSteps - before
    }
    let withoutTasks = (tree: try steps(.none), encoded: try steps(.none, encoded: true))
    var changes: [Change] = []
    for t in 0..<50_000 {
      changes.append(.insert(entity: "Task", ref: nil, values: ["title": .string("t\(t)"), "category": .string("Category/\(t % 10 + 1)")]))
    }
    _ = try store.save(changes)
    XCTAssertEqual(try steps(.none), withoutTasks.tree, "the fetch visits no task")
    XCTAssertEqual(try steps(.none, encoded: true), withoutTasks.encoded, "the encoded fetch visits no task")
    // The measure sees the tasks when they are asked for.
    XCTAssertGreaterThan(try steps(.ids), 50_000)
    XCTAssertEqual(try store.fetch(request("Category", .count)).map { $0["tasks"] }, Array(repeating: 5000, count: 10))
  }
}
