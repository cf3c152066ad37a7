import JSONCore
import XCTest

@testable import StoreEngine

final class InverseTests: XCTestCase {
  // MARK: - to-one <-> to-many

  func testSettingTheToOneUpdatesTheToMany() throws {
    let store = try makeStore(taskCategorySchema)
    let home = try store.add("Category", ["name": "Home"])
    let work = try store.add("Category", ["name": "Work"])
    let t1 = try store.add("Task", ["title": "a", "category": .string(home)])
    let t2 = try store.add("Task", ["title": "b", "category": .string(home)])
    XCTAssertEqual(strings(try store.value(home, "tasks")), [t1, t2])
    _ = try store.update(id: t1, values: ["category": .string(work)])
    XCTAssertEqual(strings(try store.value(home, "tasks")), [t2])
    XCTAssertEqual(strings(try store.value(work, "tasks")), [t1])
    _ = try store.update(id: t2, values: ["category": .null])
    XCTAssertEqual(strings(try store.value(home, "tasks")), [])
  }

  func testSettingTheToManyUpdatesTheToOnes() throws {
    let store = try makeStore(taskCategorySchema)
    let t1 = try store.add("Task", ["title": "a"])
    let t2 = try store.add("Task", ["title": "b"])
    let t3 = try store.add("Task", ["title": "c"])
    let home = try store.add("Category", ["name": "Home", "tasks": ids(t1, t2)])
    XCTAssertEqual(try store.value(t1, "category"), .string(home))
    XCTAssertEqual(try store.value(t2, "category"), .string(home))
    let work = try store.add("Category", ["name": "Work", "tasks": ids(t2, t3)])
    XCTAssertEqual(try store.value(t2, "category"), .string(work), "t2 moved")
    XCTAssertEqual(strings(try store.value(home, "tasks")), [t1], "and left its old category")
    _ = try store.update(id: work, values: ["tasks": .array([])])
    XCTAssertEqual(try store.value(t2, "category"), .null)
    XCTAssertEqual(try store.value(t3, "category"), .null)
    _ = try store.update(id: home, values: ["tasks": .null])
    XCTAssertEqual(try store.value(t1, "category"), .null, "null clears a to-many")
  }

  func testRelationshipValueErrors() throws {
    let store = try makeStore(taskCategorySchema)
    let t = try store.add("Task", ["title": "a"])
    let wrongEntity = expectStoreError(.validation) { try store.update(id: t, values: ["category": .string(t)]) }
    XCTAssertEqual(wrongEntity?.details["relationship"], "category")
    XCTAssertTrue(wrongEntity?.message.contains("is not a Category") ?? false, wrongEntity?.message ?? "")
    let missing = expectStoreError(.notFound) { try store.update(id: t, values: ["category": "Category/42"]) }
    XCTAssertEqual(missing?.details["id"], "Category/42")
    expectStoreError(.validation) { try store.update(id: t, values: ["category": 3]) }
    expectStoreError(.validation) { try store.update(id: t, values: ["category": "garbage"]) }
    expectStoreError(.validation) { try store.update(id: t, values: ["category": "$ref"]) }
    expectStoreError(.validation) { try store.add("Category", ["name": "x", "tasks": .string(t)]) }
    let twice = expectStoreError(.validation) { try store.add("Category", ["name": "x", "tasks": ids(t, t)]) }
    XCTAssertTrue(twice?.message.contains("appears twice") ?? false)
  }

  // MARK: - one-to-one

  private let passports = schema(
    entity("Person", [attr("name", "string")], relationships: [rel("passport", "Passport", inverse: "owner")]),
    entity("Passport", [attr("number", "string")], relationships: [rel("owner", "Person", inverse: "passport")]))

  func testOneToOneBothSidesAgree() throws {
    let store = try makeStore(passports)
    let ann = try store.add("Person", ["name": "Ann"])
    let p1 = try store.add("Passport", ["number": "1", "owner": .string(ann)])
    XCTAssertEqual(try store.value(ann, "passport"), .string(p1))
    let p2 = try store.add("Passport", ["number": "2"])
    _ = try store.update(id: ann, values: ["passport": .string(p2)])
    XCTAssertEqual(try store.value(p2, "owner"), .string(ann))
    XCTAssertEqual(try store.value(p1, "owner"), .null, "the old partner lets go")
  }

