import JSONCore
import SchemaModel
import TestSupport
import XCTest

@testable import CoreDataTooling

/// Importing Core Data models: the mapping of every element, the findings with their
/// places, bundles and their current version, and models that cannot be read.
final class CoreDataModelImportTests: XCTestCase {
  func testBundleVersionsCurrentAndRename() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.tasksBundle)
    XCTAssertEqual(model.kind, .bundle)
    XCTAssertEqual(model.versions.map(\.name), ["Tasks", "Tasks 2", "Tasks 3"])
    XCTAssertEqual(model.current?.name, "Tasks 3")
    XCTAssertTrue(model.ok)
    XCTAssertEqual(model.allErrors, [])
    XCTAssertTrue(model.versions[2].file.hasSuffix("Tasks.xcdatamodeld/Tasks 3.xcdatamodel/contents"))
    XCTAssertEqual(model.versions.map { $0.schema?.version }, ["Tasks", "2", "3"], "userDefinedModelVersionIdentifier, else the name")
    let v3 = try XCTUnwrap(model.current?.schema)
    let task = try XCTUnwrap(v3.entity(named: "CDTask"))
    let isDone = try XCTUnwrap(task.attributes.first { $0.name == "isDone" })
    XCTAssertEqual(isDone.originalName, "done")
    XCTAssertEqual(isDone.type, .bool)
    XCTAssertFalse(isDone.optional)
    XCTAssertEqual(isDone.defaultValue, .literal(.bool(false)))
    XCTAssertEqual(task.attributes.first { $0.name == "date" }?.defaultValue, .literal(.string("2001-01-01T00:00:00.000Z")))
    XCTAssertEqual(task.attributes.first { $0.name == "priority" }?.type, .int16)
    XCTAssertEqual(task.indexes, [["priority", "date"]])
    let category = try XCTUnwrap(v3.entity(named: "CDCategory"))
    XCTAssertEqual(category.uniqueness, [["name"]])
    XCTAssertEqual(
      category.relationships,
      [Relationship(name: "tasks", destination: "CDTask", inverse: "category", toMany: true, optional: true, deleteRule: .cascade)])
    XCTAssertEqual(task.relationships.first?.deleteRule, .nullify)
    XCTAssertTrue(model.versions[2].details.scalarAttributes.contains("CDTask.priority"))
  }

  func testEveryAttributeTypeAndFeature() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.features)
    XCTAssertEqual(model.kind, .model)
    let version = try XCTUnwrap(model.current)
    XCTAssertEqual(version.name, "Features")
    XCTAssertEqual(version.errors, [])
    XCTAssertTrue(version.details.usedWithCloudKit)
    XCTAssertEqual(version.details.versionIdentifier, "7")
    XCTAssertEqual(version.details.configurations.map(\.name), ["Cloud", "Local"])
    XCTAssertEqual(version.details.configurations.map(\.entities), [["Document", "Page"], ["Person"]])
    XCTAssertEqual(version.details.classNames, ["Document": ".DocumentMO"])
    XCTAssertEqual(version.details.externalStorage, ["Document.blob"])
    let schema = try XCTUnwrap(version.schema)
    XCTAssertEqual(SchemaValidator.validate(schema).filter { $0.severity == .error }, [])
    let item = try XCTUnwrap(schema.entity(named: "Item"))
    XCTAssertTrue(item.abstract)
    XCTAssertEqual(item.attributes.map(\.type), [.date, .uuid])
    XCTAssertEqual(item.attributes[0].defaultValue, .literal(.string("2023-03-08T20:26:40.000Z")))
    let doc = try XCTUnwrap(schema.entity(named: "Document"))
    XCTAssertEqual(doc.parent, "Item")
    XCTAssertEqual(
      doc.attributes.map { "\($0.name):\($0.type.rawValue):\($0.optional)" },
      [
        "title:string:false", "pages:int32:false", "size:int64:true", "price:decimal:true", "ratio:double:false", "score:float:false",
        "link:url:true", "blob:data:true", "tags:data:true", "scratch:string:true",
      ], "the derived attribute is left out")
    XCTAssertEqual(doc.attributes.first { $0.name == "price" }?.defaultValue, .literal(.string("9.9")))
    XCTAssertEqual(doc.attributes.first { $0.name == "score" }?.defaultValue, .literal(.double(1)))
    XCTAssertTrue(doc.attributes.first { $0.name == "scratch" }!.transient)
    XCTAssertEqual(doc.indexes, [["title"]])
    let pages = try XCTUnwrap(doc.relationships.first { $0.name == "pagesList" })
    XCTAssertEqual(
      pages,
      Relationship(
        name: "pagesList", destination: "Page", inverse: "document", toMany: true, optional: true, ordered: true, deleteRule: .cascade,
        minCount: 1, maxCount: 50))
    let owner = try XCTUnwrap(doc.relationships.first { $0.name == "owner" })
    XCTAssertFalse(owner.optional, "absent optional means required")
    XCTAssertEqual(owner.deleteRule, .deny)
    let person = try XCTUnwrap(schema.entity(named: "Person"))
    XCTAssertEqual(person.attributes[0].defaultValue, .literal(.string("A & B \u{2014} ©")))
    XCTAssertEqual(person.relationships.first { $0.name == "bookmarks" }?.deleteRule, .noAction)
    XCTAssertEqual(person.uniqueness, [["email"]])

    // Every feature ModelStore cannot express is a warning at its element.
    let codes = version.warnings.map { "\($0.code)@\($0.line ?? 0):\($0.entity ?? "-").\($0.property ?? "-")" }
    XCTAssertEqual(
      codes,
      [
        "userInfo@7:Item.-", "customClass@11:Document.-", "validationRule@12:Document.title", "validationRule@12:Document.title",
        "validationRule@12:Document.title", "externalStorage@19:Document.blob", "transformable@20:Document.tags",
        "derivedAttribute@21:Document.titleUpper", "fetchedProperty@25:Document.recentPages", "indexOrder@29:Document.title",
        "fetchRequestTemplate@48:Document.-", "configuration@49:-.-", "configuration@53:-.-", "missingInverse@41:Person.bookmarks",
      ])
    XCTAssertTrue(version.warnings.allSatisfy { $0.file.hasSuffix("Features.xcdatamodel/contents") })
  }

  func testXcode3BinaryModelIsUnsupportedWithReason() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.legacy)
    XCTAssertFalse(model.ok)
    let version = try XCTUnwrap(model.current)
    XCTAssertNil(version.schema)
    XCTAssertEqual(version.unsupportedReason?.hasPrefix("an Xcode 3 model"), true)
    XCTAssertEqual(version.errors.map(\.code), ["unsupportedFormat"])
    XCTAssertTrue(version.file.hasSuffix("Legacy.xcdatamodel/elements"))
  }

  func testMissingPathAndNonModelDirectory() {
    XCTAssertThrowsError(try CoreDataModelImporter.importModel(at: "/no/such/Model.xcdatamodeld")) { e in
      XCTAssertEqual((e as? ToolingError)?.kind, .notFound)
    }
    XCTAssertThrowsError(try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.directory + "/..")) { e in
      XCTAssertEqual((e as? ToolingError)?.kind, .invalidArgument)
    }
  }

  func testContentsFileDirectly() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.tasksBundle + "/Tasks 2.xcdatamodel/contents")
    XCTAssertEqual(model.kind, .model)
    XCTAssertEqual(model.current?.name, "Tasks 2")
    XCTAssertEqual(model.current?.schema?.entities.map(\.name), ["CDCategory", "CDTask"])
  }

  private func inline(_ body: String, _ modelAttributes: String = "") -> ImportedModelVersion {
    let xml = "<?xml version=\"1.0\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\"\(modelAttributes)>\n\(body)\n</model>"
    return CoreDataModelImporter.importContents(Array(xml.utf8)).versions[0]
  }

  func testMalformedXMLIsAnErrorWithItsPlace() {
    let v = inline("<entity name=\"A\">\n  <attribute name=\"x\" attributeType=\"String\">\n</entity>")
    XCTAssertNil(v.schema)
    XCTAssertEqual(v.errors.map { "\($0.code)@\($0.line!):\($0.column!)" }, ["malformedXML@5:1"])
    XCTAssertEqual(v.errors.first?.message, "end tag </entity> does not match <attribute> opened at 4:3")
  }

  func testNamesModelStoreRejectsAreErrorsAtTheirElement() {
    let v = inline(
      """
      <entity name="task">
          <attribute name="Title" attributeType="String"/>
          <attribute name="description" optional="YES" attributeType="String"/>
      </entity>
      """)
    XCTAssertNil(v.schema)
    XCTAssertEqual(
      v.errors.map { "\($0.code)@\($0.line!):\($0.entity!).\($0.property ?? "-")" },
      ["invalidName@3:task.-", "invalidName@4:task.Title", "invalidName@5:task.description"])
    XCTAssertNotNil(v.readSchema, "the schema as read is kept for the audit")
  }

  func testUnknownTypesRulesAndAttributesAreReported() {
    let v = inline(
      """
      <entity name="A" colour="red">
          <attribute name="a" attributeType="Quaternion"/>
          <attribute name="b" attributeType="ObjectID"/>
          <attribute name="c" transient="YES" optional="YES" attributeType="Undefined"/>
          <attribute name="d" attributeType="Integer 16" defaultValueString="many"/>
          <attribute name="e" optional="maybe" attributeType="String"/>
          <attribute name="f" optional="YES" attributeType="Composite" composite="Address"/>
          <relationship name="r" optional="YES" maxCount="1" deletionRule="Explode" destinationEntity="A"/>
          <relationship name="s" optional="YES" maxCount="1" deletionRule="Nullify"/>
          <gadget/>
      </entity>
      <composite name="Address"><attribute name="street" attributeType="String"/></composite>
      """)
    XCTAssertEqual(
      v.issues.map { "\($0.severity.rawValue) \($0.code)@\($0.line!)" },
      [
        "warning unrecognized@3", "error unknownType@4", "error unsupportedType@5", "warning undefinedType@6", "warning badDefault@7",
        "warning badValue@8", "warning composite@9", "error unknownDeleteRule@10", "error missingDestination@11", "warning unrecognized@12",
        "warning compositeDefinition@14", "warning missingInverse@10",
      ])
    XCTAssertEqual(
      v.readSchema?.entities.first?.attributes.map { "\($0.name):\($0.type.rawValue)" }, ["c:json", "d:int16", "e:string", "f:json"])
  }

  func testEntityRenameIndexedToOneAndNumericBooleanDefault() throws {
    let v = inline(
      """
      <entity name="Owner" elementID="Person">
          <attribute name="active" attributeType="Boolean" defaultValueString="0.0"/>
          <relationship name="pets" optional="YES" toMany="YES" indexed="YES" deletionRule="Cascade" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>
      </entity>
      <entity name="Pet">
          <relationship name="owner" optional="YES" maxCount="1" indexed="YES" deletionRule="Nullify" destinationEntity="Owner" inverseName="pets" inverseEntity="Owner"/>
      </entity>
      """)
    let schema = try XCTUnwrap(v.schema)
    XCTAssertEqual(schema.entities[0].originalName, "Person")
    XCTAssertEqual(schema.entities[0].attributes[0].defaultValue, .literal(.bool(false)))
    XCTAssertEqual(schema.entities[1].indexes, [["owner"]])
    XCTAssertEqual(schema.entities[0].indexes, [])
    XCTAssertEqual(v.warnings.map { "\($0.code)@\($0.line!)" }, ["indexType@5"])
  }

  func testBundleWithoutCurrentVersionFileOrWithAMissingOne() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cdm-\(UUID().uuidString)/M.xcdatamodeld")
    defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
    for name in ["M", "M 2"] {
      let v = dir.appendingPathComponent("\(name).xcdatamodel")
      try FileManager.default.createDirectory(at: v, withIntermediateDirectories: true)
      try "<model><entity name=\"E\"/></model>".write(to: v.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    }
    var model = try CoreDataModelImporter.importModel(at: dir.path)
    XCTAssertEqual(model.current?.name, "M 2")
    XCTAssertEqual(model.issues.map(\.code), ["noCurrentVersion"])
    try "<plist><dict><key>_XCCurrentVersionName</key><string>M 9.xcdatamodel</string></dict></plist>".write(
      to: dir.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
    model = try CoreDataModelImporter.importModel(at: dir.path)
    XCTAssertNil(model.current)
    XCTAssertFalse(model.ok)
    XCTAssertEqual(model.issues.map(\.code), ["currentVersionMissing"])
    try "<plist><dict><key>_XCCurrentVersionName</key>".write(
      to: dir.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
    model = try CoreDataModelImporter.importModel(at: dir.path)
    XCTAssertEqual(model.issues.map { "\($0.code)@\($0.line!)" }, ["malformedPropertyList@1"])
  }

  func testJSONShape() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.tasksBundle)
    let json = model.json
    XCTAssertEqual(json["kind"], "bundle")
    XCTAssertEqual(json["current"], "Tasks 3")
    XCTAssertEqual(json["ok"], true)
    XCTAssertEqual(json["schema"], model.current?.schema?.json)
    XCTAssertEqual(json["versions"]?.arrayValue?.count, 3)
    XCTAssertEqual(json["versions"]?.arrayValue?[1]["versionIdentifier"], "2")
    XCTAssertEqual(json["warnings"], .array([]))
  }
}
