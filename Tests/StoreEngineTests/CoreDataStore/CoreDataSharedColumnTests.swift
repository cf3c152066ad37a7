import CoreDataTooling
import Foundation
import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Layouts the stores written for the corpus's models showed read wrong (issue #16), each
/// from a small model: sibling sub-entities with a to-one of the same name (two Core Data
/// columns, one ModelStore column), a to-many that is its own inverse (a join table with two
/// columns of one name), and in a ModelStore store the to-manys those shared to-ones are
/// the inverses of.
final class CoreDataSharedColumnTests: XCTestCase {
  /// `ChildA.owner` and `ChildB.owner` (siblings under the abstract `Parent`), the inverses of
  /// `Root.childrenA` and `Root.childrenB`: Core Data keeps them in ZOWNER and ZOWNER1 of
  /// ZPARENT.
  static let siblings = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Parent" isAbstract="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        <entity name="ChildA" parentEntity="Parent">
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Root" inverseName="childrenA" inverseEntity="Root"/>
        </entity>
        <entity name="ChildB" parentEntity="Parent">
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Root" inverseName="childrenB" inverseEntity="Root"/>
        </entity>
        <entity name="Root">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="childrenA" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="ChildA" inverseName="owner" inverseEntity="ChildA"/>
            <relationship name="childrenB" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="ChildB" inverseName="owner" inverseEntity="ChildB"/>
        </entity>
    </model>
    """

  /// `Person.friends` is its own inverse: Core Data's join table Z_1FRIENDS has Z_1FRIENDS and
  /// Z_1FRIENDS1, a row per direction, as ModelStore keeps a mirrored row.
  static let friends = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Person">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="friends" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>
        </entity>
    </model>
    """

  /// A temporary model directory holding `xml`, and a store the writer wrote for it.
  private func store(_ xml: String) throws -> (store: String, model: String, expected: CoreDataStoreWriter.Expected) {
    let dir = NSTemporaryDirectory() + "shared-columns-" + UUID().uuidString
    addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/Model.xcdatamodel", withIntermediateDirectories: true)
    try Data(xml.utf8).write(to: URL(fileURLWithPath: dir + "/Model.xcdatamodel/contents"))
    let expected = try CoreDataStoreWriter(xml: Array(xml.utf8)).write(dir + "/Model.sqlite")
    return (dir + "/Model.sqlite", dir + "/Model.xcdatamodel", expected)
  }

  /// The store opened in place with its model, and imported with it into a new store; both
  /// closed when the test ends.
  private func readers(_ path: String, _ model: String) throws -> (inPlace: Store, imported: Store) {
    let inPlace = try Store.openCoreData(path: path, model: model)
    addTeardownBlock { inPlace.close() }
    let imported = try Store(path: nil)
    addTeardownBlock { imported.close() }
    _ = try imported.importCoreData(path: path, model: model)
    return (inPlace, imported)
  }

  private func toMany(_ store: Store, _ id: String, _ name: String) throws -> [String] {
    try store.get(id: id, toMany: .ids)[name]?.arrayValue?.compactMap(\.stringValue) ?? []
  }

  func testSiblingToOnesOfOneNameReadTheirOwnColumns() throws {
    let (path, model, expected) = try store(Self.siblings)
    let c = try Connection(path: path)
    XCTAssertEqual(
      try CoreDataWrittenStoreTests.names(c, "SELECT name FROM pragma_table_info(?) WHERE name LIKE 'ZOWNER%'", "ZPARENT"),
      ["ZOWNER", "ZOWNER1"])
    c.close()
    let (inPlace, imported) = try readers(path, model)
    for store in [inPlace, imported] {
      XCTAssertEqual(try CoreDataWrittenStoreTests.links(store, expected), CoreDataWrittenStoreTests.lowered(expected.links))
      // ChildA/1 and ChildA/2 point at Root/1 and Root/2 (ZOWNER), ChildB/4 and /5 likewise (ZOWNER1).
      XCTAssertEqual(try store.get(id: "ChildB/4")["owner"], "Root/1")
      XCTAssertEqual(try toMany(store, "Root/1", "childrenA"), ["ChildA/1"])
      XCTAssertEqual(try toMany(store, "Root/1", "childrenB"), ["ChildB/4"])
      XCTAssertEqual(try store.idsWhere("Root", "ANY childrenB.name != nil"), ["Root/1", "Root/2"])
      XCTAssertEqual(try store.idsWhere("Root", "childrenA.@count == 1 AND childrenB.@count == 1"), ["Root/1", "Root/2"])
    }
  }

  /// The same shape in a ModelStore store: each to-many reads the rows of its own
  /// destination, not those a sibling's to-one of the same name points from.
  func testSharedInverseColumnKeepsToTheDestination() throws {
    let s = try makeStore(
      schema(
        entity("Parent", abstract: true, [attr("name", "string", optional: true)]),
        entity("ChildA", parent: "Parent", relationships: [rel("owner", "Root", inverse: "childrenA")]),
        entity("ChildB", parent: "Parent", relationships: [rel("owner", "Root", inverse: "childrenB")]),
        entity(
          "Root", [attr("name", "string", optional: true)],
          relationships: [
            rel("childrenA", "ChildA", inverse: "owner", toMany: true), rel("childrenB", "ChildB", inverse: "owner", toMany: true),
          ])))
    defer { s.close() }
    let root = try s.add("Root", ["name": "r"])
    let a = try s.add("ChildA", ["name": "a", "owner": .string(root)])
    let b = try s.add("ChildB", ["name": "b", "owner": .string(root)])
    XCTAssertEqual(try toMany(s, root, "childrenA"), [a])
    XCTAssertEqual(try toMany(s, root, "childrenB"), [b])
    var r = FetchRequest(entity: "Root")
    r.toMany = .ids
    XCTAssertEqual(try s.fetch(r).first?["childrenB"], ids(b))
    XCTAssertEqual(try s.idsWhere("Root", "ANY childrenA.name == 'b'"), [])
    XCTAssertEqual(try s.idsWhere("Root", "childrenA.@count == 1"), [root])
    _ = try s.update(id: root, values: ["childrenA": []])
    XCTAssertEqual(try s.get(id: b)["owner"], .string(root), "clearing childrenA leaves ChildB's owner")
    XCTAssertEqual(try toMany(s, root, "childrenB"), [b])
  }

  func testAToManyThatIsItsOwnInverseReadsBothColumns() throws {
    let (path, model, expected) = try store(Self.friends)
    let c = try Connection(path: path)
    XCTAssertEqual(
      try CoreDataWrittenStoreTests.names(c, "SELECT name FROM pragma_table_info(?)", "Z_1FRIENDS"), ["Z_1FRIENDS", "Z_1FRIENDS1"])
    c.close()
    let (inPlace, imported) = try readers(path, model)
    for store in [inPlace, imported] {
      XCTAssertEqual(try CoreDataWrittenStoreTests.links(store, expected), ["Person.friends": 6])
      XCTAssertEqual(try toMany(store, "Person/1", "friends"), ["Person/2", "Person/3"])
      XCTAssertEqual(try toMany(store, "Person/2", "friends"), ["Person/1", "Person/3"])
    }
    XCTAssertEqual(try imported.check()["ok"], true)
  }
}