  func testStealingAPartnerClearsTheOldOne() throws {
    let store = try makeStore(passports)
    let ann = try store.add("Person", ["name": "Ann"])
    let bob = try store.add("Person", ["name": "Bob"])
    let p = try store.add("Passport", ["number": "1", "owner": .string(ann)])
    _ = try store.update(id: bob, values: ["passport": .string(p)])
    XCTAssertEqual(try store.value(p, "owner"), .string(bob))
    XCTAssertEqual(try store.value(bob, "passport"), .string(p))
    XCTAssertEqual(try store.value(ann, "passport"), .null, "Ann's passport was taken")
    // From the other side.
    let p2 = try store.add("Passport", ["number": "2", "owner": .string(ann)])
    _ = try store.update(id: p2, values: ["owner": .string(bob)])
    XCTAssertEqual(try store.value(bob, "passport"), .string(p2))
    XCTAssertEqual(try store.value(p, "owner"), .null, "Bob's first passport lets go")
    XCTAssertEqual(try store.value(ann, "passport"), .null)
  }

  func testOneToOneDeleteClearsThePartner() throws {
    let store = try makeStore(passports)
    let ann = try store.add("Person", ["name": "Ann"])
    let p = try store.add("Passport", ["number": "1", "owner": .string(ann)])
    _ = try store.delete(id: ann)
    XCTAssertEqual(try store.value(p, "owner"), .null)
    XCTAssertEqual(try store.check()["ok"], true)
  }

  func testSelfInverseOneToOne() throws {
    let store = try makeStore(
      schema(entity("Person", [attr("name", "string")], relationships: [rel("spouse", "Person", inverse: "spouse")])))
    let a = try store.add("Person", ["name": "a"])
    let b = try store.add("Person", ["name": "b", "spouse": .string(a)])
    let c = try store.add("Person", ["name": "c"])
    XCTAssertEqual(try store.value(a, "spouse"), .string(b))
    _ = try store.update(id: c, values: ["spouse": .string(a)])
    XCTAssertEqual(try store.value(a, "spouse"), .string(c))
    XCTAssertEqual(try store.value(b, "spouse"), .null, "b was left")
    _ = try store.delete(id: c)
    XCTAssertEqual(try store.value(a, "spouse"), .null)
  }

  // MARK: - many-to-many

  private let courses = schema(
    entity("Student", [attr("name", "string")], relationships: [rel("courses", "Course", inverse: "students", toMany: true)]),
    entity("Course", [attr("title", "string")], relationships: [rel("students", "Student", inverse: "courses", toMany: true)]))

  func testManyToManyBothSidesSeeIt() throws {
    let store = try makeStore(courses)
    let math = try store.add("Course", ["title": "Math"])
    let art = try store.add("Course", ["title": "Art"])
    let ann = try store.add("Student", ["name": "Ann", "courses": ids(math, art)])
    let bob = try store.add("Student", ["name": "Bob", "courses": ids(math)])
    XCTAssertEqual(Set(strings(try store.value(math, "students"))), [ann, bob])
    XCTAssertEqual(strings(try store.value(art, "students")), [ann])
    _ = try store.update(id: art, values: ["students": ids(bob)])
    XCTAssertEqual(strings(try store.value(ann, "courses")), [math])
    XCTAssertEqual(Set(strings(try store.value(bob, "courses"))), [math, art])
    _ = try store.delete(id: math)
    XCTAssertEqual(strings(try store.value(ann, "courses")), [])
    XCTAssertEqual(strings(try store.value(bob, "courses")), [art])
  }

  func testSelfInverseManyToManyIsSymmetric() throws {
    // Core Data allows a relationship to be its own inverse (friends <-> friends).
    let store = try makeStore(
      schema(entity("Person", [attr("name", "string")], relationships: [rel("friends", "Person", inverse: "friends", toMany: true)])))
    let ann = try store.add("Person", ["name": "Ann"])
    let bob = try store.add("Person", ["name": "Bob", "friends": ids(ann)])
    XCTAssertEqual(strings(try store.value(bob, "friends")), [ann])
    XCTAssertEqual(strings(try store.value(ann, "friends")), [bob], "the inverse side must see the link too")
  }

  func testTwoManyToManyRelationshipsOnOneEntity() throws {
    let store = try makeStore(
      schema(
        entity(
          "User", [attr("name", "string")],
          relationships: [
            rel("following", "User", inverse: "followers", toMany: true), rel("followers", "User", inverse: "following", toMany: true),
          ])))
    let a = try store.add("User", ["name": "a"])
    let b = try store.add("User", ["name": "b", "following": ids(a)])
    XCTAssertEqual(strings(try store.value(a, "followers")), [b])
    XCTAssertEqual(strings(try store.value(a, "following")), [])
    _ = try store.update(id: a, values: ["following": ids(b)])
    XCTAssertEqual(strings(try store.value(b, "followers")), [a])
    XCTAssertEqual(strings(try store.value(b, "following")), [a])
  }

  // MARK: - ordered to-many

  private let playlists = schema(
    entity("Playlist", [attr("name", "string")], relationships: [rel("songs", "Song", inverse: "playlist", toMany: true, ordered: true)]),
    entity("Song", [attr("title", "string")], relationships: [rel("playlist", "Playlist", inverse: "songs")]))

