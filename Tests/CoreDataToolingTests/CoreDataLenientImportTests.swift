import JSONCore
import SchemaModel
import XCTest

@testable import CoreDataTooling

/// One version read from the `<model>` body given (the body starts on line 3).
private func inline(_ body: String) -> ImportedModelVersion {
  let xml = "<?xml version=\"1.0\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\">\n\(body)\n</model>"
  return CoreDataModelImporter.importContents(Array(xml.utf8)).versions[0]
}

/// `code@line:column:Entity.property` of each issue.
private func places(_ issues: [ModelImportIssue]) -> [String] {
  issues.map { "\($0.code)@\($0.line ?? 0):\($0.column ?? 0):\($0.entity ?? "-").\($0.property ?? "-")" }
}

/// What Xcode writes and Core Data accepts is imported, each with a warning at its element
/// that says what ModelStore does (issue #16): transient attributes without a type, empty
/// user info.
final class CoreDataLenientImportTests: XCTestCase {
  /// Xcode writes a transient attribute of type Undefined with no `attributeType`: it is
  /// json (protocol.md), a required one is kept optional; a stored attribute without a
  /// type is still an error.
  func testTransientAttributeWithoutTypeIsJSON() throws {
    let v = inline(
      """
      <entity name="Song">
          <attribute name="title" attributeType="String"/>
          <attribute name="waveform" optional="YES" transient="YES"/>
          <attribute name="playback" transient="YES"/>
      </entity>
      """)
    XCTAssertEqual(v.errors, [])
    let song = try XCTUnwrap(v.schema?.entity(named: "Song"))
    XCTAssertEqual(
      song.attributes.map { "\($0.name):\($0.type.rawValue):\($0.transient):\($0.optional)" },
      [
        "title:string:false:false", "waveform:json:true:true", "playback:json:true:true",
      ])
    XCTAssertEqual(
      places(v.warnings), ["undefinedType@5:5:Song.waveform", "undefinedType@6:5:Song.playback", "transientRequired@6:5:Song.playback"])
    XCTAssertEqual(v.warnings[0].message, "transient attribute 'Song.waveform' has no attributeType (Undefined); it is kept as json")
    XCTAssertEqual(SchemaValidator.validate(try XCTUnwrap(v.schema)).filter { $0.severity == .error }, [])

    let stored = inline("<entity name=\"Song\">\n    <attribute name=\"title\"/>\n</entity>")
    XCTAssertNil(stored.schema)
    XCTAssertEqual(places(stored.errors), ["missingType@4:5:Song.title"])
  }

  /// Xcode writes `<userInfo/>` for many elements; an empty one holds nothing, so neither
  /// the import nor the audit reports it. One with entries is still reported.
  func testEmptyUserInfoIsNotAFinding() throws {
    let xml = """
      <?xml version="1.0"?>
      <model type="com.apple.IDECoreDataModeler.DataModel">
          <entity name="Song">
              <attribute name="title" optional="YES" attributeType="String">
                  <userInfo/>
              </attribute>
              <userInfo/>
          </entity>
          <entity name="Album">
              <attribute name="name" optional="YES" attributeType="String">
                  <userInfo>
                      <entry key="sync" value="name"/>
                  </userInfo>
              </attribute>
          </entity>
          <userInfo/>
      </model>
      """
    let model = CoreDataModelImporter.importContents(Array(xml.utf8))
    XCTAssertEqual(places(model.versions[0].warnings), ["userInfo@11:13:Album.name"])
    let audit = try model.audit()
    XCTAssertEqual(audit.findings.filter { $0.file != nil }.map(\.code), ["userInfo"], "the audit's findings from the import")
    XCTAssertEqual(audit.supported.map(\.properties), [["title"], []])
  }
}

