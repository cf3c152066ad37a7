import Foundation
import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// `import.coreData {model}` and `store.open {format: "coredata", model}`: with the
/// model, names, types and relationships are exact instead of inferred.
final class CoreDataModelMappingTests: XCTestCase {
  /// The fixture's model as Xcode writes it (`contents` of a .xcdatamodel).
  static let contents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Category" representedClassName="Category" syncable="YES">
            <attribute name="color" optional="YES" attributeType="String"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="category" inverseEntity="Item"/>
        </entity>
        <entity name="Item" representedClassName="Item" isAbstract="YES" syncable="YES">
            <attribute name="attachment" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="done" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
            <attribute name="due" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="payload" optional="YES" attributeType="Transformable"/>
            <attribute name="price" optional="YES" attributeType="Decimal"/>
            <attribute name="priority" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="category" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Category" inverseName="items" inverseEntity="Category"/>
            <relationship name="parentList" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="List" inverseName="items" inverseEntity="List"/>
            <relationship name="tags" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
        </entity>
        <entity name="List" representedClassName="List" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="parentList" inverseEntity="Item"/>
        </entity>
        <entity name="Note" representedClassName="Note" parentEntity="Item" syncable="YES">
            <attribute name="body" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
            <relationship name="pinned" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item"/>
        </entity>
        <entity name="Task" representedClassName="Task" parentEntity="Item" syncable="YES">
            <attribute name="taskID" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
        </entity>
    </model>
    """

  func fixture(badUUID: Bool = false) throws -> (store: String, model: String) {
    let dir = NSTemporaryDirectory() + "coredata-model-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: dir + "/Fixture.xcdatamodel", withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    try Data(Self.contents.utf8).write(to: URL(fileURLWithPath: dir + "/Fixture.xcdatamodel/contents"))
    try CoreDataFixture.write(dir + "/Fixture.sqlite", badUUID: badUUID)
    return (dir + "/Fixture.sqlite", dir + "/Fixture.xcdatamodel")
  }

  func testTheModelGivesExactNamesTypesAndOrderedRelationships() throws {
    let (path, model) = try fixture()
    let store = try Store.openCoreData(path: path, model: model)
    defer { store.close() }
    XCTAssertEqual(try store.info()["coreData"]?.objectValue?["warnings"], [])
    let task = try store.get(id: "Task/2", toMany: .ids)
    XCTAssertEqual(task["done"], false)
    XCTAssertEqual(task["priority"], 2)
    XCTAssertEqual(task["taskID"], "12345678-9ABC-DEF0-0123-456789ABCDEF")
    XCTAssertEqual(task["parentList"], "List/1")
    XCTAssertEqual(task["attachment"], .string(Base64.encode(Array("external bytes".utf8))))
    XCTAssertEqual(task["tags"], ids("Tag/1", "Tag/2"), "ordered by Z_FOK_6TAGS")
    XCTAssertEqual(try store.get(id: "Task/3", toMany: .ids)["tags"], ids("Tag/2"))
    XCTAssertEqual(try store.get(id: "List/1", toMany: .ids)["items"], ids("Task/2", "Task/3"), "ordered by Z_FOK_PARENTLIST")
    XCTAssertEqual(try store.get(id: "Category/1", toMany: .ids)["items"], ids("Note/1", "Task/3"))
    XCTAssertEqual(try store.get(id: "Tag/2", toMany: .ids)["items"], ids("Task/2", "Task/3"))
    XCTAssertEqual(try store.idsWhere("Item", "parentList.name == 'Today' AND done == YES"), ["Task/3"])
  }

  func testImportWithTheModelMatchesTheInPlaceView() throws {
    let (path, model) = try fixture()
    let source = try Store.openCoreData(path: path, model: model)
    defer { source.close() }
    let target = try Store(path: nil)
    let summary = try target.importCoreData(path: path, model: model)
    XCTAssertEqual(summary.counts.map { "\($0.entity)=\($0.count)" }, ["Category=2", "Item=0", "List=1", "Note=1", "Tag=2", "Task=3"])
    XCTAssertEqual(summary.links.map { "\($0.relationship)=\($0.count)" }, ["Item.tags=3"])
    XCTAssertEqual(target.schema?.versionHash, source.schema?.versionHash)
    for name in ["Category", "Item", "List", "Tag"] {
      XCTAssertEqual(try target.fetch(FetchRequest(entity: name)), try source.fetch(FetchRequest(entity: name)), name)
    }
    XCTAssertEqual(try target.check()["ok"], true)
  }

  func testAModelWithOtherEntitiesIsRefused() throws {
    let (path, _) = try fixture()
    let other = NSTemporaryDirectory() + "coredata-other-" + UUID().uuidString + ".xcdatamodel"
    try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: other) }
    try Data(Self.contents.replacingOccurrences(of: "\"Tag\"", with: "\"Label\"").utf8).write(to: URL(fileURLWithPath: other + "/contents"))
    let e = expectStoreError(.invalidModel) { try Store.openCoreData(path: path, model: other) }
    XCTAssertTrue(e?.message.contains("has exactly the store's entities") ?? false, e?.message ?? "")
  }
}

extension CoreDataModelMappingTests {
  func testARequiredAttributeWithoutAValueFailsTheImport() throws {
    let (path, model) = try fixture()
    // Category.color is optional in the fixture model; make it required: Work (Z_PK 2) has none.
    try Data(Self.contents.replacingOccurrences(of: "<attribute name=\"color\" optional=\"YES\"", with: "<attribute name=\"color\"").utf8)
      .write(to: URL(fileURLWithPath: model + "/contents"))
    let target = try Store(path: nil)
    let e = expectStoreError(.validation) { try target.importCoreData(path: path, model: model) }
    XCTAssertEqual(e?.details["zpk"], 2)
    XCTAssertEqual(e?.details["attribute"], "color")
    XCTAssertNil(target.schema)
  }
}
