import JSONCore
import XCTest

@testable import SchemaModel

/// `SchemaDiff`'s classification of the changes between two schema versions.
final class SchemaDiffTests: XCTestCase {
  func testSchemaDiffClassifiesChanges() {
    let d = SchemaDiff(from: ModelGraphFixture.schema(Seeds.taskV1), to: ModelGraphFixture.schema(Seeds.appV2))
    XCTAssertEqual(d.changes.map(\.kind), [.renameAttribute, .addAttribute])
    XCTAssertTrue(d.isLightweight)
    let narrowing = SchemaDiff(
      from: ModelGraphFixture.schema(schema(entity("A", [attr("x", "int")]))),
      to: ModelGraphFixture.schema(schema(entity("A", [attr("x", "int16")]))))
    XCTAssertEqual(narrowing.changes.first?.condition, .valuesConvert(entity: "A", attribute: "x", from: .int, to: .int16))
  }
}

enum ModelGraphFixture {
  static func schema(_ json: JSONValue) -> Schema { SchemaValidator.check(json).0 }
}
