import JSONCore
import XCTest

@testable import SchemaModel

/// `SchemaMapping` pairs elements the way Core Data pairs them: by renaming identifier (or
/// the name of an element without one) on both sides (issue #16, cause 2), and still by
/// SwiftData's `originalName` and by equal names.
final class SchemaMappingIdentityTests: XCTestCase {
  private func version(_ attribute: String, identifier: String? = nil, original: String? = nil, entity: String = "Queue") -> Schema {
    Schema(
      version: attribute,
      entities: [
        Entity(
          name: entity,
          attributes: [
            Attribute(name: attribute, type: .int64, optional: true, originalName: original, renamingIdentifier: identifier),
            Attribute(name: "name", type: .string, optional: true),
          ])
      ])
  }

  /// v18 `a`, v19 `b` (identifier `a`), v20 `c` (identifier `a`): every step and the jump
  /// across both are renames, never a removal and an addition.
  func testAChainByIdentifierMapsEachStep() {
    let v18 = version("a")
    let v19 = version("b", identifier: "a")
    let v20 = version("c", identifier: "a")
    XCTAssertEqual(SchemaMapping(old: v19, new: v20).newName(ofAttribute: "b", in: "Queue"), "c")
    XCTAssertEqual(SchemaMapping(old: v18, new: v19).newName(ofAttribute: "a", in: "Queue"), "b")
    XCTAssertEqual(SchemaMapping(old: v18, new: v20).newName(ofAttribute: "a", in: "Queue"), "c")
    XCTAssertEqual(SchemaMapping(old: v19, new: v20).oldName(ofAttribute: "c", in: "Queue"), "b")
    let step = SchemaDiff(from: v19, to: v20)
    XCTAssertEqual(step.changes.map(\.message), ["rename attribute Queue.b to c"])
    XCTAssertEqual(step.changes.filter(\.mayLoseData), [])
    XCTAssertTrue(step.mapping.conflicts.isEmpty)
    // Before: only the new side's identifier was compared with the old side's names.
    XCTAssertNotEqual(step.changes.map(\.kind), [.addAttribute, .removeAttribute])
  }

  /// Entities pair the same way, and properties inside renamed entities.
  func testEntitiesPairByIdentifier() {
    var v19 = version("b", identifier: "a", entity: "Track")
    var v20 = version("c", identifier: "a", entity: "Entry")
    v19.entities[0].renamingIdentifier = "Song"
    v20.entities[0].renamingIdentifier = "Song"
    let m = SchemaMapping(old: v19, new: v20)
    XCTAssertEqual(m.newName(ofEntity: "Track"), "Entry")
    XCTAssertEqual(m.newName(ofAttribute: "b", in: "Track"), "c")
    XCTAssertEqual(m.oldName(ofEntity: "Entry"), "Track")
    XCTAssertEqual(
      SchemaDiff(from: v19, to: v20).changes.map(\.message), ["rename entity Track to Entry", "rename attribute Entry.b to c"])
  }

  /// A new element that takes an old element's name but has another identity is a new
  /// element; the old one continues under its identifier.
  func testANameReusedUnderAnotherIdentityIsNew() {
    var v19 = version("b", identifier: "a")
    var v20 = version("c", identifier: "a")
    v20.entities[0].attributes.append(Attribute(name: "b", type: .string, optional: true))
    v19.version = "19"
    let d = SchemaDiff(from: v19, to: v20)
    XCTAssertEqual(d.changes.map(\.message), ["rename attribute Queue.b to c", "add attribute Queue.b (string, optional)"])
    XCTAssertTrue(d.mapping.conflicts.isEmpty)
  }

  /// Without identifiers nothing changes: SwiftData's originalName and equal names; two
  /// new elements claiming one old one are a conflict.
  func testOriginalNameAndEqualNamesStillPair() {
    XCTAssertEqual(
      SchemaMapping(old: version("done"), new: version("isDone", original: "done")).newName(ofAttribute: "done", in: "Queue"), "isDone")
    var two = version("c", identifier: "a")
    two.entities[0].attributes.append(Attribute(name: "d", type: .int64, optional: true, renamingIdentifier: "a"))
    let m = SchemaMapping(old: version("a"), new: two)
    XCTAssertEqual(m.conflicts, ["'Queue.c' and 'Queue.d' both continue the old property 'a' (renaming identifier 'a')"])
    XCTAssertNil(m.newName(ofAttribute: "a", in: "Queue"))
  }

  /// SwiftData's originalName for a Core Data chain: the previous version's name of the
  /// element with the same identifier (`currentIndex`, not the identifier).
  func testOriginalNamesFromThePreviousVersion() {
    let v19 = version("b", identifier: "a")
    let v20 = version("c", identifier: "a")
    XCTAssertEqual(v20.withOriginalNames(from: v19).entities[0].attributes[0].originalName, "b")
    XCTAssertEqual(v20.withOriginalNames(from: v20).entities[0].attributes[0].originalName, nil, "no rename, no originalName")
    XCTAssertEqual(v20.withOriginalNames(from: nil).entities[0].attributes[0].originalName, "a", "no previous version: the identifier")
    XCTAssertEqual(version("c", identifier: "not a name").withOriginalNames(from: nil).entities[0].attributes[0].originalName, nil)
  }

  /// The identifier is a member of the schema's JSON, read back as written.
  func testRenamingIdentifierRoundTripsThroughJSON() {
    let v20 = version("c", identifier: "current song index")
    let (decoded, issues) = SchemaValidator.check(v20.json)
    XCTAssertEqual(issues.filter { $0.severity == .error }, [])
    XCTAssertEqual(decoded, v20)
    let (_, empty) = SchemaDecoder.decode(
      json(#"{"entities":[{"name":"A","renamingIdentifier":"","attributes":[]}]}"#))
    XCTAssertEqual(empty.map(\.code), ["wrongType"])
  }
}
