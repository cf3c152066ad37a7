import CoreDataTooling
import JSONCore
import XCTest

/// The `typeNameClash` finding names the module of the type the entity shadows, so that its
/// advice compiles: `SwiftUI.Image`, `Foundation.Data`, `Swift.Task` (issue #16, cause 7).
final class TypeNameClashAdviceTests: XCTestCase {
  func testTheAdviceQualifiesTheShadowedTypeWithItsModule() throws {
    let schema: JSONValue = ["entities": [["name": "Image"], ["name": "Data"], ["name": "Task"], ["name": "Query"], ["name": "Event"]]]
    let findings = try ImportedModel.fromSchema(schema).audit().findings.filter { $0.code == "typeNameClash" }
    XCTAssertEqual(
      findings.map(\.action),
      [
        "rename the entity (e.g. 'ImageItem') or write the system type as SwiftUI.Image",
        "rename the entity (e.g. 'DataItem') or write the system type as Foundation.Data",
        "rename the entity (e.g. 'TaskItem') or write the system type as Swift.Task",
        "rename the entity (e.g. 'QueryItem') or write the system type as SwiftData.Query",
        "rename the entity (e.g. 'EventItem') or write the system type with its module",
      ])
    XCTAssertEqual(findings.first?.message, "a class named 'Image' shadows the SwiftUI type of that name")
  }
}
