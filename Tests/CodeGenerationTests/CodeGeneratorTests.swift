import CoreDataTooling
import Foundation
import JSONCore
import SchemaModel
import TestSupport
import XCTest

@testable import CodeGeneration

/// Generated code: its content, determinism, and that the toolchains accept it (swiftc
/// -parse, tsc --noEmit, python3 -m py_compile), each check skipped when the tool is absent.
final class CodeGeneratorTests: XCTestCase {
  static func tool(_ candidates: [String]) -> String? { candidates.first { FileManager.default.isExecutableFile(atPath: $0) } }
  static let swiftc = tool(["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"])
  static let tsc = tool(["/usr/bin/tsc", "/usr/local/bin/tsc"])
  static let python = tool(["/usr/bin/python3", "/usr/local/bin/python3"])

  /// Writes the files to a fresh directory and runs `command` with their paths; returns
  /// the failure output, or nil when it succeeded.
  static func check(_ files: [CodeGenerator.File], _ command: [String], numbered: Bool = false) throws -> String? {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ms-gen-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var paths: [String] = []
    for (k, f) in files.enumerated() {
      // Files of many models may share names (swiftc refuses two of one name): number them.
      let url = dir.appendingPathComponent(numbered ? "m\(k)_\(f.name)" : f.name)
      try f.text.write(to: url, atomically: true, encoding: .utf8)
      paths.append(url.path)
    }
    let (status, output) = try run(command[0], Array(command.dropFirst()) + paths, in: dir)
    return status == 0 ? nil : output
  }

