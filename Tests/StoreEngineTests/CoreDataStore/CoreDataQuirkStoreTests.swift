import Foundation
import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// A store whose model has what Core Data accepts and ModelStore imports with warnings
/// (`MusicFixture`): opened in place with its model and imported with it, both read the
/// same objects and links; transient relationships need no join table (issue #16, causes 3
/// and 4).
final class CoreDataQuirkStoreTests: XCTestCase {
  func testInPlaceWithTheModelNeedsNoJoinTableForTransientRelationships() throws {
    let (path, model) = try MusicFixture.make(self)
    let store = try Store.openCoreData(path: path, model: model)
    defer { store.close() }
    XCTAssertEqual(
      store.schema?.entities.map { "\($0.name):\($0.relationships.map(\.name))" },
      [
        "Album:[\"songs\", \"cover\"]", "Playlist:[\"songs\", \"featured\"]", "Song:[\"album\", \"playlists\"]",
      ])
    XCTAssertEqual(try store.info()["coreData"]?.objectValue?["warnings"], [])
    XCTAssertEqual(try store.get(id: "Song/1")["album"], "Album/1")
    XCTAssertEqual(try store.get(id: "Album/1", toMany: .ids)["songs"], ids("Song/1", "Song/2"))
    XCTAssertEqual(try store.get(id: "Album/1")["cover"], "Song/2", "a one-sided inverse is a to-one of its own (column ZCOVER)")
    XCTAssertEqual(try store.get(id: "Playlist/1", toMany: .ids)["songs"], ids("Song/1", "Song/10"))
    XCTAssertEqual(
      try store.get(id: "Playlist/1", toMany: .ids)["featured"], ids("Album/1"), "a to-many without inverse: ZALBUM.Z2FEATURED")
    XCTAssertEqual(try store.idsWhere("Song", "ANY playlists.name == 'Mix' AND album.title == 'Red'"), ["Song/10"])
  }

  func testImportWithTheModelReadsWhatTheInPlaceViewShows() throws {
    let (path, model) = try MusicFixture.make(self)
    let source = try Store.openCoreData(path: path, model: model)
    defer { source.close() }
    let target = try Store(path: nil)
    defer { target.close() }
    let summary = try target.importCoreData(path: path, model: model)
    XCTAssertEqual(summary.counts.map { "\($0.entity)=\($0.count)" }, ["Album=2", "Playlist=1", "Song=3"])
    XCTAssertEqual(summary.links.map { "\($0.relationship)=\($0.count)" }, ["Playlist.featured=1", "Playlist.songs=2"])
    XCTAssertEqual(summary.warnings, [])
    for name in ["Album", "Playlist", "Song"] {
      var r = FetchRequest(entity: name)
      r.toMany = .ids
      XCTAssertEqual(try target.fetch(r), try source.fetch(r), name)
    }
    XCTAssertEqual(try target.check()["ok"], true)
  }
}
