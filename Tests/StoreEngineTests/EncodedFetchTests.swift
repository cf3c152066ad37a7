import JSONCore
import XCTest

@testable import StoreEngine

/// `query.fetch` writes its objects straight to JSON; the bytes must be exactly those of
/// encoding the objects the tree path builds, for every shape of fetch.
final class EncodedFetchTests: XCTestCase {
  private func assertSameBytes(_ store: Store, _ request: FetchRequest, file: StaticString = #filePath, line: UInt = #line) throws {
    let tree = try store.fetchWithSections(request)
    let encoded = try store.fetchWithSections(request, encoded: true)
    let expected = JSONWriter.encode(.array(tree.objects.map { .object($0) }))
    XCTAssertEqual(encoded.encoded?.bytes, expected, "request on \(request.entity)", file: file, line: line)
    XCTAssertEqual(encoded.sections?.map(\.json), tree.sections?.map(\.json), file: file, line: line)
  }

  func testEncodedObjectsMatchTheTreeForEveryShape() throws {
    let store = try makeStore(taskCategorySchema)
    var changes: [Change] = [
      .insert(entity: "Category", ref: "$w", values: ["name": "Wörk \"quoted\"\n"]),
      .insert(entity: "Category", ref: "$h", values: ["name": "Home", "color": "green"]),
    ]
    for i in 0..<40 {
      var values: JSONObject = ["title": .string("task \(i) é\t\u{1}"), "priority": .int(Int64(i % 4))]
      if i % 3 != 0 { values.append("category", .string(i % 2 == 0 ? "$w" : "$h")) }
      if i % 5 == 0 { values.append("due", .string("2026-03-0\(i % 9 + 1)T10:00:00.250Z")) }
      if i % 7 == 0 { values.append("notes", .string(String(repeating: "long ascii text ", count: 5))) }
      changes.append(.insert(entity: "Task", ref: nil, values: values))
    }
    _ = try store.save(changes)
    try assertSameBytes(store, FetchRequest(entity: "Task"))
    try assertSameBytes(store, FetchRequest(entity: "Category"))
    var selected = FetchRequest(entity: "Task", predicate: try PredicateParser.parse("priority > 1"))
    selected.select = ["title", "category"]
    selected.sort = [SortKey(keyPath: "title", ascending: false)]
    selected.limit = 7
    try assertSameBytes(store, selected)
    var sectioned = FetchRequest(entity: "Task")
    sectioned.sectionBy = GroupingKey(keyPath: "category.name")
    try assertSameBytes(store, sectioned)
  }

  func testPolymorphicFetchesAreEncodedLikeTheTree() throws {
    let store = try makeStore(
      schema(
        entity("Pet", abstract: true, [attr("name", "string")]),
        entity("Dog", parent: "Pet", [attr("barks", "bool", default: true)]),
        entity("Cat", parent: "Pet", [attr("lives", "int", default: 9), attr("mood", "string", default: "calm", transient: true)])))
    _ = try store.insert(entity: "Dog", values: ["name": "Rex"])
    _ = try store.insert(entity: "Cat", values: ["name": "Tom"])
    try assertSameBytes(store, FetchRequest(entity: "Pet"))
    try assertSameBytes(store, FetchRequest(entity: "Cat"))
  }
}
