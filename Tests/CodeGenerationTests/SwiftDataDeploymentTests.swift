import CoreDataTooling
import XCTest

@testable import CodeGeneration

/// Issue #16, cause 7: the SwiftData code compiles for the deployment target it implies. Each
/// test builds a small model that shows one mechanism, checks the generated text, type-checks
/// it (`SwiftDataTypeChecker`) and, where the fault was a missing mark, shows the checker
/// refusing the code without it.
final class SwiftDataDeploymentTests: XCTestCase {
  static let mark26 = "@available(iOS 26, macOS 26, tvOS 26, watchOS 26, visionOS 26, *)"
  static let mark18 = "@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)"

  static let garage = """
    <entity name="Garage">
        <attribute name="name" optional="YES" attributeType="String"/>
        <relationship name="cars" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Car" inverseName="garage" inverseEntity="Car"/>
    </entity>
    <entity name="Note">
        <attribute name="text" optional="YES" attributeType="String"/>
    </entity>
    """
  static let vehicles = """
    <entity name="Vehicle" isAbstract="YES">
        <attribute name="wheels" attributeType="Integer 16" defaultValueString="4" usesScalarValueType="YES"/>
    </entity>
    <entity name="Car" parentEntity="Vehicle">
        <attribute name="plate" optional="YES" attributeType="String"/>
        <relationship name="garage" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Garage" inverseName="cars" inverseEntity="Garage"/>
    </entity>
    """

  /// Classes of an inheritance tree need SwiftData 26, and so does every class naming one (a
  /// stored property cannot be marked): `Garage` has a relationship to `Car`. `Note` names
  /// nothing marked and stays available from SwiftData's first release.
  func testInheritanceMarksEveryClassThatNamesTheTree() throws {
    let files = try ModelFixture.swiftData(Self.garage + Self.vehicles)
    for name in ["Vehicle", "Car", "Garage"] {
      XCTAssertTrue(ModelFixture.file(files, "\(name).swift").contains("\(Self.mark26)\n@Model\n"), name)
    }
    XCTAssertTrue(ModelFixture.file(files, "Garage.swift").contains("/// Needs iOS 26 / macOS 26: it names Car, which needs it.\n"))
    XCTAssertFalse(ModelFixture.file(files, "Note.swift").contains("@available("))
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
    let unmarked = ModelFixture.editing(files, "Garage.swift", Self.mark26 + "\n", "")
    XCTAssertTrue(
      try ModelFixture.typeCheckErrors(unmarked).contains { $0.contains("'Car' is only available in SwiftData26") },
      "the checker refuses a class that names a marked one without the mark")
  }

  /// In a bundle the version whose classes need 26 is marked as a whole (its `models` lists
  /// them), and so are the migration plan (its `schemas` and stages name it) and the current
  /// version's typealiases; the version before, without inheritance, is not.
  func testVersionedSchemaPlanAndTypealiasesCarryTheMark() throws {
    let first = """
      <entity name="Garage"><attribute name="name" optional="YES" attributeType="String"/></entity>
      <entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>
      """
    let path = try ModelFixture.bundle("Fleet", [("Fleet", first), ("Fleet 2", Self.garage + Self.vehicles)], in: self)
    let files = try CoreDataModelImporter.importModel(at: path).generate(.swiftdata).files
    XCTAssertEqual(files.map(\.name), ["FleetSchemaV1.swift", "FleetSchemaV2.swift", "FleetMigrationPlan.swift"])
    XCTAssertFalse(files[0].text.contains("@available("), files[0].text)
    XCTAssertTrue(files[1].text.contains("\(Self.mark26)\nenum FleetSchemaV2: VersionedSchema {"), files[1].text)
    XCTAssertTrue(files[1].text.contains("\(Self.mark26)\ntypealias Car = FleetSchemaV2.Car\n"), files[1].text)
    XCTAssertTrue(files[1].text.contains("\(Self.mark26)\ntypealias Note = FleetSchemaV2.Note\n"), files[1].text)
    XCTAssertTrue(files[2].text.contains("\(Self.mark26)\nenum FleetMigrationPlan: SchemaMigrationPlan {"), files[2].text)
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
    let unmarkedPlan = ModelFixture.editing(files, "FleetMigrationPlan.swift", Self.mark26 + "\n", "")
    XCTAssertTrue(
      try ModelFixture.typeCheckErrors(unmarkedPlan).contains { $0.contains("'FleetSchemaV2' is only available in SwiftData26") })
  }

