import JSONCore
import SchemaModel
import TestSupport
import XCTest

@testable import CoreDataTooling

/// A bundle that renames by identifier twice (`CoreDataModelFixtures.playerBundle`): each
/// version keeps its renaming identifiers and gets SwiftData's `originalName` (the
/// previous version's name), and every step diffs as renames only (issue #16, cause 2).
final class CoreDataRenameChainTests: XCTestCase {
  func testEachVersionGetsThePreviousVersionsNameAsOriginalName() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.playerBundle)
    XCTAssertEqual(model.versions.map(\.name), ["Player", "Player 2", "Player 3"])
    let schemas = try model.versions.map { try XCTUnwrap($0.schema, $0.name) }
    func describe(_ s: Schema) -> [String] {
      s.entities.flatMap { e in
        ["\(e.name)<\(e.originalName ?? "-")|\(e.renamingIdentifier ?? "-")"]
          + e.attributes.map { "\(e.name).\($0.name)<\($0.originalName ?? "-")|\($0.renamingIdentifier ?? "-")" }
          + e.relationships.map { "\(e.name).\($0.name)<\($0.originalName ?? "-")|\($0.renamingIdentifier ?? "-")" }
      }
    }
    XCTAssertEqual(
      describe(schemas[1]),
      [
        "Queue<-|-", "Queue.currentIndex<currentSongIndex|currentSongIndex", "Queue.name<-|-", "Queue.tracks<songs|songs",
        "Track<Song|Song", "Track.title<-|-", "Track.queue<-|-",
      ])
    XCTAssertEqual(
      describe(schemas[2]),
      [
        "Queue<-|-", "Queue.position<currentIndex|currentSongIndex", "Queue.name<-|-", "Queue.items<tracks|songs", "Entry<Track|Song",
        "Entry.title<-|-", "Entry.queue<-|-",
      ])
  }

  /// model.diff's mechanism over the bundle's steps and across them: renames, nothing lost.
  func testEveryStepAndTheJumpAreRenames() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.playerBundle)
    let s = model.versions.compactMap(\.schema)
    XCTAssertEqual(
      SchemaDiff(from: s[1], to: s[2]).changes.map(\.message),
      ["rename attribute Queue.currentIndex to position", "rename relationship Queue.tracks to items", "rename entity Track to Entry"])
    XCTAssertEqual(
      SchemaDiff(from: s[0], to: s[2]).changes.map(\.message),
      ["rename attribute Queue.currentSongIndex to position", "rename relationship Queue.songs to items", "rename entity Song to Entry"])
    for (a, b) in [(0, 1), (1, 2), (0, 2)] {
      let d = SchemaDiff(from: s[a], to: s[b])
      XCTAssertEqual(d.changes.filter(\.mayLoseData).map(\.message), [], "\(a) → \(b)")
      XCTAssertTrue(d.isLightweight)
      // The schemas as JSON (model.diff's input) pair the same way.
      let fromJSON = SchemaDiff(from: SchemaValidator.check(s[a].json).0, to: SchemaValidator.check(s[b].json).0)
      XCTAssertEqual(fromJSON.changes, d.changes, "\(a) → \(b) through JSON")
    }
  }
}
