import CoreDataTooling
import JSONCore
import SchemaModel
import TestSupport
import XCTest

@testable import CodeGeneration

/// Issue #16, cause 2 (the code half): SwiftData's `originalName` is an element's name in the
/// previous version, found by pairing the versions' elements by renaming identifier; and the
/// generated migration plans agree with `model.diff` step by step.
final class SwiftDataRenameTests: XCTestCase {
  /// `a` (v1) → `b` with identifier `a` (v2) → `c` with identifier `a` (v3); the entity `Song`
  /// becomes `Track` (identifier `Song`) in v3, the relationship `playlist` becomes `owner` in
  /// v2 and `songs` becomes `tracks` in v3.
  static let chain: [(String, String)] = [
    (
      "Player",
      """
      <entity name="Song">
          <attribute name="a" optional="YES" attributeType="String"/>
          <relationship name="playlist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist"/>
      </entity>
      <entity name="Playlist">
          <relationship name="songs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="playlist" inverseEntity="Song"/>
      </entity>
      """
    ),
    (
      "Player 2",
      """
      <entity name="Song">
          <attribute name="b" optional="YES" attributeType="String" elementID="a"/>
          <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist" elementID="playlist"/>
      </entity>
      <entity name="Playlist">
          <relationship name="songs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="owner" inverseEntity="Song"/>
      </entity>
      """
    ),
    (
      "Player 3",
      """
      <entity name="Track" elementID="Song">
          <attribute name="c" optional="YES" attributeType="String" elementID="a"/>
          <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="tracks" inverseEntity="Playlist" elementID="playlist"/>
      </entity>
      <entity name="Playlist">
          <relationship name="tracks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Track" inverseName="owner" inverseEntity="Track" elementID="songs"/>
      </entity>
      """
    ),
  ]

  func testARenameChainCarriesThePreviousVersionsName() throws {
    let path = try ModelFixture.bundle("Player", Self.chain, in: self)
    let files = try CoreDataModelImporter.importModel(at: path).generate(.swiftdata).files
    let v2 = ModelFixture.file(files, "PlayerSchemaV2.swift")
    XCTAssertTrue(v2.contains("    @Attribute(originalName: \"a\")\n    var b: String? = nil\n"), v2)
    XCTAssertTrue(v2.contains("    @Relationship(deleteRule: .nullify, originalName: \"playlist\")\n    var owner: Playlist?\n"), v2)
    let v3 = ModelFixture.file(files, "PlayerSchemaV3.swift")
    XCTAssertTrue(
      v3.contains("    @Attribute(originalName: \"b\")\n    var c: String? = nil\n"), "the previous name, not the identifier: \(v3)")
    XCTAssertTrue(v3.contains("    @Relationship(deleteRule: .nullify)\n    var owner: Playlist?\n"), "kept its name since v2: \(v3)")
    XCTAssertTrue(
      v3.contains(
        "    @Relationship(deleteRule: .nullify, originalName: \"songs\", inverse: \\Track.owner)\n    var tracks: [Track] = []\n"), v3)
    XCTAssertTrue(
      v3.contains(
        "  /// Was `Song` in the previous version (Core Data renaming identifier `Song`). SwiftData's @Model takes no original name"),
      v3)
    let plan = ModelFixture.file(files, "PlayerMigrationPlan.swift")
    XCTAssertTrue(
      plan.contains(
        "      .lightweight(fromVersion: PlayerSchemaV1.self, toVersion: PlayerSchemaV2.self),\n"
          + "      // rename entity Song to Track: SwiftData keeps no objects across a class rename (see the class)\n"
          + "      .lightweight(fromVersion: PlayerSchemaV2.self, toVersion: PlayerSchemaV3.self),\n"), plan)
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
  }

  /// Core Data's pairing, with the fallbacks: identifiers first, then equal names, then a new
  /// identifier naming an old element (a schema written with SwiftData's previous names).
  func testPairingByIdentifierThenName() {
    XCTAssertEqual(VersionPairing.pair([("b", "a")], [("c", "a")]), ["c": "b"], "a chain shares its identifier")
    XCTAssertEqual(VersionPairing.pair([("a", nil)], [("b", "a")]), ["b": "a"], "the identifier is the old name")
    XCTAssertEqual(VersionPairing.pair([("b", "a")], [("b", nil)]), ["b": "b"], "an identifier dropped later")
    XCTAssertEqual(VersionPairing.pair([("a", nil), ("b", "x")], [("c", "b")]), ["c": "b"], "the previous name as identifier")
    XCTAssertEqual(
      VersionPairing.pair([("a", nil), ("b", nil)], [("b", "a"), ("a", "b")]), ["b": "a", "a": "b"], "two names swapped by identifier")
    XCTAssertEqual(VersionPairing.pair([("a", nil)], [("x", nil)]), [:], "nothing in common")
  }

