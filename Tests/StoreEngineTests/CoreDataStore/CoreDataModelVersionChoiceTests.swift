import Foundation
import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Which version of a bundle a store is read with, why, and with what confidence; a
/// version named by the caller; a version left out for its errors is reported, never
/// skipped silently (issue #16, cause 6).
final class CoreDataModelVersionChoiceTests: XCTestCase {
  /// Music 2 with a stored attribute of an unknown type: the version cannot be used.
  static let broken = MusicFixture.version(2).replacingOccurrences(
    of: "<attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/>\n        <attribute name=\"waveform\"",
    with: "<attribute name=\"title\" optional=\"YES\" attributeType=\"Quaternion\"/>\n        <attribute name=\"waveform\"")

  private func modelVersion(_ store: Store) throws -> JSONValue? { try store.info()["coreData"]?["modelVersion"] }

  func testTheVersionThatFitsIsChosenAndTheOthersAreListed() throws {
    XCTAssertNotEqual(Self.broken, MusicFixture.version(2))
    let (path, model) = try MusicFixture.makeBundle(
      self,
      versions: [
        ("Music", MusicFixture.version(1)), ("Music 2", MusicFixture.version(2)), ("Music 3", MusicFixture.version(3)),
        ("Music 4", Self.broken),
      ],
      current: "Music 3")
    let store = try Store.openCoreData(path: path, model: model)
    defer { store.close() }
    let chosen = try XCTUnwrap(try modelVersion(store))
    XCTAssertEqual(chosen["name"], "Music 2")
    XCTAssertEqual(chosen["confidence"], "high")
    XCTAssertEqual(
      chosen["reason"],
      "the only version that fits best: every property has its column and every column its property (the next best misses 1)")
    let candidates = try XCTUnwrap(chosen["candidates"]?.arrayValue)
    XCTAssertEqual(candidates.map { $0["name"] }, ["Music", "Music 2", "Music 3", "Music 4"])
    XCTAssertEqual(candidates[0]["entities"], false)
    XCTAssertEqual(candidates[2]["missing"], 1)
    XCTAssertEqual(candidates[3]["excluded"], "attribute 'Song.title' has unknown attributeType 'Quaternion' [unknownType]")
    XCTAssertEqual(
      try store.info()["coreData"]?["warnings"],
      [
        "model version 'Music 4' has the store's entities but was left out: attribute 'Song.title' has unknown attributeType 'Quaternion' [unknownType]"
      ])
    XCTAssertEqual(try store.count(FetchRequest(entity: "Song")), 3)

    let target = try Store(path: nil)
    defer { target.close() }
    let summary = try target.importCoreData(path: path, model: model)
    XCTAssertEqual(summary.source["modelVersion"]?["name"], "Music 2")
    XCTAssertEqual(summary.counts.map(\.count), [2, 1, 3])
  }

  func testANamedVersionIsUsedAndOneWithOtherEntitiesIsRefused() throws {
    let (path, model) = try MusicFixture.makeBundle(
      self, versions: [("Music", MusicFixture.version(1)), ("Music 2", MusicFixture.version(2)), ("Music 3", MusicFixture.version(3))],
      current: "Music 3")
    let store = try Store.openCoreData(path: path, model: model, modelVersion: "Music 3")
    defer { store.close() }
    XCTAssertEqual(try modelVersion(store)?["name"], "Music 3")
    XCTAssertEqual(try modelVersion(store)?["reason"], "named by modelVersion")
    XCTAssertEqual(try store.info()["coreData"]?["warnings"], ["Song.rating has no column ZRATING in ZSONG; it is left empty"])
    let other = expectStoreError(.invalidModel) { try Store.openCoreData(path: path, model: model, modelVersion: "Music") }
    XCTAssertEqual(other?.message, "modelVersion: version 'Music' has the entities Album, Song, but the store has Album, Playlist, Song")
    let missing = expectStoreError(.invalidArgument) { try Store.openCoreData(path: path, model: model, modelVersion: "Music 9") }
    XCTAssertEqual(missing?.message, "modelVersion: '\(model)' has no version 'Music 9' (its versions: 'Music', 'Music 2', 'Music 3')")
    let broken = try MusicFixture.makeBundle(self, versions: [("Music", Self.broken)], current: "Music")
    let unusable = expectStoreError(.invalidModel) {
      try Store.openCoreData(path: broken.store, model: broken.model, modelVersion: "Music")
    }
    XCTAssertTrue(unusable?.message.hasPrefix("modelVersion: version 'Music' cannot be used: ") ?? false, unusable?.message ?? "")
    expectStoreError(.invalidArgument) { try Store.openCoreData(path: path, modelVersion: "Music 2") }
  }