/// Relationships Core Data accepts and ModelStore's schema cannot state as written.
final class CoreDataRelationshipQuirkTests: XCTestCase {
  /// A hand-edited relationship name with an uppercase first letter is lowered; its inverse
  /// and the key lists naming it follow, and the version imports.
  func testUppercaseRelationshipNameIsLowered() throws {
    let v = inline(
      """
      <entity name="Song">
          <attribute name="title" attributeType="String"/>
          <relationship name="Album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="songs" inverseEntity="Album"/>
          <uniquenessConstraints>
              <uniquenessConstraint><constraint value="title"/><constraint value="Album"/></uniquenessConstraint>
          </uniquenessConstraints>
      </entity>
      <entity name="Album">
          <relationship name="songs" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Song" inverseName="Album" inverseEntity="Song"/>
      </entity>
      """)
    XCTAssertEqual(v.errors, [])
    XCTAssertEqual(places(v.warnings), ["relationshipName@5:5:Song.album"])
    XCTAssertEqual(
      v.warnings[0].message,
      "relationship 'Song.Album' starts with an uppercase letter, which Core Data accepts; ModelStore names it 'album' "
        + "(its Core Data column ZALBUM is the same)")
    let schema = try XCTUnwrap(v.schema)
    XCTAssertEqual(schema.entity(named: "Song")?.relationships.map(\.name), ["album"])
    XCTAssertEqual(schema.entity(named: "Song")?.uniqueness, [["title", "album"]])
    XCTAssertEqual(schema.entity(named: "Album")?.relationships.first?.inverse, "album")
  }

  /// Xcode writes fetch indexes over to-many relationships (own or inherited): the key is
  /// left out of the index, an index of only such keys is left out.
  func testFetchIndexOnToManyDropsTheKey() throws {
    let v = inline(
      """
      <entity name="Item" isAbstract="YES">
          <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
      </entity>
      <entity name="Song" parentEntity="Item">
          <attribute name="title" attributeType="String"/>
          <fetchIndex name="byTags">
              <fetchIndexElement property="tags" type="Binary" order="ascending"/>
          </fetchIndex>
          <fetchIndex name="byTitleAndTags">
              <fetchIndexElement property="title" type="Binary" order="ascending"/>
              <fetchIndexElement property="tags" type="Binary" order="ascending"/>
          </fetchIndex>
      </entity>
      <entity name="Tag">
          <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
      </entity>
      """)
    XCTAssertEqual(v.errors, [])
    XCTAssertEqual(places(v.warnings), ["toManyIndex@9:9:Song.tags", "toManyIndex@13:9:Song.tags"])
    XCTAssertEqual(
      v.warnings.map(\.message),
      [
        "fetch index 'byTags' of 'Song' names to-many relationship 'tags', which has no column to index (Core Data accepts it); the index is left out",
        "fetch index 'byTitleAndTags' of 'Song' names to-many relationship 'tags', which has no column to index (Core Data accepts it); the index keeps 'title'",
      ])
    XCTAssertEqual(v.schema?.entity(named: "Song")?.indexes, [["title"]])
  }

  /// Inverses Core Data tolerates: one naming a relationship that names another back (the
  /// shape of a shipped model), one naming a relationship the destination lacks, one
  /// pointing to another entity, one whose partner names none. Each such relationship
  /// is kept without an inverse; a pair that names each other stays a pair.
  func testOneSidedAndDanglingInversesAreKeptWithoutInverse() throws {
    let v = inline(
      """
      <entity name="Artist">
          <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Image" inverseName="thumbnail" inverseEntity="Image"/>
          <relationship name="portrait" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Image" inverseName="subject" inverseEntity="Image"/>
      </entity>
      <entity name="Image">
          <relationship name="artist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist"/>
          <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist"/>
          <relationship name="gallery" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Gallery" inverseName="thumbnail" inverseEntity="Gallery"/>
          <relationship name="curator" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Gallery" inverseName="owner" inverseEntity="Gallery"/>
      </entity>
      <entity name="Gallery">
          <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist"/>
      </entity>
      """)
    XCTAssertEqual(v.errors, [])
    XCTAssertEqual(
      places(v.warnings.filter { $0.code == "inverseIgnored" }),
      [
        "inverseIgnored@5:5:Artist.portrait", "inverseIgnored@8:5:Image.artist", "inverseIgnored@10:5:Image.gallery",
        "inverseIgnored@11:5:Image.curator",
      ])
    XCTAssertEqual(
      v.warnings.filter { $0.code == "inverseIgnored" }.map(\.message),
      [
        "'Artist.portrait' names as its inverse 'subject', which 'Image' does not have (Core Data accepts it); ModelStore keeps 'Artist.portrait' without an inverse",
        "'Image.artist' names as its inverse 'Artist.thumbnail', whose own inverse is 'thumbnail' (Core Data accepts it); ModelStore keeps 'Image.artist' without an inverse",
        "'Image.gallery' names as its inverse 'thumbnail', which 'Gallery' does not have (Core Data accepts it); ModelStore keeps 'Image.gallery' without an inverse",
        "'Image.curator' names as its inverse 'Gallery.owner', which points to 'Artist', not to 'Image' (Core Data accepts it); ModelStore keeps 'Image.curator' without an inverse",
      ])
    let schema = try XCTUnwrap(v.schema)
    let inverses = schema.entities.flatMap { e in e.relationships.map { "\(e.name).\($0.name)->\($0.inverse ?? "-")" } }
    XCTAssertEqual(
      inverses,
      [
        "Artist.thumbnail->thumbnail", "Artist.portrait->-", "Image.artist->-", "Image.thumbnail->thumbnail", "Image.gallery->-",
        "Image.curator->-", "Gallery.owner->-",
      ])
  }

