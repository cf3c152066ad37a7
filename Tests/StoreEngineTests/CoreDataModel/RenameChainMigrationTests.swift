import CoreDataTooling
import JSONCore
import XCTest

@testable import StoreEngine

/// A store on one version of a bundle that renames by identifier migrates to a later one
/// with its data, step by step or in one jump (issue #16, cause 2).
final class RenameChainMigrationTests: XCTestCase {
  func testMigrationsAlongTheChainKeepTheData() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.playerBundle)
    let schemas = try model.versions.map { try XCTUnwrap($0.schema).json }
    for path in [[0, 1, 2], [0, 2], [1, 2]] {
      let store = try Store(path: nil)
      defer { store.close() }
      _ = try store.define(schemas[path[0]])
      let names = [["Queue", "currentSongIndex", "songs", "Song"], ["Queue", "currentIndex", "tracks", "Track"]][path[0]]
      let song = try store.add(names[3], ["title": "Intro"])
      let queue = try store.add("Queue", [names[1]: 3, "name": "Now", names[2]: .array([.string(song)])])
      for k in path.dropFirst() { _ = try store.define(schemas[k]) }
      let after = try store.get(id: queue, toMany: .ids)
      XCTAssertEqual(after["position"], 3, "\(path)")
      XCTAssertEqual(after["items"], ids("Entry/1"), "\(path)")
      XCTAssertEqual(try store.get(id: "Entry/1")["title"], "Intro", "\(path)")
    }
  }
}
