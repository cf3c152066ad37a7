import JSONCore
import XCTest

@testable import SchemaModel

final class VersionHashTests: XCTestCase {
  private func decoded(_ json: JSONValue, file: StaticString = #filePath, line: UInt = #line) -> Schema {
    let (s, issues) = SchemaValidator.check(json)
    assertNoErrors(issues, file: file, line: line)
    return s
  }

  private func base(
    titleType: String = "string", titleOptional: Bool? = nil, titleName: String = "title", titleDefault: JSONValue? = nil,
    deleteRule: String? = nil, indexes: [[String]]? = nil, indexed: Bool? = nil, entityOrderSwapped: Bool = false
  ) -> Schema {
    let task = entity(
      "Task", [attr(titleName, titleType, optional: titleOptional, default: titleDefault, indexed: indexed), attr("done", "bool")],
      relationships: [rel("category", "Category", inverse: "tasks")], indexes: indexes)
    let category = entity(
      "Category", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: deleteRule)])
    return decoded(entityOrderSwapped ? schema(category, task) : schema(task, category))
  }

  func testEntityHashIsSHA256OfTheDocumentedCanonicalText() {
    // Computed independently: printf '<text>' | sha256sum
    let e = Entity(name: "Task", attributes: [Attribute(name: "title", type: .string)])
    XCTAssertEqual(e.versionHash, "eaca41ff438d8ff22cbabc5466df0613723829c8ac1f107ab26ad5e13765a8ed")

    let full = Entity(
      name: "Task",
      attributes: [Attribute(name: "title", type: .string, optional: true, unique: true), Attribute(name: "done", type: .bool)],
      relationships: [Relationship(name: "category", destination: "Category", inverse: "tasks")], uniqueness: [["title", "category"]])
    XCTAssertEqual(full.versionHash, "dcc3d4a002c8bb7ebd81b575d7f33ccf3cc1c0f7b8949eaa1f031cd8cd464366")
  }

  func testHashIsStableAndHex() {
    let a = base().versionHash
    XCTAssertEqual(a, base().versionHash)
    XCTAssertEqual(a.count, 64)
    XCTAssertTrue(a.allSatisfy { "0123456789abcdef".contains($0) })
  }

  func testEntityOrderDoesNotMatter() {
    XCTAssertEqual(base().versionHash, base(entityOrderSwapped: true).versionHash)
  }

  func testAttributeOrderDoesNotMatter() {
    let a = Entity(name: "E", attributes: [Attribute(name: "a", type: .int), Attribute(name: "b", type: .string)])
    let b = Entity(name: "E", attributes: [Attribute(name: "b", type: .string), Attribute(name: "a", type: .int)])
    XCTAssertEqual(a.versionHash, b.versionHash)
  }

  func testUnchangedByDefaultsDeleteRulesIndexesAndHints() {
    let h = base().versionHash
    XCTAssertEqual(base(titleDefault: "untitled").versionHash, h, "defaults")
    XCTAssertEqual(base(deleteRule: "cascade").versionHash, h, "delete rule")
    XCTAssertEqual(base(indexes: [["title"]]).versionHash, h, "indexes")
    XCTAssertEqual(base(indexed: true).versionHash, h, "indexed flag")
    var hinted = base().entities[0]
    hinted.attributes[0].originalName = "name"
    hinted.originalName = "OldTask"
    XCTAssertEqual(hinted.versionHash, base().entities[0].versionHash, "renaming hints")
    var counted = base().entities[1]
    counted.relationships[0].minCount = 1
    counted.relationships[0].maxCount = 9
    XCTAssertEqual(counted.versionHash, base().entities[1].versionHash, "min/max counts")
  }

  func testChangedByTypeOptionalityAndRename() {
    let h = base().versionHash
    XCTAssertNotEqual(base(titleType: "uuid").versionHash, h, "type")
    XCTAssertNotEqual(base(titleOptional: true).versionHash, h, "optional")
    XCTAssertNotEqual(base(titleName: "heading").versionHash, h, "rename")
    XCTAssertNotEqual(base(titleType: "uuid").entities[0].versionHash, base().entities[0].versionHash)
    XCTAssertEqual(base(titleType: "uuid").entities[1].versionHash, base().entities[1].versionHash, "other entities keep their hash")
  }

  func testChangedByRelationshipShapeAndEntityShape() {
    let e = base().entities[1]
    var toOne = e
    toOne.relationships[0].toMany = false
    XCTAssertNotEqual(toOne.versionHash, e.versionHash)
    var ordered = e
    ordered.relationships[0].ordered = true
    XCTAssertNotEqual(ordered.versionHash, e.versionHash)
    var renamed = e
    renamed.name = "Group"
    XCTAssertNotEqual(renamed.versionHash, e.versionHash)
    var abstract = e
    abstract.abstract = true
    XCTAssertNotEqual(abstract.versionHash, e.versionHash)
    var parented = e
    parented.parent = "Thing"
    XCTAssertNotEqual(parented.versionHash, e.versionHash)
    var unique = e
    unique.attributes[0].unique = true
    XCTAssertNotEqual(unique.versionHash, e.versionHash)
  }

  func testSchemaHashIgnoresVersionLabel() {
    var a = base()
    a.version = "99"
    XCTAssertEqual(a.versionHash, base().versionHash)
  }

  func testAddingAnEntityChangesTheSchemaHash() {
    var s = base()
    let h = s.versionHash
    s.entities.append(Entity(name: "Tag"))
    XCTAssertNotEqual(s.versionHash, h)
  }
}