  func testOrderedToManyKeepsOrderAndUpdatesPositions() throws {
    let store = try makeStore(playlists)
    let s1 = try store.add("Song", ["title": "1"])
    let s2 = try store.add("Song", ["title": "2"])
    let s3 = try store.add("Song", ["title": "3"])
    let p = try store.add("Playlist", ["name": "p", "songs": ids(s3, s1, s2)])
    XCTAssertEqual(strings(try store.value(p, "songs")), [s3, s1, s2])
    _ = try store.update(id: p, values: ["songs": ids(s2, s3, s1)])
    XCTAssertEqual(strings(try store.value(p, "songs")), [s2, s3, s1], "reordering is kept")
    _ = try store.update(id: p, values: ["songs": ids(s1, s2)])
    XCTAssertEqual(strings(try store.value(p, "songs")), [s1, s2])
    XCTAssertEqual(try store.value(s3, "playlist"), .null)
    // Joining through the to-one side appends at the end.
    _ = try store.update(id: s3, values: ["playlist": .string(p)])
    XCTAssertEqual(strings(try store.value(p, "songs")), [s1, s2, s3])
    let s4 = try store.add("Song", ["title": "4", "playlist": .string(p)])
    XCTAssertEqual(strings(try store.value(p, "songs")), [s1, s2, s3, s4])
    _ = try store.delete(id: s2)
    XCTAssertEqual(strings(try store.value(p, "songs")), [s1, s3, s4])
  }

  func testOrderedManyToManyKeepsOrderPerSide() throws {
    let store = try makeStore(
      schema(
        entity("Board", [attr("name", "string")], relationships: [rel("pins", "Pin", inverse: "boards", toMany: true, ordered: true)]),
        entity("Pin", [attr("url", "string")], relationships: [rel("boards", "Board", inverse: "pins", toMany: true, ordered: true)])))
    let p1 = try store.add("Pin", ["url": "1"])
    let p2 = try store.add("Pin", ["url": "2"])
    let p3 = try store.add("Pin", ["url": "3"])
    let b1 = try store.add("Board", ["name": "b1", "pins": ids(p3, p1, p2)])
    let b2 = try store.add("Board", ["name": "b2", "pins": ids(p1)])
    XCTAssertEqual(strings(try store.value(b1, "pins")), [p3, p1, p2])
    XCTAssertEqual(strings(try store.value(p1, "boards")), [b1, b2], "appended on the other side in link order")
    _ = try store.update(id: p1, values: ["boards": ids(b2, b1)])
    XCTAssertEqual(strings(try store.value(p1, "boards")), [b2, b1])
    XCTAssertEqual(strings(try store.value(b1, "pins")), [p3, p1, p2], "the other side's order is untouched")
  }

  // MARK: - no inverse

  private let bookmarks = schema(
    entity(
      "Folder", [attr("name", "string")],
      relationships: [rel("bookmarks", "Bookmark", toMany: true, ordered: true), rel("favorite", "Bookmark")]),
    entity("Bookmark", [attr("url", "string")]))

  func testToManyWithoutInverseUsesAJoinTableAndIsClearedOnDelete() throws {
    let store = try makeStore(bookmarks)
    let a = try store.add("Bookmark", ["url": "a"])
    let b = try store.add("Bookmark", ["url": "b"])
    let f1 = try store.add("Folder", ["name": "f1", "bookmarks": ids(b, a), "favorite": .string(b)])
    let f2 = try store.add("Folder", ["name": "f2", "bookmarks": ids(b)])
    XCTAssertEqual(strings(try store.value(f1, "bookmarks")), [b, a])
    XCTAssertEqual(try store.get(id: b).keys, ["_id", "_entity", "url"], "the destination knows nothing")
    XCTAssertEqual(try store.connection.scalar("SELECT count(*) FROM \"_J_Folder.bookmarks\""), .integer(3))
    let removed = try store.delete(id: b)
    XCTAssertEqual(removed, [b])
    XCTAssertEqual(strings(try store.value(f1, "bookmarks")), [a])
    XCTAssertEqual(strings(try store.value(f2, "bookmarks")), [])
    XCTAssertEqual(try store.value(f1, "favorite"), .null, "a to-one without inverse is cleared too")
    XCTAssertEqual(try store.check()["ok"], true)
  }

  func testDeletingTheSourceRemovesItsJoinRows() throws {
    let store = try makeStore(bookmarks)
    let a = try store.add("Bookmark", ["url": "a"])
    let f = try store.add("Folder", ["name": "f", "bookmarks": ids(a)])
    _ = try store.delete(id: f)
    XCTAssertTrue(store.exists(a), "nullify keeps the bookmark")
    XCTAssertEqual(try store.connection.scalar("SELECT count(*) FROM \"_J_Folder.bookmarks\""), .integer(0))
  }
}
