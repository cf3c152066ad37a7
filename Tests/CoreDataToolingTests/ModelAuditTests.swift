import JSONCore
import SchemaModel
import TestSupport
import XCTest

@testable import CoreDataTooling

/// The SwiftData migration audit and the coexistence check.
final class ModelAuditTests: XCTestCase {
  private func codes(_ audit: ModelAudit, _ category: ModelAudit.Category) -> [String] {
    audit.findings.filter { $0.category == category }.map { "\($0.code):\($0.entity ?? "-").\($0.property ?? "-")" }
  }

  func testFeaturesModelWithCloudKit() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.features)
    let audit = try model.audit()
    XCTAssertTrue(audit.cloudKit, "the model is marked usedWithCloudKit")
    XCTAssertEqual(
      codes(audit, .unsupported),
      [
        "validationRule:Document.title", "validationRule:Document.title", "validationRule:Document.title",
        "derivedAttribute:Document.titleUpper", "fetchedProperty:Document.recentPages", "fetchRequestTemplate:Document.-",
        "configuration:-.-", "configuration:-.-",
      ])
    XCTAssertEqual(
      codes(audit, .needsAttention),
      [
        "userInfo:Item.-", "customClass:Document.-", "transformable:Document.tags", "indexOrder:Document.title",
        "coexistenceClassName:Item.-", "abstractEntity:Item.-", "inheritance:Document.-", "cloudKitRequired:Document.title",
        "integerWidth:Document.pages", "orderedRelationship:Document.pagesList", "denyRule:Document.owner",
        "cloudKitRequiredRelationship:Document.owner", "coexistenceClassName:Page.-", "integerWidth:Page.number",
        "coexistenceClassName:Person.-", "cloudKitUnique:Person.-", "missingInverse:Person.bookmarks", "noActionRule:Person.bookmarks",
      ])
    XCTAssertEqual(audit.supported.first { $0.entity == "Page" }?.properties, ["text", "document"])
    let finding = try XCTUnwrap(audit.findings.first { $0.code == "orderedRelationship" })
    XCTAssertEqual(finding.action, "add an explicit order key on 'Page' (e.g. 'position: Int') and sort by it")
    let withoutCloudKit = try model.audit(cloudKit: false)
    XCTAssertFalse(codes(withoutCloudKit, .needsAttention).contains { $0.hasPrefix("cloudKit") })
  }

  func testNameClashesFromASchema() throws {
    let schema: JSONValue = [
      "entities": [
        [
          "name": "Task",
          "attributes": [["name": "id", "type": "uuid"], ["name": "where", "type": "string", "optional": true]],
        ]
      ]
    ]
    let model = ImportedModel.fromSchema(schema)
    let audit = try model.audit()
    XCTAssertFalse(audit.cloudKit)
    XCTAssertEqual(
      codes(audit, .needsAttention),
      ["typeNameClash:Task.-", "coexistenceClassName:Task.-", "memberClash:Task.id", "reservedWord:Task.where"])
    XCTAssertEqual(audit.supported.map(\.properties), [[]])
    let json = audit.json
    XCTAssertEqual(json["summary"]?["needsAttention"], 4)
    XCTAssertEqual(json["unsupported"], .array([]))
  }

  func testCoexistenceOfTwoVersions() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.tasksBundle)
    let v2 = try XCTUnwrap(model.versions[1].schema)
    let v3 = try XCTUnwrap(model.versions[2].schema)
    XCTAssertEqual(ModelCoexistence.compare(v3, v3), [])
    let differences = ModelCoexistence.compare(v2, v3, names: ("v2", "v3"))
    XCTAssertEqual(
      differences.map(\.message),
      ["'CDTask.done' is only in v2", "'CDTask.isDone' is only in v3"])
    var changed = v3
    changed.entities[1].attributes[2].type = .int32
    changed.entities[1].attributes[3].optional = true
    changed.entities[0].relationships[0].ordered = true
    changed.entities.append(Entity(name: "Extra"))
    XCTAssertEqual(
      ModelCoexistence.compare(v3, changed).map(\.code),
      ["relationshipDiffers", "typeDiffers", "optionalityDiffers", "entityMissing"])
  }
}
