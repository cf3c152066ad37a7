import Foundation
import JSONCore
import SchemaModel
import XCTest

@testable import CoreDataTooling

/// The order of a bundle's versions (issue #16, cause 6): by version number within a name
/// family, the current version's family last (an app renamed), or as given.
final class VersionOrderTests: XCTestCase {
  /// `a < b < c (confidence)`, from the names in a random order.
  private func order(_ names: [String], current: String?) -> String {
    let (ordered, how) = VersionOrder.byNames(names.shuffled(), current: current)
    return ordered.joined(separator: " < ") + " (\(how.confidence.rawValue))"
  }

  private func expected(_ names: [String], _ confidence: VersionOrder.Confidence) -> String {
    names.joined(separator: " < ") + " (\(confidence.rawValue))"
  }

  func testNamesParseIntoFamilyAndNumber() {
    let parsed = [
      "xdrip v12", "ArtsyFolio v2.5.1", "ArtsyPartner", "Model 10", "1.9", "SampleModel3_v2", "CDEEventStoreModel_0", "Modelv4",
    ]
    .map { VersionOrder.parse($0) }
    XCTAssertEqual(
      parsed.map(\.family), ["xdrip", "ArtsyFolio", "ArtsyPartner", "Model", "", "SampleModel3", "CDEEventStoreModel", "Modelv"])
    XCTAssertEqual(parsed.map(\.number), [[12], [2, 5, 1], [], [10], [1, 9], [2], [0], [4]])
  }

  func testOneFamilyGoesByNumber() {
    XCTAssertEqual(
      order(["Model", "Model 2", "Model 10", "Model 9"], current: "Model 10"), expected(["Model", "Model 2", "Model 9", "Model 10"], .high))
    XCTAssertEqual(order(["Model", "Modelv4"], current: "Modelv4"), expected(["Model", "Modelv4"], .high))
    XCTAssertEqual(order(["M 2", "M"], current: nil), expected(["M", "M 2"], .high))
  }

  /// An app renamed: its new family numbers again, and name order would put it first.
  func testTheCurrentVersionsFamilyIsTheNewest() {
    let names = [
      "ArtsyPartner", "ArtsyPartner 2", "ArtsyPartner 5", "ArtsyFolio v1.4", "ArtsyFolio v2.5", "ArtsyFolio v2.5.1", "ArtsyFolio v2.7.0",
    ]
    XCTAssertEqual(order(names, current: "ArtsyFolio v2.7.0"), expected(names, .medium))
    XCTAssertEqual(
      order(["0.5", "0.6.10", "0.6.7", "Shared", "0.9"], current: "0.9"), expected(["Shared", "0.5", "0.6.7", "0.6.10", "0.9"], .medium))
    XCTAssertTrue(order(["A 2", "B 1", "C 3"], current: "B 1").hasSuffix("(low)"), "three families")
  }

  /// A current version that is not the newest of its family is kept where its number puts it, with low confidence.
  func testACurrentVersionThatIsNotTheNewestIsLowConfidence() {
    XCTAssertEqual(order(["Model", "Model 2", "Model 3"], current: "Model 2"), expected(["Model", "Model 2", "Model 3"], .low))
  }

  private func bundle(_ versions: [String], current: String?) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("order-\(UUID().uuidString)/Notes.xcdatamodeld")
    addTeardownBlock { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
    for (k, name) in versions.enumerated() {
      let v = dir.appendingPathComponent("\(name).xcdatamodel")
      try FileManager.default.createDirectory(at: v, withIntermediateDirectories: true)
      // Each version renames the text attribute, identified by its first name.
      let attribute =
        k == 0
        ? "<attribute name=\"text0\" optional=\"YES\" attributeType=\"String\"/>"
        : "<attribute name=\"text\(k)\" optional=\"YES\" attributeType=\"String\" elementID=\"text0\"/>"
      try "<model><entity name=\"Note\">\(attribute)</entity></model>".write(
        to: v.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    }
    if let current {
      try "<plist><dict><key>_XCCurrentVersionName</key><string>\(current).xcdatamodel</string></dict></plist>".write(
        to: dir.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
    }
    return dir.path
  }

  /// A renamed app's bundle imports in its real order (reported, with a warning), so each
  /// version's originalName is its real predecessor's name; a given order is used as it is.
  func testABundleIsReadInOrderAndOriginalNamesFollowIt() throws {
    let path = try bundle(["Notes", "Notes 2", "Jotter v1.0", "Jotter v1.1"], current: "Jotter v1.1")
    let model = try CoreDataModelImporter.importModel(at: path)
    XCTAssertEqual(model.versions.map(\.name), ["Notes", "Notes 2", "Jotter v1.0", "Jotter v1.1"])
    XCTAssertEqual(model.order.confidence, .medium)
    XCTAssertEqual(model.issues.map(\.code), ["versionOrder"])
    XCTAssertEqual(
      model.issues[0].message,
      "versions ordered 'Notes' < 'Notes 2' < 'Jotter v1.0' < 'Jotter v1.1' (medium confidence: two name families ('Notes', 'Jotter'): "
        + "the current version's family is taken as the newer one (an app renamed), each by version number); give the order "
        + "(versionOrder, --version-order) if it is wrong")
    XCTAssertEqual(model.versions.map { $0.schema?.entities[0].attributes[0].originalName }, [nil, "text0", "text1", "text2"])
    XCTAssertEqual(model.json["order"]?["rule"], "names")

    let given = try CoreDataModelImporter.importModel(
      at: path, versionOrder: ["Notes", "Jotter v1.0", "Notes 2", "Jotter v1.1.xcdatamodel"])
    XCTAssertEqual(given.versions.map(\.name), ["Notes", "Jotter v1.0", "Notes 2", "Jotter v1.1"])
    XCTAssertEqual(given.order, VersionOrder(rule: .given, confidence: .high, reason: "given"))
    XCTAssertEqual(given.issues, [])
    XCTAssertEqual(given.versions.map { $0.schema?.entities[0].attributes[0].originalName }, [nil, "text0", "text2", "text1"])
  }

  func testAGivenOrderMustNameEveryVersionOnce() throws {
    let path = try bundle(["Notes", "Notes 2"], current: "Notes 2")
    XCTAssertThrowsError(try CoreDataModelImporter.importModel(at: path, versionOrder: ["Notes 2", "Notes 2", "Notes 3"])) { e in
      let error = e as? ToolingError
      XCTAssertEqual(error?.kind, .invalidArgument)
      XCTAssertEqual(error?.argument, "versionOrder")
      XCTAssertEqual(
        error?.message,
        "the version order names no version 'Notes 3', repeats 'Notes 2', leaves out 'Notes'; give every version of '\(path)' once: 'Notes', 'Notes 2'"
      )
    }
  }
}
