import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// `withRelated`: an export of some objects that is closed under relationships.
final class ExportClosureTests: XCTestCase {
  static let model = schema(
    entity("Task", [attr("title", "string")], relationships: [rel("category", "Category", inverse: "tasks"), rel("tags", "Tag", inverse: "tasks", toMany: true)]),
    entity(
      "Category", [attr("name", "string")],
      relationships: [rel("tasks", "Task", inverse: "category", toMany: true), rel("parent", "Category", inverse: "children"), rel("children", "Category", inverse: "parent", toMany: true)]),
    entity("Tag", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "tags", toMany: true)]),
    entity("Note", [attr("text", "string")]))

  private func ids(in text: String) -> [String] {
    text.split(separator: "\n").dropFirst().compactMap { line in
      (try? JSONParser.parse(String(line)))?["_id"]?.stringValue
    }
  }

  func testTheClosureHoldsEverythingReachableAndNothingElse() throws {
    let s = try makeStore(Self.model)
    let home = try s.add("Category", ["name": "home"])
    let house = try s.add("Category", ["name": "house", "parent": .string(home)])
    let work = try s.add("Category", ["name": "work"])
    let urgent = try s.add("Tag", ["name": "urgent"])
    try s.add("Tag", ["name": "unused"])
    let a = try s.add("Task", ["title": "a", "category": .string(house), "tags": .array([.string(urgent)])])
    let b = try s.add("Task", ["title": "b", "tags": .array([.string(urgent)])])
    try s.add("Task", ["title": "c", "category": .string(work)])
    try s.add("Note", ["text": "n"])

    var options = ExportOptions(entities: ["Task"], layout: .ndjson)
    options.predicate = try PredicateParser.parse("title == 'a'")
    options.withRelated = true
    let sink = MemorySink(limit: 1 << 20)
    let summary = try s.export(options, to: sink)
    let text = String(decoding: sink.bytes, as: UTF8.self)
    // a → house → home (parent) and urgent → b; house's children/tasks are a; home's child is house.
    XCTAssertEqual(ids(in: text), [a, b, home, house, urgent])
    XCTAssertEqual(summary.counts.map(\.entity), ["Task", "Category", "Tag"])
    // Closed: it imports into an empty store keeping its ids, with no dangling reference.
    let copy = try Store(path: nil)
    XCTAssertEqual(try copy.importObjects(.bytes(sink.bytes), mode: .replace).inserted, 5)
    XCTAssertEqual(try copy.value(b, "tags"), .array([.string(urgent)]))
    XCTAssertEqual(try copy.value(house, "parent"), .string(home))
  }

  func testWithoutAFilterItIsTheWholeStoreOfThoseEntitiesAndTheirNeighbours() throws {
    let s = try makeStore(Self.model)
    let t = try s.add("Tag", ["name": "x"])
    try s.add("Task", ["title": "a", "tags": .array([.string(t)])])
    try s.add("Note", ["text": "n"])
    var options = ExportOptions(entities: ["Tag"], layout: .json)
    options.withRelated = true
    let sink = MemorySink(limit: 1 << 20)
    let summary = try s.export(options, to: sink)
    XCTAssertEqual(summary.counts.map(\.entity), ["Task", "Tag"])
    XCTAssertEqual(summary.objects, 2)
  }
}
