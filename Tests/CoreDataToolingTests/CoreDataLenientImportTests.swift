import JSONCore
import SchemaModel
import XCTest

@testable import CoreDataTooling

/// What Xcode writes and Core Data accepts is imported, each with a warning at its element
/// that says what ModelStore does (issue #16): transient attributes without a type, empty
/// user info.
final class CoreDataLenientImportTests: XCTestCase {
  private func inline(_ body: String) -> ImportedModelVersion {
    let xml = "<?xml version=\"1.0\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\">\n\(body)\n</model>"
    return CoreDataModelImporter.importContents(Array(xml.utf8)).versions[0]
  }

  private func places(_ issues: [ModelImportIssue]) -> [String] {
    issues.map { "\($0.code)@\($0.line ?? 0):\($0.column ?? 0):\($0.entity ?? "-").\($0.property ?? "-")" }
  }

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
