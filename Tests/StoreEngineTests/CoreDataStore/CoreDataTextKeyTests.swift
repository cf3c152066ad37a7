import Foundation
import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// A store loaded by hand (rows from CSV) holds Z_PK, Z_ENT, Z_OPT and its keys as TEXT:
/// browsing in place and importing read the same rows, through one row source that reads
/// the keys as integers (issue #16, cause 5).
final class CoreDataTextKeyTests: XCTestCase {
  private func all(_ store: Store, _ entity: String) throws -> [JSONObject] {
    var r = FetchRequest(entity: entity)
    r.sort = [SortKey(keyPath: "title", ascending: true)]
    r.toMany = .ids
    if entity == "Playlist" { r.sort = [] }
    return try store.fetch(r)
  }

  func testTextKeysReadTheSameInPlaceAndImported() throws {
    let plain = try MusicFixture.make(self)
    let text = try MusicFixture.make(self, textKeys: true)
    let expected = try Store.openCoreData(path: plain.store, model: plain.model)
    defer { expected.close() }
    let inPlace = try Store.openCoreData(path: text.store, model: text.model)
    defer { inPlace.close() }
    let imported = try Store(path: nil)
    defer { imported.close() }
    let summary = try imported.importCoreData(path: text.store, model: text.model)
    XCTAssertEqual(summary.counts.map { "\($0.entity)=\($0.count)" }, ["Album=2", "Playlist=1", "Song=3"])
    XCTAssertEqual(summary.links.map { "\($0.relationship)=\($0.count)" }, ["Playlist.featured=1", "Playlist.songs=2"])
    for entity in ["Album", "Playlist", "Song"] {
      let rows = try all(expected, entity)
      XCTAssertEqual(try all(inPlace, entity), rows, "in place: \(entity)")
      XCTAssertEqual(try all(imported, entity), rows, "imported: \(entity)")
    }
    XCTAssertEqual(try inPlace.get(id: "Song/10")["album"], "Album/2")
    XCTAssertEqual(try inPlace.idsWhere("Song", "album.title == 'Blue'"), ["Song/1", "Song/2"])
    XCTAssertEqual(try imported.check()["ok"], true)
  }

  /// Without the model the keys are read the same way (the schema is inferred).
  func testTextKeysWithoutTheModel() throws {
    let text = try MusicFixture.make(self, textKeys: true)
    let imported = try Store(path: nil)
    defer { imported.close() }
    let summary = try imported.importCoreData(path: text.store)
    XCTAssertEqual(summary.counts.map { "\($0.entity)=\($0.count)" }, ["Album=2", "Playlist=1", "Song=3"])
    let inPlace = try Store.openCoreData(path: text.store)
    defer { inPlace.close() }
    XCTAssertEqual(try inPlace.count(FetchRequest(entity: "Song")), 3)
    XCTAssertEqual(try imported.get(id: "Song/10")["title"], "Outro")
  }

  /// A key that is no integer: the import refuses the store naming the row; in place the
  /// row is left out (it has no id); a to-one key that is no integer reads as none.
  func testAKeyThatIsNoIntegerIsNamed() throws {
    let text = try MusicFixture.make(self, textKeys: true)
    let c = try Connection(path: text.store)
    try c.execute("INSERT INTO ZSONG VALUES ('x1', '3', '1', 'two', 'Bonus')")
    c.close()
    let imported = try Store(path: nil)
    defer { imported.close() }
    let e = expectStoreError(.validation) { try imported.importCoreData(path: text.store, model: text.model) }
    XCTAssertEqual(e?.message, "ZSONG has a row whose Z_PK is 'x1', which is not an integer key; nothing was imported")
    XCTAssertNil(imported.schema)
    let inPlace = try Store.openCoreData(path: text.store, model: text.model)
    defer { inPlace.close() }
    XCTAssertEqual(try inPlace.count(FetchRequest(entity: "Song")), 3)

    let c2 = try Connection(path: text.store)
    try c2.execute("UPDATE ZSONG SET Z_PK = '11' WHERE Z_PK = 'x1'")
    c2.close()
    let second = try Store(path: nil)
    defer { second.close() }
    let summary = try second.importCoreData(path: text.store, model: text.model)
    XCTAssertEqual(summary.counts.map(\.count), [2, 1, 4])
    XCTAssertEqual(
      summary.warnings.first?["message"],
      "ZSONG.ZALBUM: 1 key stored as text that is no integer (first 'two'): the value reads as none")
    XCTAssertEqual(try second.get(id: "Song/11")["album"], .null)
  }
}
