import JSONCore
import XCTest

@testable import SchemaModel

final class SchemaDecoderTests: XCTestCase {
  func testDecodesEveryMember() throws {
    let text = #"""
      {"version":"2","entities":[
        {"name":"Item","parent":"Base","abstract":false,"originalName":"OldItem",
         "attributes":[
           {"name":"title","type":"string","optional":true,"default":"x","unique":true,"indexed":true,"transient":false,"originalName":"name"},
           {"name":"id","type":"uuid","default":{"generate":"uuid"}},
           {"name":"at","type":"date","default":{"generate":"now"}},
           {"name":"meta","type":"json","default":{"a":[1]}}],
         "relationships":[
           {"name":"owner","destination":"User","inverse":"items","toMany":false,"optional":false,"ordered":false,"deleteRule":"deny","originalName":"user"},
           {"name":"tags","destination":"Tag","toMany":true,"ordered":true,"deleteRule":"noAction","min":1,"max":5}],
         "indexes":[["title","owner"],"at"],
         "uniqueness":[["title"]]}]}
      """#
    let (s, issues) = SchemaDecoder.decode(json(text))
    assertNoIssues(issues)
    XCTAssertEqual(s.version, "2")
    let e = try XCTUnwrap(s.entity(named: "Item"))
    XCTAssertEqual(e.parent, "Base")
    XCTAssertEqual(e.originalName, "OldItem")
    XCTAssertEqual(
      e.attributes[0],
      Attribute(name: "title", type: .string, optional: true, defaultValue: .literal("x"), unique: true, indexed: true, originalName: "name"))
    XCTAssertEqual(e.attributes[1].defaultValue, .generate(.uuid))
    XCTAssertEqual(e.attributes[1].optional, false, "optional defaults to false")
    XCTAssertEqual(e.attributes[2].defaultValue, .generate(.now))
    XCTAssertEqual(e.attributes[3].defaultValue, .literal(.object(["a": [1]])), "an object default of a json attribute is a literal")
    XCTAssertEqual(
      e.relationships[0],
      Relationship(name: "owner", destination: "User", inverse: "items", optional: false, deleteRule: .deny, originalName: "user"))
    XCTAssertEqual(
      e.relationships[1],
      Relationship(name: "tags", destination: "Tag", toMany: true, optional: true, ordered: true, deleteRule: .noAction, minCount: 1, maxCount: 5))
    XCTAssertEqual(e.indexes, [["title", "owner"], ["at"]], "a bare string is a one-key list")
    XCTAssertEqual(e.uniqueness, [["title"]])
  }

  func testRelationshipDefaults() {
    let (s, issues) = SchemaDecoder.decode(schema(entity("A", relationships: [rel("b", "B")])))
    assertNoIssues(issues)
    let r = s.entities[0].relationships[0]
    XCTAssertEqual(r.optional, true)
    XCTAssertEqual(r.toMany, false)
    XCTAssertEqual(r.deleteRule, .nullify)
    XCTAssertNil(r.inverse)
  }

  func testVersionForms() {
    XCTAssertEqual(SchemaDecoder.decode(json(#"{"version":7,"entities":[]}"#)).0.version, "7")
    XCTAssertEqual(SchemaDecoder.decode(json(#"{"entities":[]}"#)).0.version, "1", "version defaults to 1")
    let (_, issues) = SchemaDecoder.decode(json(#"{"version":true,"entities":[]}"#))
    assertIssue(issues, "wrongType", at: "schema.version")
    assertIssue(SchemaDecoder.decode(json(#"{"version":"","entities":[]}"#)).1, "wrongType", at: "schema.version")
  }

  func testRootMustBeAnObject() {
    let (s, issues) = SchemaDecoder.decode(.array([]))
    XCTAssertEqual(s.entities, [])
    XCTAssertEqual(assertIssue(issues, "wrongType", at: "schema")?.message, "expected an object, got array")
  }

  func testCustomRootPath() {
    let (_, issues) = SchemaDecoder.decode(json(#"{"entities":[{"name":"A","x":1}]}"#), path: "params.schema")
    assertIssue(issues, "unknownMember", at: "params.schema.entities[0].x")
  }

  func testMissingAndWrongEntities() {
    assertIssue(SchemaDecoder.decode(json(#"{"version":"1"}"#)).1, "missingMember", at: "schema.entities")
    let wrong = assertIssue(SchemaDecoder.decode(json(#"{"entities":{}}"#)).1, "wrongType", at: "schema.entities")
    XCTAssertEqual(wrong?.message, "'entities' must be an array, got object")
    assertIssue(SchemaDecoder.decode(json(#"{"entities":[5]}"#)).1, "wrongType", at: "schema.entities[0]")
  }

  func testUnknownMembersAtEveryLevel() {
    let text = #"""
      {"version":"1","entitys":[],"entities":[
        {"name":"A","colour":"red","attributes":[{"name":"a","type":"int","nullable":true}],
         "relationships":[{"name":"r","destination":"A","inverse":"r","cascade":true}]}]}
      """#
    let issues = SchemaDecoder.decode(json(text)).1
    let top = assertIssue(issues, "unknownMember", at: "schema.entitys")
    XCTAssertEqual(top?.message, "unknown member 'entitys' (expected one of: entities, version)")
    XCTAssertEqual(assertIssue(issues, "unknownMember", at: "schema.entities[0].colour")?.entity, "A")
    let a = assertIssue(issues, "unknownMember", at: "schema.entities[0].attributes[0].nullable")
    XCTAssertEqual(a?.entity, "A")
    XCTAssertEqual(a?.property, "a")
    XCTAssertEqual(assertIssue(issues, "unknownMember", at: "schema.entities[0].relationships[0].cascade")?.property, "r")
    XCTAssertEqual(issues.count, 4)
  }

  func testWrongTypesWithExactPaths() {
    let text = #"""
      {"entities":[
        {"name":"A","abstract":"yes","parent":3,
         "attributes":[{"name":"a","type":"int","optional":"no","unique":1,"indexed":null,"transient":[]}],
         "relationships":[{"name":"r","destination":"A","toMany":"true","min":-1,"max":1.5,"inverse":false}],
         "indexes":{"a":1}}]}
      """#
    let issues = SchemaDecoder.decode(json(text)).1
    XCTAssertEqual(assertIssue(issues, "wrongType", at: "schema.entities[0].abstract")?.message, "'abstract' must be a boolean, got string")
    XCTAssertEqual(assertIssue(issues, "wrongType", at: "schema.entities[0].parent")?.message, "'parent' must be a string, got integer")
    assertIssue(issues, "wrongType", at: "schema.entities[0].attributes[0].optional")
    assertIssue(issues, "wrongType", at: "schema.entities[0].attributes[0].unique")
    assertIssue(issues, "wrongType", at: "schema.entities[0].attributes[0].transient")
    XCTAssertTrue(issues.allSatisfy { $0.path != "schema.entities[0].attributes[0].indexed" }, "null means absent")
    assertIssue(issues, "wrongType", at: "schema.entities[0].relationships[0].toMany")
    XCTAssertEqual(
      assertIssue(issues, "wrongType", at: "schema.entities[0].relationships[0].min")?.message, "'min' must be a non-negative integer")
    assertIssue(issues, "wrongType", at: "schema.entities[0].relationships[0].max")
    assertIssue(issues, "wrongType", at: "schema.entities[0].relationships[0].inverse")
    assertIssue(issues, "wrongType", at: "schema.entities[0].indexes")
  }

  func testMissingNamesAndTypes() {
    let text = #"""
      {"entities":[
        {"attributes":[]},
        {"name":"B","attributes":[{"type":"int"},{"name":"x"}],"relationships":[{"name":"r"}]}]}
      """#
    let (s, issues) = SchemaDecoder.decode(json(text))
    assertIssue(issues, "missingMember", at: "schema.entities[0].name")
    assertIssue(issues, "missingMember", at: "schema.entities[1].attributes[0].name")
    XCTAssertEqual(
      assertIssue(issues, "missingMember", at: "schema.entities[1].attributes[1].type")?.message, "missing required member 'type'")
    assertIssue(issues, "missingMember", at: "schema.entities[1].relationships[0].destination")
    XCTAssertEqual(s.entities.map(\.name), ["B"], "what could not be read is skipped")
    XCTAssertEqual(s.entities[0].attributes, [])
    XCTAssertEqual(s.entities[0].relationships, [])
  }

  func testUnknownAttributeType() throws {
    let issues = SchemaDecoder.decode(schema(entity("A", [attr("ok", "int"), attr("when", "datetime")]))).1
    let i = try XCTUnwrap(assertIssue(issues, "unknownType", at: "schema.entities[0].attributes[1].type"))
    XCTAssertEqual(i.entity, "A")
    XCTAssertEqual(i.property, "when")
    XCTAssertTrue(i.message.hasPrefix("unknown attribute type 'datetime' (expected one of: string int int16"), i.message)
    XCTAssertEqual(issues.count, 1)
  }

  func testEveryAttributeTypeIsKnown() {
    let attrs = AttributeType.allCases.map { attr("a\($0.rawValue)", $0.rawValue) }
    let (s, issues) = SchemaDecoder.decode(schema(entity("A", attrs)))
    assertNoIssues(issues)
    XCTAssertEqual(s.entities[0].attributes.map(\.type), AttributeType.allCases)
  }

  func testUnknownDeleteRule() {
    let issues = SchemaDecoder.decode(schema(entity("A", relationships: [rel("r", "A", deleteRule: "destroy")]))).1
    XCTAssertEqual(
      assertIssue(issues, "unknownDeleteRule", at: "schema.entities[0].relationships[0].deleteRule")?.message,
      "unknown delete rule 'destroy' (expected nullify, cascade, deny or noAction)")
  }

  func testBadGeneratedDefault() {
    let issues = SchemaDecoder.decode(schema(entity("A", [attr("a", "string", default: json(#"{"generate":"random"}"#))]))).1
    assertIssue(issues, "badDefault", at: "schema.entities[0].attributes[0].default")
    let extra = SchemaDecoder.decode(schema(entity("A", [attr("a", "uuid", default: json(#"{"generate":"uuid","x":1}"#))]))).1
    assertIssue(extra, "badDefault", at: "schema.entities[0].attributes[0].default")
  }

  func testKeyListProblems() {
    let text = #"{"entities":[{"name":"A","indexes":[[],[1,"a"],3],"uniqueness":[["a"]]}]}"#
    let (s, issues) = SchemaDecoder.decode(json(text))
    assertIssue(issues, "emptyKeyList", at: "schema.entities[0].indexes[0]")
    assertIssue(issues, "wrongType", at: "schema.entities[0].indexes[1][0]")
    assertIssue(issues, "wrongType", at: "schema.entities[0].indexes[2]")
    XCTAssertEqual(s.entities[0].indexes, [["a"]])
  }

  func testEncoderRoundTrip() throws {
    let original = schema(
      entity("Base", abstract: true, [attr("id", "uuid", default: json(#"{"generate":"uuid"}"#))]),
      entity(
        "Task", parent: "Base", [attr("title", "string", default: "x", unique: true), attr("meta", "json", optional: true)],
        relationships: [rel("tags", "Tag", inverse: "tasks", toMany: true, ordered: true, deleteRule: "cascade", min: 0, max: 3)],
        indexes: [["title"]], uniqueness: [["title", "meta"]]),
      entity("Tag", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "tags", toMany: true)]),
      version: "9")
    let (s, issues) = SchemaDecoder.decode(original)
    assertNoIssues(issues)
    let (again, issues2) = SchemaDecoder.decode(s.json)
    assertNoIssues(issues2)
    XCTAssertEqual(again, s, "model.get's JSON form decodes to the same schema")
    let encodedAttr = try XCTUnwrap(s.entities[1].attributes[0].json.objectValue)
    XCTAssertEqual(encodedAttr.keys, ["name", "type", "optional", "default", "unique", "indexed", "transient"])
  }

  func testIssueJSON() {
    let i = SchemaIssue(.warning, "missingInverse", "m", path: "p", entity: "E", property: "r")
    XCTAssertEqual(
      JSONWriter.encodeString(i.json), #"{"severity":"warning","code":"missingInverse","message":"m","path":"p","entity":"E","property":"r"}"#)
    XCTAssertEqual(i.description, "warning missingInverse at p: m")
  }
}