  /// A relationship to a sub-entity whose inverse is declared on the abstract parent (a
  /// shipped test model): ModelStore's inverse must point back to the entity or an
  /// ancestor, so that side is kept without an inverse, and then its partner too.
  func testAnInverseToASubEntityDropsBothSides() throws {
    let v = inline(
      """
      <entity name="Related" isAbstract="YES">
          <relationship name="main" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Single" inverseName="test" inverseEntity="Single"/>
      </entity>
      <entity name="Concrete" parentEntity="Related"/>
      <entity name="Single">
          <relationship name="test" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Concrete" inverseName="main" inverseEntity="Related"/>
      </entity>
      """)
    XCTAssertEqual(v.errors, [])
    XCTAssertEqual(
      v.warnings.filter { $0.code == "inverseIgnored" }.map(\.message),
      [
        "'Related.main' names as its inverse 'Single.test', which points to 'Concrete', not to 'Related' (Core Data accepts it); ModelStore keeps 'Related.main' without an inverse",
        "'Single.test' names as its inverse 'Related.main', whose own inverse is none (Core Data accepts it); ModelStore keeps 'Single.test' without an inverse",
      ])
    XCTAssertEqual(v.schema?.entities.flatMap { $0.relationships.map(\.inverse) }, [nil, nil])
  }

  /// Transient relationships (a many-to-many among them) have no column or join table in a
  /// Core Data store: they are left out of the schema, and an inverse naming one is dropped.
  func testTransientRelationshipsAreLeftOut() throws {
    let v = inline(
      """
      <entity name="Song">
          <attribute name="title" attributeType="String"/>
          <relationship name="queued" optional="YES" toMany="YES" transient="YES" deletionRule="Nullify" destinationEntity="Playlist" inverseName="upNext" inverseEntity="Playlist"/>
          <relationship name="album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="songs" inverseEntity="Album"/>
      </entity>
      <entity name="Playlist">
          <relationship name="upNext" optional="YES" toMany="YES" transient="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="queued" inverseEntity="Song"/>
      </entity>
      <entity name="Album">
          <relationship name="songs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="album" inverseEntity="Song"/>
          <relationship name="nowPlaying" optional="YES" maxCount="1" transient="YES" deletionRule="Nullify" destinationEntity="Song"/>
          <relationship name="cover" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Song" inverseName="queued" inverseEntity="Song"/>
      </entity>
      """)
    XCTAssertEqual(v.errors, [])
    XCTAssertEqual(
      places(v.warnings),
      [
        "transientRelationship@5:5:Song.queued", "transientRelationship@9:5:Playlist.upNext", "transientRelationship@13:5:Album.nowPlaying",
        "inverseIgnored@14:5:Album.cover", "missingInverse@14:5:Album.cover",
      ])
    XCTAssertEqual(
      v.warnings[3].message,
      "'Album.cover' names as its inverse the transient 'Song.queued', which is left out (Core Data accepts it); ModelStore keeps 'Album.cover' without an inverse"
    )
    let schema = try XCTUnwrap(v.schema)
    XCTAssertEqual(schema.entities.map { $0.relationships.map(\.name) }, [["album"], [], ["songs", "cover"]])
  }
}
