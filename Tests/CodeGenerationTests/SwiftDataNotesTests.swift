import CoreDataTooling
import XCTest

@testable import CodeGeneration

/// What SwiftData cannot express appears as a comment at its place in the generated code
/// (issue #16, cause 7), not only among the import's warnings.
final class SwiftDataNotesTests: XCTestCase {
  static let model = """
    <entity name="Doc" elementID="Document">
        <attribute name="title" attributeType="String" minValueString="1" maxValueString="80"/>
        <attribute name="pages" attributeType="Integer 32" defaultValueString="1" usesScalarValueType="YES"/>
        <attribute name="titleLength" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="title.length"/>
        <fetchedProperty name="related" optional="YES">
            <fetchRequest name="fetchedPropertyFetchRequest" entity="Doc" predicateString="pages &gt; 3"/>
        </fetchedProperty>
    </entity>
    <entity name="Tag">
        <attribute name="name" optional="YES" attributeType="String"/>
    </entity>
    <fetchRequest name="longDocs" entity="Doc" predicateString="pages &gt; $minimum"/>
    <configuration name="Cloud"><memberEntity name="Doc"/></configuration>
    <configuration name="Local"><memberEntity name="Doc"/><memberEntity name="Tag"/></configuration>
    """

  func testWhatSwiftDataCannotExpressIsACommentAtItsPlace() throws {
    let files = try ModelFixture.swiftData(Self.model)
    let doc = ModelFixture.file(files, "Doc.swift")
    let lines = doc.split(separator: "\n").map(String.init)
    func line(_ prefix: String) -> Int? { lines.firstIndex { $0.hasPrefix(prefix) } }
    let model = try XCTUnwrap(line("@Model"))
    let title = try XCTUnwrap(line("  var title: String"))
    let pages = try XCTUnwrap(line("  var pages: Int32"))
    let initializer = try XCTUnwrap(line("  init("))

    // Above the class: its configurations and its entity's renaming identifier.
    let classDoc = lines[..<model].joined(separator: "\n")
    XCTAssertTrue(classDoc.contains("/// In the Core Data configurations 'Cloud', 'Local'."), classDoc)
    XCTAssertTrue(
      classDoc.contains(
        "/// Original name `Document` in the model (Core Data's renaming identifier): SwiftData's @Model takes no original name"), classDoc)
    XCTAssertTrue(
      ModelFixture.file(files, "Tag.swift").contains("/// In the Core Data configuration 'Local'."),
      ModelFixture.file(files, "Tag.swift"))

    // Above the property: its validation rules, each with the model file's line.
    let aboveTitle = lines[(model + 1)..<title].joined(separator: "\n")
    XCTAssertTrue(
      aboveTitle.contains("// Not expressible in SwiftData, from the model file (line 4): minimum '1' of 'Doc.title'"), aboveTitle)
    XCTAssertTrue(aboveTitle.contains("maximum '80' of 'Doc.title'"), aboveTitle)
    XCTAssertTrue(aboveTitle.contains("//   SwiftData has no validation rules: check the value in code before saving."), aboveTitle)
    XCTAssertFalse(lines[title..<pages].joined().contains("validation"), "nothing of title's above pages")

    // In the class, where the property would be: what it leaves out.
    let leftOut = lines[pages..<initializer].joined(separator: "\n")
    XCTAssertTrue(leftOut.contains("derived attribute 'Doc.titleLength' ('title.length')"), leftOut)
    XCTAssertTrue(leftOut.contains("fetched property 'Doc.related'"), leftOut)
    XCTAssertTrue(leftOut.contains("fetch request template 'longDocs' on 'Doc' with predicate 'pages > $minimum'"), leftOut)
    XCTAssertTrue(leftOut.contains("//   SwiftData has no fetch request templates: build a FetchDescriptor with a #Predicate."), leftOut)
    XCTAssertEqual(try ModelFixture.typeCheckErrors(files), [])
  }
}