  /// Versions that read the store alike (a change that stores nothing): the store's
  /// version identifier picks one, else the current one, with high confidence.
  func testTiesGoToTheStoresIdentifierThenTheCurrentVersion() throws {
    let renamedRule = MusicFixture.version(2, identifier: "3").replacingOccurrences(
      of: "deletionRule=\"Cascade\"", with: "deletionRule=\"Deny\"")
    let versions = [("Music 2", MusicFixture.version(2, identifier: "2")), ("Music 3", renamedRule)]
    let byIdentifier = try MusicFixture.makeBundle(self, versions: versions, current: "Music 3", identifiers: ["2"])
    let a = try Store.openCoreData(path: byIdentifier.store, model: byIdentifier.model)
    defer { a.close() }
    XCTAssertEqual(try modelVersion(a)?["name"], "Music 2")
    XCTAssertEqual(try modelVersion(a)?["confidence"], "high")
    XCTAssertTrue(try modelVersion(a)?["reason"]?.stringValue?.hasSuffix("the store's metadata names the identifier '2'") ?? false)
    let byCurrent = try MusicFixture.makeBundle(self, versions: versions, current: "Music 3")
    let b = try Store.openCoreData(path: byCurrent.store, model: byCurrent.model)
    defer { b.close() }
    XCTAssertEqual(try modelVersion(b)?["name"], "Music 3")
    XCTAssertEqual(
      try modelVersion(b)?["reason"],
      "2 versions fit equally ('Music 2', 'Music 3') and read the same columns: every property has its column and every column its property; the current version is used"
    )
  }

  /// Versions that fit equally but read the columns differently, as types Core Data
  /// declares alike (String and URI are both VARCHAR): low confidence and a warning that
  /// says to name the version. (Types it declares differently decide:
  /// `CoreDataModelChoiceColumnTests`.)
  func testATieBetweenDifferentReadingsIsLowConfidence() throws {
    let asURI = MusicFixture.version(2).replacingOccurrences(
      of: "<attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/>\n        <attribute name=\"waveform\"",
      with: "<attribute name=\"title\" optional=\"YES\" attributeType=\"URI\"/>\n        <attribute name=\"waveform\"")
    XCTAssertNotEqual(asURI, MusicFixture.version(2))
    let (path, model) = try MusicFixture.makeBundle(
      self, versions: [("Music 2", MusicFixture.version(2)), ("Music 3", asURI)], current: "Music 3")
    let store = try Store.openCoreData(path: path, model: model, versionOrder: ["Music 3", "Music 2"])
    defer { store.close() }
    XCTAssertEqual(try modelVersion(store)?["name"], "Music 3")
    XCTAssertEqual(try modelVersion(store)?["confidence"], "low")
    XCTAssertEqual(
      try store.info()["coreData"]?["warnings"]?.arrayValue?.last,
      "the model version is uncertain: 2 versions fit equally ('Music 3', 'Music 2') but read different columns: every property has its column and every column its property; the current version is used; name the version the store was written with (modelVersion) if it is another"
    )
  }
}
