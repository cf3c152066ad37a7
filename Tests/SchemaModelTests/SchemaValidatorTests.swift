import JSONCore
import XCTest

@testable import SchemaModel

final class SchemaValidatorTests: XCTestCase {
  private var taskCategory: JSONValue {
    schema(
      entity(
        "Task", [attr("title", "string"), attr("done", "bool", default: false), attr("priority", "int16", default: 0, indexed: true)],
        relationships: [rel("category", "Category", inverse: "tasks")]),
      entity(
        "Category", [attr("name", "string", unique: true)],
        relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: "cascade")]))
  }

  func testValidSchemaHasNoIssues() {
    assertNoIssues(check(taskCategory))
  }

  // MARK: - Names

  func testInvalidEntityNames() throws {
    let issues = check(schema(entity("task"), entity("Bad Name"), entity("Sqlite_Stuff"), entity("9Lives"), entity("")))
    XCTAssertEqual(
      assertIssue(issues, "invalidName", at: "schema.entities[0].name")?.message, "entity name 'task' must start with an uppercase letter")
    XCTAssertTrue(try XCTUnwrap(assertIssue(issues, "invalidName", at: "schema.entities[1].name")).message.contains("is not an identifier"))
    XCTAssertTrue(try XCTUnwrap(assertIssue(issues, "invalidName", at: "schema.entities[2].name")).message.contains("reserved prefix 'sqlite_'"))
    assertIssue(issues, "invalidName", at: "schema.entities[3].name")
    assertIssue(issues, "invalidName", at: "schema.entities[4].name")
  }

  func testNameLengthLimit() {
    let ok = "A" + String(repeating: "b", count: 127)
    let tooLong = "A" + String(repeating: "b", count: 128)
    let issues = check(schema(entity(ok), entity(tooLong)))
    XCTAssertTrue(issues.allSatisfy { $0.path != "schema.entities[0].name" })
    assertIssue(issues, "invalidName", at: "schema.entities[1].name")
  }

  func testInvalidAndReservedPropertyNames() {
    let issues = check(
      schema(entity("A", [attr("Title", "string"), attr("description", "string"), attr("has-dash", "int"), attr("_x", "int"), attr("ok_1", "int")],
        relationships: [rel("objectID", "A", inverse: "objectID")])))
    XCTAssertEqual(
      assertIssue(issues, "invalidName", at: "schema.entities[0].attributes[0].name")?.message,
      "property name 'Title' must start with a lowercase letter")
    let reserved = assertIssue(issues, "invalidName", at: "schema.entities[0].attributes[1].name")
    XCTAssertEqual(reserved?.message, "'description' is reserved (it clashes with a Core Data / SwiftData member)")
    XCTAssertEqual(reserved?.property, "description")
    assertIssue(issues, "invalidName", at: "schema.entities[0].attributes[2].name")
    assertIssue(issues, "invalidName", at: "schema.entities[0].attributes[3].name")
    XCTAssertTrue(issues.allSatisfy { $0.path != "schema.entities[0].attributes[4].name" })
    assertIssue(issues, "invalidName", at: "schema.entities[0].relationships[0].name")
  }

  func testInjectionShapedNamesAreInvalid() {
    let issues = check(schema(entity("T\"; DROP TABLE x; --", [attr("a\" TEXT); --", "string")])))
    assertIssue(issues, "invalidName", at: "schema.entities[0].name")
    assertIssue(issues, "invalidName", at: "schema.entities[0].attributes[0].name")
  }

  func testDuplicateNames() {
    let issues = check(
      schema(
        entity("A", [attr("x", "int"), attr("x", "string")], relationships: [rel("x", "B")]),
        entity("B"), entity("B")))
    XCTAssertEqual(assertIssue(issues, "duplicateName", at: "schema.entities[2].name")?.message, "entity 'B' is defined twice")
    XCTAssertEqual(
      assertIssue(issues, "duplicateName", at: "schema.entities[0].attributes[1].name")?.message, "'x' is defined twice in entity 'A'")
    assertIssue(issues, "duplicateName", at: "schema.entities[0].relationships[0].name")
  }

  func testDuplicateOfAnInheritedName() {
    let issues = check(
      schema(
        entity("Base", [attr("name", "string")], relationships: [rel("owner", "Base")]),
        entity("Mid", parent: "Base", [attr("mid", "int")]),
        entity("Leaf", parent: "Mid", [attr("name", "string"), attr("mid", "int")], relationships: [rel("owner", "Base")])))
    XCTAssertEqual(
      assertIssue(issues, "duplicateName", at: "schema.entities[2].attributes[0].name")?.message,
      "'name' is already defined by parent entity 'Base'")
    XCTAssertEqual(
      assertIssue(issues, "duplicateName", at: "schema.entities[2].attributes[1].name")?.message, "'mid' is already defined by parent entity 'Mid'")
    assertIssue(issues, "duplicateName", at: "schema.entities[2].relationships[0].name")
  }

  func testSiblingsMayShareAPropertyName() {
    let issues = check(
      schema(entity("Base"), entity("A", parent: "Base", [attr("code", "string")]), entity("B", parent: "Base", [attr("code", "string")])))
    XCTAssertFalse(issues.contains { $0.code == "duplicateName" })
  }

  func testNamesDifferingOnlyInCase() {
    let issues = check(schema(entity("Task", [attr("isDone", "bool"), attr("isdone", "bool")]), entity("TASK")))
    XCTAssertEqual(
      assertIssue(issues, "duplicateName", at: "schema.entities[1].name")?.message, "entity 'TASK' differs from 'Task' only in letter case")
    XCTAssertEqual(
      assertIssue(issues, "duplicateName", at: "schema.entities[0].attributes[1].name")?.message,
      "'isdone' differs from 'isDone' only in letter case")
  }

  func testSiblingColumnsMustAgree() {
    let issues = check(
      schema(
        entity("Item", [attr("label", "string")]),
        entity("Book", parent: "Item", [attr("code", "string", optional: true), attr("myCode", "int", optional: true)]),
        entity(
          "Part", parent: "Item", [attr("code", "int", optional: true), attr("mycode", "int", optional: true)],
          relationships: [rel("ref", "Item")]),
        entity("Tool", parent: "Item", [attr("ref", "string", optional: true), attr("code", "string", optional: true)])))
    let conflict = assertIssue(issues, "conflictingColumn", at: "schema.entities[2].attributes[0].name")
    XCTAssertEqual(conflict?.message, "'code' is stored as INTEGER here but as TEXT in 'Book', which shares the table of 'Item'")
    XCTAssertEqual(conflict?.entity, "Part")
    XCTAssertEqual(
      assertIssue(issues, "duplicateName", at: "schema.entities[2].attributes[1].name")?.message,
      "'mycode' differs from 'Book.myCode' only in letter case; entities of one hierarchy share a table")
    assertIssue(issues, "conflictingColumn", at: "schema.entities[3].attributes[0].name")
    XCTAssertFalse(issues.contains { $0.path == "schema.entities[3].attributes[1].name" }, "same name, same storage: shared")
  }

  func testPathsPointIntoTheSubmittedDocumentWhenItemsAreSkipped() {
    // The first entity and the first attribute cannot be decoded; later issues keep their own index.
    let issues = check(
      json(#"{"entities":[{"attributes":[]},{"name":"bad","attributes":[{"name":"x"},{"name":"Y","type":"int"}]}]}"#))
    assertIssue(issues, "missingMember", at: "schema.entities[0].name")
    assertIssue(issues, "missingMember", at: "schema.entities[1].attributes[0].type")
    assertIssue(issues, "invalidName", at: "schema.entities[1].name")
    assertIssue(issues, "invalidName", at: "schema.entities[1].attributes[1].name")
  }

  // MARK: - Inheritance

  func testUnknownParent() {
    let issues = check(schema(entity("A", parent: "Nope")))
    XCTAssertEqual(
      assertIssue(issues, "unknownParent", at: "schema.entities[0].parent")?.message, "parent entity 'Nope' of 'A' is not defined")
  }

  func testInheritanceCycle() {
    let issues = check(schema(entity("A", parent: "B"), entity("B", parent: "A"), entity("C", parent: "C")))
    assertIssue(issues, "inheritanceCycle", at: "schema.entities[0].parent")
    assertIssue(issues, "inheritanceCycle", at: "schema.entities[1].parent")
    assertIssue(issues, "inheritanceCycle", at: "schema.entities[2].parent")
  }

  func testAbstractWithoutSubentitiesWarns() {
    let issues = check(schema(entity("Lonely", abstract: true, [attr("a", "int")]), entity("Base", abstract: true), entity("Sub", parent: "Base")))
    assertNoErrors(issues)
    assertIssue(issues, "abstractWithoutSubentities", at: "schema.entities[0].abstract", severity: .warning)
    XCTAssertFalse(issues.contains { $0.path == "schema.entities[1].abstract" })
  }

  // MARK: - Relationships

  func testUnknownDestination() {
    let issues = check(schema(entity("A", relationships: [rel("b", "Ghost")])))
    XCTAssertEqual(
      assertIssue(issues, "unknownDestination", at: "schema.entities[0].relationships[0].destination")?.message,
      "destination entity 'Ghost' of 'A.b' is not defined")
  }

  func testUnknownInverse() {
    let issues = check(schema(entity("A", relationships: [rel("b", "B", inverse: "nope")]), entity("B")))
    XCTAssertEqual(
      assertIssue(issues, "unknownInverse", at: "schema.entities[0].relationships[0].inverse")?.message,
      "inverse 'nope' is not a relationship of 'B'")
  }

  func testInverseDeclaredOnDestinationParentIsFound() {
    let issues = check(
      schema(
        entity("Owner", relationships: [rel("things", "Thing", inverse: "owner", toMany: true)]),
        entity("Base", relationships: [rel("owner", "Owner", inverse: "things")]),
        entity("Thing", parent: "Base")))
    // Owner.things -> Thing, whose inverse 'owner' is inherited from Base.
    XCTAssertFalse(issues.contains { $0.code == "unknownInverse" }, "\(issues)")
  }

  func testInverseMismatchPointsElsewhere() {
    let issues = check(
      schema(
        entity("A", relationships: [rel("b", "B", inverse: "c")]),
        entity("B", relationships: [rel("c", "C", inverse: "b")]),
        entity("C", relationships: [rel("b", "B", inverse: "c")])))
    XCTAssertEqual(
      assertIssue(issues, "inverseMismatch", at: "schema.entities[0].relationships[0].inverse")?.message,
      "inverse 'B.c' points to 'C', not to 'A'")
  }

  func testInverseMismatchNamesAnother() {
    let issues = check(
      schema(
        entity("A", relationships: [rel("b", "B", inverse: "a"), rel("b2", "B", inverse: "a")]),
        entity("B", relationships: [rel("a", "A", inverse: "b")])))
    XCTAssertFalse(issues.contains { $0.path == "schema.entities[0].relationships[0].inverse" })
    XCTAssertEqual(
      assertIssue(issues, "inverseMismatch", at: "schema.entities[0].relationships[1].inverse")?.message,
      "inverse 'B.a' names 'b' as its inverse, not 'b2'")
  }

  func testInverseMismatchOneSided() {
    let issues = check(schema(entity("A", relationships: [rel("b", "B", inverse: "a")]), entity("B", relationships: [rel("a", "A")])))
    XCTAssertEqual(
      assertIssue(issues, "inverseMismatch", at: "schema.entities[0].relationships[0].inverse")?.message,
      "'B.a' must name 'b' as its inverse too")
    assertIssue(issues, "missingInverse", at: "schema.entities[1].relationships[0]", severity: .warning)
  }

  func testMissingInverseIsAWarning() {
    let issues = check(schema(entity("A", relationships: [rel("b", "B", toMany: true)]), entity("B")))
    assertNoErrors(issues)
    let w = assertIssue(issues, "missingInverse", at: "schema.entities[0].relationships[0]", severity: .warning)
    XCTAssertEqual(w?.property, "b")
  }

  func testOrderedToOneAndCountsOnToOne() {
    let issues = check(
      schema(
        entity("A", relationships: [rel("b", "A", inverse: "b", ordered: true), rel("c", "A", inverse: "c", min: 1), rel("d", "A", inverse: "d", max: 2)])))
    assertIssue(issues, "orderedToOne", at: "schema.entities[0].relationships[0].ordered")
    XCTAssertEqual(
      assertIssue(issues, "countOnToOne", at: "schema.entities[0].relationships[1]")?.message,
      "min/max counts apply to to-many relationships; use 'optional' for to-one")
    assertIssue(issues, "countOnToOne", at: "schema.entities[0].relationships[2]")
  }

  func testMinGreaterThanMax() {
    let issues = check(
      schema(
        entity(
          "A",
          relationships: [
            rel("b", "A", inverse: "c", toMany: true, min: 5, max: 2), rel("c", "A", inverse: "b", toMany: true),
            rel("d", "A", inverse: "e", toMany: true, min: 5, max: 0), rel("e", "A", inverse: "d", toMany: true),
          ])))
    XCTAssertEqual(assertIssue(issues, "badCount", at: "schema.entities[0].relationships[0].min")?.message, "min (5) is greater than max (2)")
    XCTAssertFalse(issues.contains { $0.path.hasPrefix("schema.entities[0].relationships[2]") }, "max 0 means unbounded")
  }

  // MARK: - Defaults

  func testBadDefaultsPerType() {
    let cases: [(String, JSONValue)] = [
      ("string", .int(5)), ("int", .string("abc")), ("int16", .int(40000)), ("int32", .int(3_000_000_000)), ("int64", .double(1.5)),
      ("double", .string("1.0")), ("float", .bool(true)), ("decimal", .string("1.2.3")), ("bool", .int(1)),
      ("date", .string("2023-02-29")), ("uuid", .string("not-a-uuid")), ("data", .string("abc")), ("url", .string("has space")),
    ]
    let attrs = cases.enumerated().map { attr("a\($0.offset)", $0.element.0, default: $0.element.1) }
    let issues = check(schema(entity("A", attrs)))
    for i in cases.indices {
      let issue = assertIssue(issues, "badDefault", at: "schema.entities[0].attributes[\(i)].default")
      XCTAssertEqual(issue?.property, "a\(i)")
      XCTAssertEqual(issue?.message.hasPrefix("default of 'a\(i)': expected "), true, issue?.message ?? "")
    }
    XCTAssertEqual(issues.count, cases.count)
  }

  func testGoodDefaultsPerType() {
    let cases: [(String, JSONValue)] = [
      ("string", "x"), ("int", 5), ("int16", -32768), ("int32", 2_147_483_647), ("int64", .int(Int64.max)), ("double", 1.5),
      ("double", 2), ("float", 0.5), ("decimal", "12.50"), ("decimal", 3), ("bool", true), ("date", "2024-02-29T12:00:00Z"),
      ("uuid", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"), ("data", "Zm9v"), ("url", "https://example.com/a?b=c"),
      ("json", ["any": [1, "thing"]]), ("json", "text"),
    ]
    let attrs = cases.enumerated().map { attr("a\($0.offset)", $0.element.0, default: $0.element.1) }
    assertNoIssues(check(schema(entity("A", attrs))))
  }

  func testGeneratorTypeMismatch() {
    let gUUID = json(#"{"generate":"uuid"}"#)
    let gNow = json(#"{"generate":"now"}"#)
    let issues = check(
      schema(
        entity(
          "A",
          [
            attr("a", "uuid", default: gUUID), attr("b", "string", default: gUUID), attr("c", "date", default: gNow),
            attr("d", "int", default: gUUID), attr("e", "string", default: gNow), attr("f", "data", default: gNow),
          ])))
    XCTAssertEqual(
      assertIssue(issues, "badDefault", at: "schema.entities[0].attributes[3].default")?.message,
      "generator 'uuid' cannot produce a value of type int")
    XCTAssertEqual(
      assertIssue(issues, "badDefault", at: "schema.entities[0].attributes[4].default")?.message,
      "generator 'now' cannot produce a value of type string")
    assertIssue(issues, "badDefault", at: "schema.entities[0].attributes[5].default")
    XCTAssertEqual(issues.count, 3)
  }

  // MARK: - Transient

  func testTransientRules() {
    let issues = check(
      schema(
        entity(
          "A",
          [
            attr("a", "string", optional: true, unique: true, transient: true),
            attr("b", "string", optional: true, indexed: true, transient: true),
            attr("c", "string", transient: true),
            attr("d", "string", default: "x", transient: true),
            attr("e", "string", optional: true, transient: true),
          ], indexes: [["e"]])))
    assertIssue(issues, "transientConstraint", at: "schema.entities[0].attributes[0]")
    assertIssue(issues, "transientConstraint", at: "schema.entities[0].attributes[1]")
    XCTAssertEqual(
      assertIssue(issues, "transientWithoutDefault", at: "schema.entities[0].attributes[2]")?.message,
      "transient attribute 'c' must be optional or have a default")
    assertIssue(issues, "transientConstraint", at: "schema.entities[0].indexes[0][0]")
    XCTAssertFalse(issues.contains { $0.path.hasPrefix("schema.entities[0].attributes[3]") })
    XCTAssertFalse(issues.contains { $0.path.hasPrefix("schema.entities[0].attributes[4]") })
  }

  // MARK: - Key lists

  func testUnknownKeysInIndexesAndUniqueness() {
    let issues = check(
      schema(
        entity(
          "A", [attr("a", "int"), attr("b", "int")], relationships: [rel("tags", "A", inverse: "tags", toMany: true), rel("one", "A", inverse: "one")],
          indexes: [["a", "nope"], ["one"]], uniqueness: [["b", "tags"], ["a", "a"]])))
    XCTAssertEqual(
      assertIssue(issues, "unknownKey", at: "schema.entities[0].indexes[0][1]")?.message, "'nope' is not an attribute or to-one relationship of 'A'")
    XCTAssertFalse(issues.contains { $0.path == "schema.entities[0].indexes[1][0]" }, "to-one keys are allowed")
    XCTAssertEqual(
      assertIssue(issues, "unknownKey", at: "schema.entities[0].uniqueness[0][1]")?.message,
      "to-many relationship 'tags' cannot be part of uniqueness")
    assertIssue(issues, "duplicateKey", at: "schema.entities[0].uniqueness[1][1]")
  }

  func testKeyListsMayUseInheritedKeys() {
    let issues = check(schema(entity("Base", [attr("code", "string")]), entity("Sub", parent: "Base", [attr("n", "int")], uniqueness: [["code", "n"]])))
    assertNoIssues(issues)
  }

  // MARK: - Everything at once

  func testAllIssuesReportedTogether() {
    let issues = check(
      schema(entity("a", [attr("X", "string", default: 1)], relationships: [rel("r", "Nowhere")]), entity("B", parent: "Missing")))
    let codes = Set(issues.map(\.code))
    XCTAssertEqual(codes, ["invalidName", "badDefault", "unknownDestination", "unknownParent"])
  }

  func testDecoderIssuesComeFirst() {
    let (_, issues) = SchemaValidator.check(json(#"{"entities":[{"name":"a","bogus":1}]}"#))
    XCTAssertEqual(issues.map(\.code), ["unknownMember", "invalidName"])
  }
}
