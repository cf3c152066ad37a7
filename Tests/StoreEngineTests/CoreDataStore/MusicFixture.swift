import Foundation
import SQLiteCore
import XCTest

@testable import StoreEngine

/// A small Core Data store and its model with the quirks of issue #16 that Core Data
/// accepts: a relationship named with an uppercase letter (`Song.Album`, column ZALBUM),
/// an inverse that does not name its relationship back (`Album.cover` names `Song.Album`,
/// whose inverse is `songs`), a fetch index on a to-many (`Song.playlists`), a transient
/// many-to-many (`Playlist.upNext` ↔ `Song.queuedIn`, no join table), a transient
/// attribute without a type (`Song.waveform`), and a to-many without an inverse
/// (`Playlist.featured`, kept by Core Data as the key column `Z2FEATURED` of ZALBUM).
/// Entities: Album (1), Playlist (2), Song (3).
enum MusicFixture {
  /// The current model (`Music 2`); `version(1)` and `version(3)` are its neighbours.
  static let contents = version(2)

  /// `Music` (1) has no playlists; `Music 2` (2) is what the store was written with;
  /// `Music 3` (3) adds `Song.rating`, which the store has no column for.
  static func version(_ n: Int, identifier: String = "") -> String {
    let playlists =
      n < 2
      ? ""
      : """
          <entity name="Playlist">
              <attribute name="name" optional="YES" attributeType="String"/>
              <relationship name="songs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="playlists" inverseEntity="Song"/>
              <relationship name="upNext" optional="YES" toMany="YES" transient="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="queuedIn" inverseEntity="Song"/>
              <relationship name="featured" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Album"/>
          </entity>

      """
    let songPlaylists =
      n < 2
      ? ""
      : """
              <relationship name="playlists" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist"/>
              <relationship name="queuedIn" optional="YES" toMany="YES" transient="YES" deletionRule="Nullify" destinationEntity="Playlist" inverseName="upNext" inverseEntity="Playlist"/>
              <fetchIndex name="byPlaylists">
                  <fetchIndexElement property="playlists" type="Binary" order="ascending"/>
              </fetchIndex>

      """
    let rating =
      n < 3 ? "" : "        <attribute name=\"rating\" optional=\"YES\" attributeType=\"Integer 16\" usesScalarValueType=\"YES\"/>\n"
    return """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="\(identifier)">
          <entity name="Album">
              <attribute name="title" optional="YES" attributeType="String"/>
              <relationship name="songs" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Song" inverseName="Album" inverseEntity="Song"/>
              <relationship name="cover" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Song" inverseName="Album" inverseEntity="Song"/>
          </entity>
      \(playlists)    <entity name="Song">
              <attribute name="title" optional="YES" attributeType="String"/>
              <attribute name="waveform" optional="YES" transient="YES"/>
      \(rating)        <relationship name="Album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="songs" inverseEntity="Album"/>
      \(songPlaylists)        <fetchIndex name="byTitle">
                  <fetchIndexElement property="title" type="Binary" order="ascending"/>
              </fetchIndex>
          </entity>
      </model>
      """
  }