  /// Single-key uniqueness on an attribute of the class is `@Attribute(.unique)` (SwiftData
  /// 17); a compound one needs `#Unique` and an index `#Index` (18), which mark the class.
  func testUniquenessAndIndexesNeedOnlyWhatTheyUse() throws {
    let files = try ModelFixture.swiftData(
      """
      <entity name="Tag">
          <attribute name="name" attributeType="String"/>
          <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
      </entity>
      <entity name="Person">
          <attribute name="email" attributeType="String"/>
          <attribute name="first" attributeType="String"/>
          <attribute name="last" attributeType="String"/>
          <uniquenessConstraints>
              <uniquenessConstraint><constraint value="email"/></uniquenessConstraint>
              <uniquenessConstraint><constraint value="first"/><constraint value="last"/></uniquenessConstraint>
          </uniquenessConstraints>
          <fetchIndex name="byLast"><fetchIndexElement property="last" type="Binary" order="ascending"/></fetchIndex>
      </entity>
      """)
    let tag = ModelFixture.file(files, "Tag.swift")
    XCTAssertTrue(tag.contains("@Model\nfinal class Tag {\n  @Attribute(.unique)\n  var name: String\n"), tag)
    XCTAssertFalse(tag.contains("@available(") || tag.contains("#Unique"), tag)
    let person = ModelFixture.file(files, "Person.swift")
    XCTAssertTrue(person.contains("/// Needs iOS 18 / macOS 15: it uses #Unique and #Index.\n\(Self.mark18)\n@Model\n"), person)
    XCTAssertTrue(person.contains("  #Unique<Person>([\\.first, \\.last])\n  #Index<Person>([\\.last])\n"), person)
    XCTAssertTrue(person.contains("  @Attribute(.unique)\n  var email: String\n"), person)
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
    let unmarked = ModelFixture.editing(files, "Person.swift", Self.mark18 + "\n", "")
    XCTAssertTrue(try ModelFixture.typeCheckErrors(unmarked).contains { $0.contains("'Unique' is only available in SwiftData18") })
  }

  /// A transformable keeps the class the model declares, with its transformer; with none named,
  /// the secure form of Core Data's default; a class name that is no Swift type becomes NSObject
  /// with a note. Types the code does not declare are listed in the header.
  func testTransformablesKeepTheirType() throws {
    let files = try ModelFixture.swiftData(
      """
      <entity name="Palette">
          <attribute name="color" optional="YES" attributeType="Transformable" valueTransformerName="ColorTransformer" customClassName="UIColor"/>
          <attribute name="names" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
          <attribute name="weights" optional="YES" attributeType="Transformable" customClassName="Dictionary&lt;String, Double&gt;"/>
          <attribute name="legacy" optional="YES" attributeType="Transformable" customClassName="MyApp."/>
      </entity>
      """)
    let palette = ModelFixture.file(files, "Palette.swift")
    XCTAssertTrue(palette.contains("// Types from your app or the SDK: UIColor.\n"), palette)
    XCTAssertTrue(palette.contains("  @Attribute(.transformable(by: \"ColorTransformer\"))\n  var color: UIColor? = nil\n"), palette)
    XCTAssertTrue(
      palette.contains("  @Attribute(.transformable(by: \"NSSecureUnarchiveFromData\"))\n  var names: [String]? = nil\n"), palette)
    XCTAssertTrue(
      palette.contains(
        "NSSecureUnarchiveFromData reads the same archives.\n  @Attribute(.transformable(by: \"NSSecureUnarchiveFromData\"))\n  var weights: Dictionary<String, Double>? = nil\n"
      ),
      palette)
    XCTAssertTrue(
      palette.contains("  /// The model's value class 'MyApp.' is not a Swift type: NSObject stands in for it.\n"), palette)
    XCTAssertTrue(palette.contains("  var legacy: NSObject? = nil\n"), palette)
    XCTAssertFalse(palette.contains("Data?"), "no transformable is left as Data: \(palette)")
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
  }

  /// Composite attributes become Codable structs from the model's `<composite>` definitions
  /// (a composite field of composite type included), in their own files.
  func testCompositesBecomeCodableStructs() throws {
    let files = try ModelFixture.swiftData(
      """
      <entity name="Shop">
          <attribute name="name" attributeType="String"/>
          <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
      </entity>
      <composite name="Address">
          <attribute name="street" optional="YES" attributeType="String"/>
          <attribute name="city" attributeType="String"/>
          <attribute name="location" optional="YES" attributeType="Composite" composite="Point"/>
      </composite>
      <composite name="Point">
          <attribute name="latitude" attributeType="Double"/>
          <attribute name="longitude" attributeType="Double"/>
      </composite>
      """)
    XCTAssertEqual(files.map(\.name), ["Shop.swift", "Address.swift", "Point.swift"])
    XCTAssertTrue(ModelFixture.file(files, "Shop.swift").contains("  var address: Address? = nil\n"))
    XCTAssertTrue(
      ModelFixture.file(files, "Address.swift").contains(
        "struct Address: Codable, Hashable {\n  var street: String?\n  var city: String\n  var location: Point?\n}\n"))
    XCTAssertTrue(
      ModelFixture.file(files, "Point.swift").contains(
        "struct Point: Codable, Hashable {\n  var latitude: Double\n  var longitude: Double\n}\n"))
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
  }

  static let lists = """
    <entity name="List">
        <attribute name="title" optional="YES" attributeType="String"/>
        <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="list" inverseEntity="Item"/>
    </entity>
    <entity name="Item">
        <relationship name="list" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="List" inverseName="items" inverseEntity="List"/>
    </entity>
    """