  /// Every multi-version bundle of the corpus (and of Tests/Fixtures/CoreDataWild, and the
  /// fixtures here): each stage of the generated plan lists exactly the changes `model.diff`
  /// finds between the two versions (given their schemas as a client would, as JSON) that need
  /// a custom stage, and is `.custom` exactly when there are some.
  func testMigrationPlansAgreeWithModelDiffStepByStep() throws {
    var bundles = CoreDataModelCorpus.availableUnits().filter { $0.hasSuffix(".xcdatamodeld") }
    bundles.append(CoreDataModelFixtures.tasksBundle)
    bundles.append(try ModelFixture.bundle("Player", Self.chain, in: self))
    var steps = 0
    var renames = 0
    var byIdentifier = 0
    var uncovered: [String] = []
    var covered = 0
    var currentFirst = 0
    for path in bundles {
      let model = try CoreDataModelImporter.importModel(at: path)
      guard model.versions.count > 1 else { continue }
      // Every bundle of several versions up to its current one has a plan: a current version
      // that imports, and a plan file naming its steps. Versions after the current one are
      // left out, said so (CoreDataPlus's SampleModel is current with SampleModel2 and 3
      // after it: no plan).
      let generated = try model.current?.schema != nil ? model.generate(.swiftdata) : nil
      let afterCurrent = model.versions.drop { !$0.isCurrent }.dropFirst().map(\.name)
      if model.versions.first?.isCurrent == true {
        XCTAssertEqual(generated?.skipped.map(\.name), afterCurrent, path)
        XCTAssertFalse(generated?.files.contains { $0.name.hasSuffix("MigrationPlan.swift") } ?? true, path)
        currentFirst += 1
        continue
      }
      guard let generated, let planFile = generated.files.last, planFile.name.hasSuffix("MigrationPlan.swift") else {
        uncovered.append(path)
        continue
      }
      covered += 1
      let chain = model.versions.prefix { !$0.isCurrent }.filter { !generated.skipped.map(\.name).contains($0.name) } + [model.current!]
      let schemas = chain.compactMap(\.schema)
      let stages = Self.stages(of: planFile.text)
      XCTAssertEqual(stages.count, schemas.count - 1, path)
      for k in 1..<schemas.count where k - 1 < stages.count {
        let diff = SchemaDiff(from: try Self.asClientSends(schemas[k - 1]), to: try Self.asClientSends(schemas[k]))
        var expected = diff.changes.filter { $0.kind == .renameEntity }.map {
          "// \($0.message): SwiftData keeps no objects across a class rename (see the class)"
        }
        let needsCare = diff.changes.filter { !$0.lightweight || $0.condition != nil }
        expected += needsCare.map { "// " + $0.message + ($0.condition.map { " (requires: \($0.text))" } ?? "") }
        expected.append(needsCare.isEmpty ? ".lightweight" : ".custom")
        XCTAssertEqual(stages[k - 1], expected, "\(path), step \(k)")
        // The renames the generated code declares (its originalName) are model.diff's.
        let declared = VersionPairing(previous: schemas[k - 1], current: schemas[k]).swiftDataSchema(schemas[k])
        let fromCode = SchemaDiff(from: VersionPairing.withoutRenames(schemas[k - 1]), to: declared).mapping.renames
        XCTAssertEqual(fromCode.map { "\($0)" }, diff.mapping.renames.map { "\($0)" }, "\(path), step \(k): renames")
        steps += 1
        renames += diff.mapping.renames.count
        // Renames Core Data pairs by renaming identifier (an element whose identifier is not
        // its previous name): the case SwiftData's originalName must not take literally.
        byIdentifier += diff.mapping.renames.filter { Self.pairedByIdentifier($0, in: schemas[k]) }.count
      }
    }
    XCTAssertEqual(uncovered, [], "multi-version bundles without a plan to compare")
    XCTAssertGreaterThan(steps, 0)
    XCTAssertGreaterThan(byIdentifier, 0, "no rename of a chain (identifier other than the previous name) was compared")
    print(
      "migration plans agree with model.diff: \(covered) multi-version bundles (and \(currentFirst) whose first version is the current one, without a plan), \(steps) steps, \(renames) renames "
        + "(\(byIdentifier) paired by a renaming identifier that is not the previous name)")
  }

  /// True when the renamed element's renaming identifier is not its previous name (a rename
  /// chain: Core Data pairs it by the identifier both versions carry).
  static func pairedByIdentifier(_ rename: (kind: String, entity: String, from: String, to: String), in schema: Schema) -> Bool {
    func differs(_ identifier: String?) -> Bool { identifier.map { $0 != rename.from } ?? false }
    switch rename.kind {
    case "entity": return differs(schema.entities.first { $0.name == rename.to }?.renamingIdentifier)
    case "attribute":
      return schema.entities.contains { $0.attributes.contains { $0.name == rename.to && differs($0.renamingIdentifier) } }
    default:
      return schema.entities.contains { $0.relationships.contains { $0.name == rename.to && differs($0.renamingIdentifier) } }
    }
  }

  /// A stage's lines: its comments, then `.lightweight` or `.custom`.
  static func stages(of plan: String) -> [[String]] {
    guard let start = plan.range(of: "static var stages") else { return [] }
    var out: [[String]] = []
    var current: [String] = []
    for line in plan[start.upperBound...].split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      if line.hasPrefix("// ") {
        current.append(line)
      } else if line.hasPrefix(".lightweight(") || line.hasPrefix(".custom(") {
        out.append(current + [line.hasPrefix(".lightweight(") ? ".lightweight" : ".custom"])
        current = []
      }
    }
    return out
  }

  /// `schema` as `model.diff` receives it from a client that sends the imported schema: its
  /// JSON, decoded and validated again.
  static func asClientSends(_ schema: Schema) throws -> Schema {
    let (decoded, issues) = SchemaValidator.check(schema.json)
    XCTAssertFalse(issues.contains { $0.severity == .error }, "\(issues)")
    return decoded
  }
}