  /// Runs `tool` in `dir`: its exit status and its output (stdout and stderr together).
  static func run(_ tool: String, _ arguments: [String], in dir: URL) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.currentDirectoryURL = dir
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }

  private func generate(_ path: String, _ target: CodeGenerator.Target) throws -> [CodeGenerator.File] {
    try CoreDataModelImporter.importModel(at: path).generate(target).files
  }

  func testSwiftDataClasses() throws {
    let files = try generate(CoreDataModelFixtures.features, .swiftdata)
    XCTAssertEqual(files.map(\.name), ["Item.swift", "Document.swift", "Page.swift", "Person.swift"])
    let item = files[0].text
    XCTAssertTrue(item.contains("@available(iOS 26, macOS 26, tvOS 26, watchOS 26, visionOS 26, *)\n@Model\nclass Item {"), item)
    let doc = files[1].text
    XCTAssertTrue(doc.contains("final class Document: Item {"), doc)
    XCTAssertTrue(doc.contains("#Index<Document>([\\.title])"), doc)
    XCTAssertTrue(doc.contains("@Attribute(.externalStorage)\n  var blob: Data? = nil"), doc)
    XCTAssertTrue(doc.contains("var price: Decimal? = Decimal(string: \"9.9\")!"), doc)
    XCTAssertTrue(
      doc.contains("@Attribute(.transformable(by: \"NSSecureUnarchiveFromDataTransformer\"))\n  var tags: [String]? = nil"), doc)
    XCTAssertTrue(doc.contains("@Transient\n  var scratch: String? = nil"), doc)
    XCTAssertTrue(
      doc.contains("@Relationship(deleteRule: .cascade, minimumModelCount: 1, maximumModelCount: 50, inverse: \\Page.document)"), doc)
    XCTAssertTrue(doc.contains("@Relationship(deleteRule: .deny)\n  var owner: Person?"), doc)
    XCTAssertTrue(doc.contains("super.init(createdAt: createdAt, uuid: uuid)"), doc)
    let person = files[3].text
    XCTAssertFalse(person.contains("#Unique"), "single-key uniqueness is an attribute option (SwiftData 17): \(person)")
    XCTAssertTrue(person.contains("@Attribute(.unique)\n  var email: String? = nil"), person)
    XCTAssertTrue(
      person.contains("@Relationship(deleteRule: .nullify, inverse: \\Document.owner)\n  var documents: [Document]? = []"),
      "the model is used with CloudKit: \(person)")
    XCTAssertFalse(files[2].text.contains("inverse:"), "the inverse is named on one side only")
    XCTAssertEqual(try generate(CoreDataModelFixtures.features, .swiftdata), files, "deterministic")
    guard let swiftc = Self.swiftc else { throw XCTSkip("swiftc not found") }
    if let failure = try Self.check(files, [swiftc, "-parse"]) { XCTFail(failure) }
    XCTAssertEqual(try SwiftDataTypeChecker.check([.init(name: "Features", files: files)]).failures, [:])
  }

  func testVersionedSchemasAndMigrationPlan() throws {
    let files = try generate(CoreDataModelFixtures.tasksBundle, .swiftdata)
    XCTAssertEqual(files.map(\.name), ["TasksSchemaV1.swift", "TasksSchemaV2.swift", "TasksSchemaV3.swift", "TasksMigrationPlan.swift"])
    XCTAssertTrue(files[2].text.contains("enum TasksSchemaV3: VersionedSchema {"))
    XCTAssertTrue(files[2].text.contains("Schema.Version(3, 0, 0)"))
    XCTAssertTrue(files[2].text.contains("@Attribute(originalName: \"done\")\n    var isDone: Bool = false"), files[2].text)
    XCTAssertTrue(files[3].text.contains(".lightweight(fromVersion: TasksSchemaV1.self, toVersion: TasksSchemaV2.self),\n"), files[3].text)
    XCTAssertTrue(
      files[3].text.contains(
        "      // make (name) unique for CDCategory (requires: no two CDCategory objects share name)\n"
          + "      .custom(fromVersion: TasksSchemaV2.self, toVersion: TasksSchemaV3.self, willMigrate: nil, didMigrate: nil),\n"),
      "a new uniqueness constraint needs the data de-duplicated first: \(files[3].text)")
    guard let swiftc = Self.swiftc else { throw XCTSkip("swiftc not found") }
    if let failure = try Self.check(files, [swiftc, "-parse"]) { XCTFail(failure) }
    XCTAssertEqual(try SwiftDataTypeChecker.check([.init(name: "Tasks", files: files)]).failures, [:])
  }

  func testCoreDataClasses() throws {
    let files = try generate(CoreDataModelFixtures.features, .coredata)
    XCTAssertEqual(files.map(\.name), ["Item.swift", "DocumentMO.swift", "Page.swift", "Person.swift"])
    let doc = files[1].text
    XCTAssertTrue(doc.contains("@objc(DocumentMO)\npublic class DocumentMO: Item {"), doc)
    XCTAssertTrue(doc.contains("@NSManaged public var title: String\n"), doc)
    XCTAssertTrue(doc.contains("@NSManaged public var pages: Int32\n"), doc)
    XCTAssertTrue(doc.contains("@NSManaged public var size: NSNumber?\n"), doc)
    XCTAssertTrue(doc.contains("@NSManaged public var price: NSDecimalNumber?\n"), doc)
    XCTAssertTrue(doc.contains("@NSManaged public var pagesList: NSOrderedSet?\n"), doc)
    XCTAssertTrue(doc.contains("@NSManaged public var owner: Person\n"), doc)
    XCTAssertTrue(doc.contains("@objc(insertObject:inPagesListAtIndex:)"), doc)
    guard let swiftc = Self.swiftc else { throw XCTSkip("swiftc not found") }
    if let failure = try Self.check(files, [swiftc, "-parse"]) { XCTFail(failure) }
  }

  func testTypeScriptTypes() throws {
    let files = try generate(CoreDataModelFixtures.features, .typescript)
    XCTAssertEqual(files.map(\.name), ["models.ts"])
    let text = files[0].text
    XCTAssertTrue(text.contains("export interface Document extends Item {\n  _entity: \"Document\";"), text)
    XCTAssertTrue(text.contains("export interface DocumentValues {\n  createdAt?: Date;"), text)
    XCTAssertTrue(text.contains("  owner: ObjectId;\n}"), text)
    XCTAssertFalse(text.contains("ItemValues"), "an abstract entity cannot be inserted")
    XCTAssertTrue(text.contains("  Item: { object: Item; values: never; "), text)
    XCTAssertTrue(text.contains("  Document: { object: Document; values: DocumentValues; toMany: "), text)
    XCTAssertTrue(text.contains("    \"Document\": { attributes: { \"createdAt\": \"date\""), text)
    XCTAssertFalse(text.contains("    \"Item\": {"), "objects carry their concrete entity: no conversions for an abstract one")
    guard let tsc = Self.tsc else { throw XCTSkip("tsc not found") }
    if let failure = try Self.check(files, [tsc, "--noEmit", "--strict"]) { XCTFail(failure) }
  }

  func testPythonTypes() throws {
    let files = try generate(CoreDataModelFixtures.features, .python)
    XCTAssertEqual(files.map(\.name), ["models.py"])
    XCTAssertTrue(files[0].text.contains("class Document(Item):"))
    XCTAssertTrue(
      files[0].text.contains(
        "class _DocumentRequiredValues(TypedDict):\n    \"\"\"The keys an insert of `Document` must give.\"\"\"\n\n    title: str\n    owner: ObjectId\n"
      ))
    let text = files[0].text
    XCTAssertTrue(text.contains("DocumentEntity: Insertable[Document, DocumentValues, DocumentUpdate] = Insertable(\"Document\")"), text)
    XCTAssertTrue(text.contains("ItemEntity: Entity[Item] = Entity(\"Item\")"), "an abstract entity gets a read-only descriptor")
    XCTAssertTrue(text.contains("class DocumentUpdate(TypedDict, total=False):"), text)
    XCTAssertTrue(text.contains("    createdAt: _DateTime\n"), "dates come back as datetime")
    guard let python = Self.python else { throw XCTSkip("python3 not found") }
    if let failure = try Self.check(files, [python, "-m", "py_compile"]) { XCTFail(failure) }
  }

  func testPythonDerivedNamesNeverCollide() throws {
    let schema: JSONValue = [
      "entities": [["name": "Task", "attributes": [["name": "a", "type": "string"]]], ["name": "TaskEntity", "attributes": []]]
    ]
    let text = try ImportedModel.fromSchema(schema).generate(.python).files[0].text
    XCTAssertTrue(text.contains("class TaskEntity(TypedDict):"), text)
    XCTAssertTrue(text.contains("TaskEntity_: Insertable[Task, TaskValues, TaskUpdate] = Insertable(\"Task\")"), text)
    XCTAssertTrue(text.contains("TaskEntityEntity: Insertable[TaskEntity,"), text)
  }

  func testPythonKeywordKeysUseTheFunctionalForm() throws {
    let schema: JSONValue = [
      "entities": [
        ["name": "Trip", "attributes": [["name": "from", "type": "string"], ["name": "to", "type": "string", "optional": true]]]
      ]
    ]
    let files = try ImportedModel.fromSchema(schema).generate(.python).files
    XCTAssertTrue(
      files[0].text.contains("Trip = TypedDict(\"Trip\", {\"_id\": ObjectId, \"_entity\": str, \"from\": str, \"to\": Optional[str]})"),
      files[0].text)
    XCTAssertTrue(
      files[0].text.contains("TripValues = TypedDict(\"TripValues\", {\"from\": str, \"to\": NotRequired[Optional[str]]})"), files[0].text)
    guard let python = Self.python else { throw XCTSkip("python3 not found") }
    if let failure = try Self.check(files, [python, "-m", "py_compile"]) { XCTFail(failure) }
  }

  func testInvalidSchemaIsRefused() throws {
    let model = ImportedModel.fromSchema(["entities": [["name": "lower"]]])
    XCTAssertThrowsError(try model.generate(.swiftdata)) { e in
      XCTAssertEqual((e as? ToolingError)?.kind, .invalidModel)
    }
  }
}