  /// A model used with CloudKit gets optional to-many relationships (CloudKit needs them).
  func testCloudKitModelsGetOptionalToManyRelationships() throws {
    let synced = try ModelFixture.swiftData(Self.lists, cloudKit: true)
    XCTAssertTrue(
      ModelFixture.file(synced, "List.swift").contains(
        "  /// Optional: the model is used with CloudKit, which needs optional to-many relationships.\n"
          + "  @Relationship(deleteRule: .cascade, inverse: \\Item.list)\n  var items: [Item]? = []\n"))
    XCTAssertEqual(try ModelFixture.typeCheckErrors(synced), [])
    let local = try ModelFixture.swiftData(Self.lists)
    XCTAssertTrue(ModelFixture.file(local, "List.swift").contains("  var items: [Item] = []\n"))
  }

  /// The inverse key path must name a property of the destination that holds the class: the
  /// checker refuses one of another type or one that does not exist.
  func testTheCheckerRefusesAWrongInverse() throws {
    let files = try ModelFixture.swiftData(
      Self.lists.replacingOccurrences(
        of: "<entity name=\"Item\">",
        with:
          "<entity name=\"Item\">\n<attribute name=\"rank\" attributeType=\"Integer 32\" defaultValueString=\"0\" usesScalarValueType=\"YES\"/>"
      ))
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
    let wrongType = ModelFixture.editing(files, "List.swift", "inverse: \\Item.list", "inverse: \\Item.rank")
    XCTAssertTrue(try ModelFixture.typeCheckErrors(wrongType).contains { $0.contains("cannot convert value of type 'Int32'") })
    let missing = ModelFixture.editing(files, "List.swift", "inverse: \\Item.list", "inverse: \\Item.lists")
    XCTAssertTrue(try ModelFixture.typeCheckErrors(missing).contains { $0.contains("has no member 'lists'") })
  }

  /// A relationship that is its own inverse gets no `inverse:` (naming a property's own key
  /// path in its macro is a cycle the compiler refuses), with a note.
  func testASelfInverseRelationshipNamesNoInverse() throws {
    let files = try ModelFixture.swiftData(
      """
      <entity name="Person">
          <relationship name="friends" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>
      </entity>
      """)
    let person = ModelFixture.file(files, "Person.swift")
    XCTAssertTrue(
      person.contains(
        "  /// Its own inverse in Core Data; SwiftData cannot name a property's own key path as its inverse.\n"
          + "  @Relationship(deleteRule: .nullify)\n  var friends: [Person] = []\n"), person)
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
    let cyclic = ModelFixture.editing(
      files, "Person.swift", "@Relationship(deleteRule: .nullify)", "@Relationship(deleteRule: .nullify, inverse: \\Person.friends)")
    XCTAssertTrue(try ModelFixture.typeCheckErrors(cyclic).contains { $0.contains("circular reference") })
  }

  /// An integer default of a Decimal is a literal; a fraction goes through `Decimal(string:)`
  /// (a float literal would go through Double), and so does an integer beyond 32 bits
  /// (Decimal's integer literals are `Int`, 32 bits on watchOS).
  func testDecimalDefaultsUseALiteralWhereOneIsExact() throws {
    let files = try ModelFixture.swiftData(
      """
      <entity name="Price">
          <attribute name="zero" attributeType="Decimal" defaultValueString="0"/>
          <attribute name="negative" attributeType="Decimal" defaultValueString="-12"/>
          <attribute name="cents" attributeType="Decimal" defaultValueString="12.50"/>
          <attribute name="large" attributeType="Decimal" defaultValueString="3000000000"/>
      </entity>
      """)
    let price = ModelFixture.file(files, "Price.swift")
    XCTAssertTrue(price.contains("  var zero: Decimal = 0\n"), price)
    XCTAssertTrue(price.contains("  var negative: Decimal = -12\n"), price)
    XCTAssertTrue(price.contains("  var cents: Decimal = Decimal(string: \"12.5\")!\n"), price)
    XCTAssertTrue(price.contains("  var large: Decimal = Decimal(string: \"3000000000\")!\n"), price)
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
  }

  /// An entity named like a type the code uses (`Date`, `Schema`) would shadow it: the code
  /// then writes that type with its module.
  func testSystemTypesAreQualifiedWhereAnEntityShadowsThem() throws {
    let body = """
      <entity name="Date">
          <attribute name="day" attributeType="Date" defaultValueString="now"/>
          <attribute name="label" optional="YES" attributeType="String"/>
      </entity>
      <entity name="Schema">
          <attribute name="version" optional="YES" attributeType="String"/>
      </entity>
      """
    let path = try ModelFixture.bundle("Calendar", [("Calendar", body), ("Calendar 2", body)], in: self)
    let files = try CoreDataModelImporter.importModel(at: path).generate(.swiftdata).files
    let v2 = ModelFixture.file(files, "CalendarSchemaV2.swift")
    XCTAssertTrue(v2.contains("  var day: Foundation.Date = Foundation.Date.now\n"), v2)
    XCTAssertTrue(v2.contains("  var label: String? = nil\n"), v2)
    XCTAssertTrue(v2.contains("static var versionIdentifier: SwiftData.Schema.Version { SwiftData.Schema.Version(2, 0, 0) }"), v2)
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
  }
}
