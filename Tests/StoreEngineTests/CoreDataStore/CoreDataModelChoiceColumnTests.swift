import CoreDataTooling
import Foundation
import JSONCore
import XCTest

@testable import StoreEngine

/// What the store's tables tell about its model version beyond column names (issue #16,
/// cause 6), each from a bundle of two small versions and a store `CoreDataStoreWriter`
/// writes for one of them: declared column types, join tables, columns of derived
/// attributes, and a column counted in its own table.
final class CoreDataModelChoiceColumnTests: XCTestCase {
  private func model(_ entities: String) -> String {
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\">\n\(entities)\n</model>"
  }

  /// The version read for a store written for `written` of the bundle `versions`
  /// (the last one current): `{name, confidence, reason}`.
  private func choice(_ versions: [(String, String)], written: String) throws -> JSONObject {
    let dir = NSTemporaryDirectory() + "choice-columns-" + UUID().uuidString
    addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    let bundle = dir + "/Model.xcdatamodeld"
    for (name, body) in versions {
      try FileManager.default.createDirectory(atPath: bundle + "/\(name).xcdatamodel", withIntermediateDirectories: true)
      try Data(model(body).utf8).write(to: URL(fileURLWithPath: bundle + "/\(name).xcdatamodel/contents"))
    }
    try Data("<plist><dict><key>_XCCurrentVersionName</key><string>\(versions.last!.0).xcdatamodel</string></dict></plist>".utf8)
      .write(to: URL(fileURLWithPath: bundle + "/.xccurrentversion"))
    let body = versions.first { $0.0 == written }!.1
    _ = try CoreDataStoreWriter(xml: Array(model(body).utf8)).write(dir + "/Model.sqlite")
    let store = try Store.openCoreData(path: dir + "/Model.sqlite", model: bundle)
    defer { store.close() }
    return try XCTUnwrap(store.info()["coreData"]?["modelVersion"]?.objectValue)
  }

  /// An attribute that changed type keeps its column name; the column's declared type says
  /// which version wrote it (tuist's UsersAutoDetect: Integer 64, String, Integer 64).
  func testTheDeclaredColumnTypeTellsVersionsApart() throws {
    let number = "<entity name=\"User\"><attribute name=\"identifier\" optional=\"YES\" attributeType=\"Integer 64\"/></entity>"
    let text = "<entity name=\"User\"><attribute name=\"identifier\" optional=\"YES\" attributeType=\"String\"/></entity>"
    let versions = [("1", number), ("2", text), ("3", number)]
    let two = try choice(versions, written: "2")
    XCTAssertEqual(two["name"], "2")
    XCTAssertEqual(two["confidence"], "high")
    XCTAssertEqual(
      two["reason"],
      "3 versions fit equally ('1', '2', '3') but read different columns: every property has its column and every column its property; only '2' reads every column as the type the store declares it with"
    )
    let one = try choice(versions, written: "1")
    XCTAssertEqual(one["name"], "3", "1 and 3 are alike: the current one")
    XCTAssertEqual(one["confidence"], "high")
    XCTAssertEqual(
      one["reason"],
      "3 versions fit equally ('1', '2', '3') but read different columns: every property has its column and every column its property; '1', '3' read every column as the type the store declares it with, and those read the same columns; the current version of them is used"
    )
  }

  /// A many-to-many added in a version brings a join table: a version without it leaves that
  /// table unread (mastodon's CoreData 3 and 4).
  func testAnUnreadJoinTableCounts() throws {
    let plain = "<entity name=\"User\"><attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/></entity>"
    let follows = """
      <entity name="User">
          <attribute name="name" optional="YES" attributeType="String"/>
          <relationship name="following" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="followers" inverseEntity="User"/>
          <relationship name="followers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="following" inverseEntity="User"/>
      </entity>
      """
    let chosen = try choice([("A", follows), ("B", plain)], written: "A")
    XCTAssertEqual(chosen["name"], "A")
    XCTAssertEqual(chosen["confidence"], "high")
    XCTAssertEqual(chosen["candidates"]?.arrayValue?.last?["unmapped"], 1)
  }

  /// Core Data stores a derived attribute's value; its column belongs to the version that
  /// declares it, though the schema leaves the attribute out (Aidoku's chapterCount).
  func testADerivedAttributesColumnIsTheModels() throws {
    let derived = """
      <entity name="Tag">
          <attribute name="name" optional="YES" attributeType="String"/>
          <attribute name="nameLength" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="name.length"/>
      </entity>
      """
    let plain = "<entity name=\"Tag\"><attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/></entity>"
    let chosen = try choice([("A", derived), ("B", plain)], written: "A")
    XCTAssertEqual(chosen["name"], "A")
    XCTAssertEqual(chosen["confidence"], "high")
    XCTAssertEqual(
      chosen["reason"],
      "the only version that fits best: every property has its column and every column its property (the next best misses 1)")
  }

  /// An attribute removed from one entity while another keeps one of that name: the column
  /// left in the first entity's table is unmapped there (Wikipedia 3 and 4).
  func testAColumnCountsInItsOwnTable() throws {
    let both = """
      <entity name="Group"><attribute name="content" optional="YES" attributeType="Binary"/></entity>
      <entity name="Item"><attribute name="content" optional="YES" attributeType="Binary"/></entity>
      """
    let oneOnly =
      "<entity name=\"Group\"/>\n<entity name=\"Item\"><attribute name=\"content\" optional=\"YES\" attributeType=\"Binary\"/></entity>"
    let chosen = try choice([("A", both), ("B", oneOnly)], written: "A")
    XCTAssertEqual(chosen["name"], "A")
    XCTAssertEqual(chosen["confidence"], "high")
    XCTAssertEqual(chosen["candidates"]?.arrayValue?.last?["unmapped"], 1)
  }
}