  /// Writes the store at `path`. `textKeys` declares the key columns (Z_PK, Z_ENT, Z_OPT,
  /// to-one keys, join keys) TEXT and stores the keys as text, as a store loaded by hand
  /// from CSV has them. `identifiers` is the metadata's NSStoreModelVersionIdentifiers.
  static func write(_ path: String, textKeys: Bool = false, identifiers: [String] = [""]) throws {
    let c = try Connection(path: path)
    let key = textKeys ? "TEXT" : "INTEGER"
    let pk = textKeys ? "Z_PK TEXT PRIMARY KEY" : "Z_PK INTEGER PRIMARY KEY"
    try c.execute(
      """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZALBUM ( \(pk), Z_ENT \(key), Z_OPT \(key), ZCOVER \(key), Z2FEATURED \(key), ZTITLE VARCHAR );
      CREATE INDEX ZALBUM_ZCOVER_INDEX ON ZALBUM (ZCOVER);
      CREATE INDEX ZALBUM_Z2FEATURED_INDEX ON ZALBUM (Z2FEATURED);
      CREATE TABLE ZPLAYLIST ( \(pk), Z_ENT \(key), Z_OPT \(key), ZNAME VARCHAR );
      CREATE TABLE ZSONG ( \(pk), Z_ENT \(key), Z_OPT \(key), ZALBUM \(key), ZTITLE VARCHAR );
      CREATE INDEX ZSONG_ZALBUM_INDEX ON ZSONG (ZALBUM);
      CREATE INDEX ZSONG_ZTITLE_INDEX ON ZSONG (ZTITLE);
      CREATE TABLE Z_2SONGS ( Z_2PLAYLISTS \(key), Z_3SONGS \(key), PRIMARY KEY (Z_2PLAYLISTS, Z_3SONGS) );
      INSERT INTO Z_PRIMARYKEY VALUES (1, 'Album', 0, 2), (2, 'Playlist', 0, 1), (3, 'Song', 0, 3);
      """)
    func k(_ n: Int) -> SQLValue { textKeys ? .text(String(n)) : .integer(Int64(n)) }
    let rows: [(String, [[SQLValue]])] = [
      ("ZALBUM", [[k(1), k(1), k(1), k(2), k(1), .text("Blue")], [k(2), k(1), k(1), .null, .null, .text("Red")]]),
      ("ZPLAYLIST", [[k(1), k(2), k(1), .text("Mix")]]),
      (
        "ZSONG",
        [
          [k(1), k(3), k(1), k(1), .text("Intro")], [k(2), k(3), k(1), k(1), .text("Theme")],
          [k(10), k(3), k(1), k(2), .text("Outro")],
        ]
      ),
      ("Z_2SONGS", [[k(1), k(1)], [k(1), k(10)]]),
    ]
    for (table, values) in rows {
      let insert = try c.prepare("INSERT INTO \(table) VALUES (\(Array(repeating: "?", count: values[0].count).joined(separator: ", ")))")
      for row in values { try insert.execute(row) }
    }
    let hashes: [(String, PlistWriter.Value)] = ["Album", "Playlist", "Song"].map {
      ($0, .data(Array(repeating: UInt8($0.utf8.count), count: 32)))
    }
    let plist = PlistWriter.encode(
      .dict([
        ("NSStoreType", .string("SQLite")), ("NSStoreModelVersionHashes", .dict(hashes)),
        ("NSStoreModelVersionIdentifiers", .array(identifiers.map { .string($0) })), ("NSPersistenceFrameworkVersion", .int(1344)),
      ]))
    try c.run("INSERT INTO Z_METADATA VALUES (1, ?, ?)", [.text("6C1E2D3F-0000-4000-8000-000000000016"), .blob(plist)])
    c.close()
  }

  /// A temporary directory with `Music.sqlite` and the bundle `Music.xcdatamodeld` holding
  /// `versions` (name → contents) with `current` as its current version; removed when the
  /// test ends.
  static func makeBundle(
    _ test: XCTestCase, versions: [(String, String)], current: String, identifiers: [String] = [""]
  ) throws -> (store: String, model: String) {
    let dir = NSTemporaryDirectory() + "music-bundle-" + UUID().uuidString
    let bundle = dir + "/Music.xcdatamodeld"
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    for (name, contents) in versions {
      try FileManager.default.createDirectory(atPath: bundle + "/\(name).xcdatamodel", withIntermediateDirectories: true)
      try Data(contents.utf8).write(to: URL(fileURLWithPath: bundle + "/\(name).xcdatamodel/contents"))
    }
    try Data("<plist><dict><key>_XCCurrentVersionName</key><string>\(current).xcdatamodel</string></dict></plist>".utf8).write(
      to: URL(fileURLWithPath: bundle + "/.xccurrentversion"))
    try write(dir + "/Music.sqlite", identifiers: identifiers)
    return (dir + "/Music.sqlite", bundle)
  }

  /// A temporary directory with `Music.sqlite` and the model `Music.xcdatamodel`, removed
  /// when the test ends.
  static func make(_ test: XCTestCase, textKeys: Bool = false) throws -> (store: String, model: String) {
    let dir = NSTemporaryDirectory() + "music-fixture-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: dir + "/Music.xcdatamodel", withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    try Data(contents.utf8).write(to: URL(fileURLWithPath: dir + "/Music.xcdatamodel/contents"))
    try write(dir + "/Music.sqlite", textKeys: textKeys)
    return (dir + "/Music.sqlite", dir + "/Music.xcdatamodel")
  }
}
