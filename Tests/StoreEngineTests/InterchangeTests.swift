import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

/// export.json / import.json at the engine level: lossless round trips, and imports that
/// fail with the record's position and leave the store as it was.
final class InterchangeTests: XCTestCase {
  // MARK: - Fixtures

  /// Every attribute type, every relationship kind, and an inheritance hierarchy.
  static let fullSchema = schema(
    entity(
      "Thing",
      [
        attr("code", "string", unique: true), attr("i", "int"), attr("i16", "int16"), attr("i32", "int32"), attr("i64", "int64"),
        attr("d", "double"), attr("f", "float"), attr("dec", "decimal"), attr("b", "bool"), attr("dt", "date"), attr("u", "uuid"),
        attr("bin", "data"), attr("link", "url"), attr("j", "json"), attr("opt", "string", optional: true),
        attr("note", "string", optional: true, transient: true),
      ],
      relationships: [
        rel("folder", "Folder", inverse: "things"), rel("pinnedIn", "Folder", inverse: "pinned"),
        rel("tags", "Tag", inverse: "things", toMany: true, ordered: true), rel("asset", "Asset"),
      ]),
    entity(
      "Folder", [attr("name", "string")],
      relationships: [
        rel("things", "Thing", inverse: "folder", toMany: true), rel("pinned", "Thing", inverse: "pinnedIn", toMany: true, ordered: true),
        rel("parent", "Folder", inverse: "children"), rel("children", "Folder", inverse: "parent", toMany: true),
        rel("assets", "Asset", toMany: true),
      ]),
    entity("Tag", [attr("name", "string", unique: true)], relationships: [rel("things", "Thing", inverse: "tags", toMany: true)]),
    entity(
      "Person", [attr("name", "string")],
      relationships: [rel("friends", "Person", inverse: "friends", toMany: true), rel("badge", "Badge", inverse: "holder")]),
    entity("Badge", [attr("number", "int")], relationships: [rel("holder", "Person", inverse: "badge")]),
    entity("Asset", abstract: true, [attr("title", "string")]),
    entity("Photo", parent: "Asset", [attr("width", "int")]),
    entity("Doc", parent: "Asset", [attr("pages", "int")]))

  /// A populated store whose keys have gaps (deleted objects) and whose orders differ
  /// from key order, so that a round trip must keep ids and orders, not rebuild them.
  func makeFullStore() throws -> Store {
    let s = try makeStore(Self.fullSchema)
    let photo = try s.add("Photo", ["title": "sunset", "width": 1920])
    let doomed = try s.add("Doc", ["title": "draft", "pages": 1])
    let doc = try s.add("Doc", ["title": "manual", "pages": 120])
    _ = try s.delete(id: doomed)
    let t1 = try s.add("Tag", ["name": "red"])
    let t2 = try s.add("Tag", ["name": "blue"])
    let t3 = try s.add("Tag", ["name": "green"])
    let root = try s.add("Folder", ["name": "root"])
    let sub = try s.add("Folder", ["name": "sub", "parent": .string(root), "assets": ids(doc, photo)])
    var things: [String] = []
    for n in 0..<4 {
      let o: JSONObject = [
        "code": .string("T\(n)"), "i": .int(Int64(n) - 2), "i16": -32768, "i32": 2_147_483_647, "i64": .int(Int64.min + Int64(n)),
        "d": .double(0.1 * Double(n + 1)), "f": 0.1, "dec": "-12345678901234567890.000100", "b": .bool(n % 2 == 0),
        "dt": "2026-03-01T09:30:00.1234+01:00", "u": "0f0e0d0c-0b0a-4908-8706-050403020100", "bin": "AAEC/w==",
        "link": "https://example.com/a?b=c", "j": ["a": [1, 2.5, "x", .null, ["deep": true]]],
        "opt": n == 1 ? .null : "line\nbreak \"quoted\" \u{1F600} é", "note": "transient", "folder": .string(n < 3 ? sub : root),
        "pinnedIn": n == 3 ? .null : .string(root), "asset": n == 0 ? .string(photo) : (n == 1 ? .string(doc) : .null),
      ]
      things.append(try s.add("Thing", o))
      if n == 1 {
        _ = try s.delete(
          id: try s.add(
            "Thing",
            [
              "code": "gone", "i": 0, "i16": 0, "i32": 0, "i64": 0, "d": 0, "f": 0,
              "dec": "0", "b": false, "dt": "2026-01-01", "u": "0f0e0d0c-0b0a-4908-8706-050403020100", "bin": "", "link": "x:y", "j": 1,
            ]))
      }
    }
    _ = try s.update(id: root, values: ["pinned": ids(things[2], things[0], things[1])])
    _ = try s.update(id: things[0], values: ["tags": ids(t3, t1)])
    _ = try s.update(id: things[1], values: ["tags": ids(t1, t2, t3)])
    _ = try s.update(id: t1, values: ["things": ids(things[1], things[0])])
    let ann = try s.add("Person", ["name": "Ann"])
    let bob = try s.add("Person", ["name": "Bob", "friends": ids(ann)])
    let cy = try s.add("Person", ["name": "Cy", "friends": ids(bob, ann)])
    _ = cy
    _ = try s.add("Badge", ["number": 7, "holder": .string(bob)])
    return s
  }

  func export(_ s: Store, _ layout: InterchangeFormat.Layout = .ndjson, entities: [String]? = nil, where text: String? = nil) throws
    -> String
  {
    let sink = MemorySink(limit: 1 << 24)
    var options = ExportOptions(entities: entities, layout: layout)
    options.predicate = try text.map { try PredicateParser.parse($0) }
    _ = try s.export(options, to: sink)
    return String(decoding: sink.bytes, as: UTF8.self)
  }

  func totalObjects(_ s: Store) throws -> Int { try s.entityCounts().reduce(0) { $0 + $1.count } }

  // MARK: - Round trips

  func testRoundTripIsByteIdenticalInBothLayouts() throws {
    let original = try makeFullStore()
    for layout in [InterchangeFormat.Layout.ndjson, .json] {
      let first = try export(original, layout)
      let copy = try Store(path: nil)
      let summary = try copy.importObjects(.bytes(Array(first.utf8)), mode: .replace)
      XCTAssertTrue(summary.schemaDefined)
      XCTAssertEqual(summary.layout, layout)
      XCTAssertEqual(summary.objects, try totalObjects(original))
      let second = try export(copy, layout)
      XCTAssertEqual(first, second, "\(layout) round trip changed the bytes")
      XCTAssertEqual(try export(original, layout), first, "export is not deterministic")
    }
  }

  func testExportShapeKeepsIdsOrdersAndExactValues() throws {
    let s = try makeFullStore()
    let lines = try export(s).split(separator: "\n").map(String.init)
    let header = try JSONParser.parse(lines[0])
    XCTAssertEqual(header["format"], "modelstore-export")
    XCTAssertEqual(header["version"], 1)
    XCTAssertEqual(header["entities"], ["Thing", "Folder", "Tag", "Person", "Badge", "Photo", "Doc"])
    let objects = try lines.dropFirst().map { try JSONParser.parse($0) }
    let thing = objects.first { $0["_id"] == "Thing/1" }!
    XCTAssertEqual(thing["dt"], "2026-03-01T08:30:00.123Z")
    XCTAssertEqual(thing["dec"], "-12345678901234567890.0001")
    XCTAssertEqual(thing["f"], .double(Double(Float(0.1))))
    XCTAssertEqual(thing["u"], "0F0E0D0C-0B0A-4908-8706-050403020100")
    XCTAssertNil(thing["note"], "transient attributes are not exported")
    XCTAssertEqual(thing["tags"], ids("Tag/3", "Tag/1"))
    let root = objects.first { $0["_id"] == "Folder/1" }!
    XCTAssertNil(root["things"], "a to-many derived from a to-one is left out")
    XCTAssertEqual(root["pinned"], ids("Thing/4", "Thing/1", "Thing/2"), "an ordered one keeps its order")
    XCTAssertEqual(objects.first { $0["_id"] == "Folder/2" }!["assets"], ids("Photo/1", "Doc/3"), "unordered: by key")
    XCTAssertEqual(objects.first { $0["_id"] == "Tag/1" }!["things"], ids("Thing/1", "Thing/2"))
    XCTAssertEqual(objects.map { $0["_entity"]!.stringValue! }.last, "Doc")
  }

  func testInsertModeGivesNewIdsAndFollowsForwardReferences() throws {
    let s = try makeFullStore()
    let text = try export(s)
    let target = try makeStore(Self.fullSchema)
    let existing = try target.add("Folder", ["name": "already here"])
    // Re-import into a store holding other objects: every file id moves.
    let summary = try target.importObjects(.bytes(Array(text.utf8)), mode: .insert)
    XCTAssertEqual(summary.inserted, try totalObjects(s))
    XCTAssertTrue(target.exists(existing))
    let root = try target.idsWhere("Folder", "name == 'root'")[0]
    XCTAssertEqual(root, "Folder/2")
    let pinned = strings(try target.value(root, "pinned"))
    XCTAssertEqual(try pinned.map { try target.value($0, "code") }, ["T2", "T0", "T1"])
    let sub = try target.idsWhere("Folder", "name == 'sub'")[0]
    XCTAssertEqual(try target.value(sub, "parent"), .string(root))
  }

  func testUpsertUpdatesMatchesOnUniqueKeys() throws {
    let source = try makeStore(Self.fullSchema)
    try source.add("Tag", ["name": "red"])
    try source.add("Tag", ["name": "new"])
    let target = try makeStore(Self.fullSchema)
    let red = try target.add("Tag", ["name": "blue"])
    _ = red
    let redInTarget = try target.add("Tag", ["name": "red"])
    let summary = try target.importObjects(.bytes(Array(try export(source).utf8)), mode: .upsert)
    XCTAssertEqual(summary.updated, 1)
    XCTAssertEqual(summary.inserted, 1)
    XCTAssertEqual(try target.idsWhere("Tag", "name == 'red'"), [redInTarget])
    XCTAssertEqual(try target.idsWhere("Tag").count, 3)
  }

  func testExportFilterAndFile() throws {
    let s = try makeFullStore()
    let filtered = try export(s, entities: ["Asset"], where: "title BEGINSWITH 'sun'")
    XCTAssertEqual(filtered.split(separator: "\n").count, 2)
    XCTAssertTrue(filtered.contains("\"entities\":[\"Photo\",\"Doc\"]"))
    expectStoreError(.invalidArgument) { try export(s, where: "title == 'x'") }

    let path = temporaryPath(self, "export.ndjson")
    _ = try s.export(ExportOptions(), to: try FileSink.create(path: path, place: ErrorPlace(.path)))
    let again = expectStoreError(.invalidArgument) { try FileSink.create(path: path, place: ErrorPlace(.path)) }
    XCTAssertEqual(again?.details["path"], .string(path))
    // The place is the param (or flag) that named the file; the file's path is data.
    XCTAssertEqual(again?.place, ErrorPlace(.path))
    XCTAssertEqual(again?.placeInData, false)
    let copy = try Store(path: nil)
    _ = try copy.importObjects(.file(path: path), mode: .replace)
    XCTAssertEqual(try export(copy), try export(s))
  }

  func testInlineLimitPointsToPath() throws {
    let s = try makeFullStore()
    let e = expectStoreError(.invalidArgument) { try s.export(ExportOptions(), to: MemorySink(limit: 100)) }
    XCTAssertEqual(e?.place, ErrorPlace(.path))
    XCTAssertEqual(e?.placeInData, true)
    XCTAssertEqual(e?.message, "the export is larger than the inline limit of 100 bytes; give path to write it to a file")
  }

  // MARK: - Failures leave the store unchanged

  static let smallSchema = schema(
    entity("Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
    entity(
      "Task", [attr("title", "string"), attr("priority", "int16", default: 0)],
      relationships: [rel("category", "Category", inverse: "tasks", optional: false)]))

  /// A store holding one category and one task, and the header line of its exports.
  func smallStore() throws -> (Store, String) {
    let s = try makeStore(Self.smallSchema)
    let c = try s.add("Category", ["name": "Home"])
    try s.add("Task", ["title": "dishes", "category": .string(c)])
    let header = String(try export(s).split(separator: "\n")[0])
    return (s, header)
  }

  /// Imports `lines` (after the header) and expects `kind`; the store must not change.
  @discardableResult
  func expectRefused(
    _ kind: StoreError.Kind, _ lines: [String], mode: ImportMode = .insert, file: StaticString = #filePath, line: UInt = #line
  ) throws -> StoreError? {
    let (s, header) = try smallStore()
    let before = try export(s)
    let text = ([header] + lines).joined(separator: "\n") + "\n"
    let e = expectStoreError(kind, { try s.importObjects(.bytes(Array(text.utf8)), mode: mode) }, file: file, line: line)
    XCTAssertEqual(try export(s), before, "the store changed", file: file, line: line)
    return e
  }

  func testBadJSONNamesItsLine() throws {
    let e = try expectRefused(
      .invalidArgument,
      [#"{"_id":"Category/5","_entity":"Category","name":"Work"}"#, #"{"_id":"Task/7","_entity":"Task","title":"#])
    XCTAssertEqual(e?.details["line"], 3)
    XCTAssertTrue(e?.message.hasPrefix("line 3: not valid JSON") ?? false, e?.message ?? "")
  }

  func testWrongTypeNamesLineAndPointer() throws {
    let e = try expectRefused(
      .validation,
      [
        #"{"_id":"Category/5","_entity":"Category","name":"Work"}"#,
        #"{"_id":"Task/7","_entity":"Task","title":"x","priority":70000,"category":"Category/5"}"#,
      ])
    XCTAssertEqual(e?.details["line"], 3)
    XCTAssertEqual(e?.details["pointer"], "/priority")
    XCTAssertEqual(e?.details["attribute"], "priority")
    XCTAssertTrue(e?.message.hasPrefix("line 3 at /priority: Task.priority expected") ?? false, e?.message ?? "")
  }

  func testDanglingReferenceIsRefusedInEveryMode() throws {
    let line = #"{"_id":"Task/7","_entity":"Task","title":"x","category":"Category/9"}"#
    let inserted = try expectRefused(.notFound, [line])
    XCTAssertEqual(inserted?.details["line"], 2)
    XCTAssertEqual(inserted?.details["pointer"], "/category")
    let replaced = try expectRefused(.notFound, [line], mode: .replace)
    XCTAssertEqual(replaced?.details["pointer"], "/category")
  }

  func testUniqueConflictNamesItsLine() throws {
    let e = try expectRefused(.constraint, [#"{"_id":"Category/5","_entity":"Category","name":"Home"}"#])
    XCTAssertEqual(e?.details["line"], 2)
    XCTAssertEqual(e?.details["existing"], "Category/1")
  }

  func testRelationshipConstraintsAreCheckedAfterAllLinks() throws {
    // A forward reference satisfies the required to-one; a missing one is reported at its line.
    let (s, header) = try smallStore()
    let ok = [
      header, #"{"_id":"Task/2","_entity":"Task","title":"b","category":"Category/3"}"#,
      #"{"_id":"Category/3","_entity":"Category","name":"Work"}"#,
    ].joined(separator: "\n")
    XCTAssertEqual(try s.importObjects(.bytes(Array(ok.utf8)), mode: .insert).inserted, 2)
    let e = try expectRefused(.validation, [#"{"_id":"Task/2","_entity":"Task","title":"b"}"#])
    XCTAssertEqual(e?.details["line"], 2)
    XCTAssertEqual(e?.details["relationship"], "category")
  }

  func testJSONLayoutErrorsUsePointers() throws {
    let (s, _) = try smallStore()
    let before = try export(s)
    var doc = try export(s, .json)
    doc = doc.replacingFirst(#""title":"dishes""#, with: #""title":false"#)
    let e = expectStoreError(.validation) { try s.importObjects(.bytes(Array(doc.utf8)), mode: .replace) }
    XCTAssertEqual(e?.details["pointer"], "/objects/1/title")
    XCTAssertEqual(try export(s), before)
  }

  func testHeaderAndSchemaProblems() throws {
    let (s, header) = try smallStore()
    // A store whose schema drops Task: the header alone migrates (nothing would be lost),
    // a Task record is refused where it stands.
    let other = try makeStore(schema(entity("Category", [attr("name", "string")])))
    XCTAssertEqual(try other.importObjects(.bytes(Array(header.utf8)), mode: .insert).migrated.map(\.kind).contains(.removeEntity), true)
    let e = expectStoreError(.schemaMismatch) { try other.importObjects(.bytes(Array(try export(s).utf8)), mode: .insert) }
    XCTAssertEqual(e?.details["entity"], "Task")
    XCTAssertEqual(e?.details["pointer"], "/_entity")
    XCTAssertEqual(try other.count(FetchRequest(entity: "Category")), 0)
    let wrongVersion = header.replacingFirst(#""version":1"#, with: #""version":2"#)
    let v = expectStoreError(.invalidArgument) { try s.importObjects(.bytes(Array(wrongVersion.utf8)), mode: .insert) }
    XCTAssertEqual(v?.details["pointer"], "/version")
    try expectRefused(.validation, [#"{"_id":"Task/1","_entity":"Category","name":"x"}"#])
    try expectRefused(
      .constraint, [#"{"_id":"Category/1","_entity":"Category","name":"A"}"#, #"{"_id":"Category/1","_entity":"Category","name":"B"}"#],
      mode: .replace)
  }

  func testRelationshipConstraintsAreCheckedWhenTheImportInstallsTheSchema() throws {
    // The store has no schema: the import installs the file's and still checks the
    // required to-one of every record, in every mode.
    let (_, header) = try smallStore()
    for mode in ImportMode.allCases {
      let empty = try Store(path: nil)
      let text = header + "\n" + #"{"_id":"Task/1","_entity":"Task","title":"b"}"# + "\n"
      let e = expectStoreError(.validation) { try empty.importObjects(.bytes(Array(text.utf8)), mode: mode) }
      XCTAssertEqual(e?.details["line"], 2, "\(mode)")
      XCTAssertEqual(e?.details["relationship"], "category", "\(mode)")
      XCTAssertNil(empty.schema)
    }
  }

  func testReplaceEmptiesEntitiesWithoutRelationships() throws {
    // Note has no relationships (its objects are deleted with one statement); Category
    // and Task have (deleted one by one with their rules). Both are counted.
    let withNotes = schema(
      entity("Note", [attr("text", "string")]),
      entity("Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
      entity(
        "Task", [attr("title", "string")],
        relationships: [rel("category", "Category", inverse: "tasks", optional: false)]))
    let source = try makeStore(withNotes)
    try source.add("Note", ["text": "kept"])
    let c = try source.add("Category", ["name": "Home"])
    try source.add("Task", ["title": "dishes", "category": .string(c)])
    let file = try export(source)
    let target = try makeStore(withNotes)
    for i in 0..<3 { try target.add("Note", ["text": .string("old \(i)")]) }
    let c2 = try target.add("Category", ["name": "Work"])
    try target.add("Task", ["title": "old", "category": .string(c2)])
    let summary = try target.importObjects(.bytes(Array(file.utf8)), mode: .replace)
    XCTAssertEqual(summary.deleted, 5)
    XCTAssertEqual(summary.inserted, 3)
    XCTAssertEqual(try export(target), file)
  }

  func testKeyMapRunsAndStrayKeys() {
    var m = KeyMap()
    XCTAssertNil(m[1])
    for k in Int64(1)...1000 { m.insert(k, k + 10) }  // one run
    m.insert(2000, 5)  // a new run
    m.insert(2001, 6)
    m.insert(1500, 7)  // below the last run: a stray key
    m.insert(-3, 8)
    XCTAssertEqual(m[1], 11)
    XCTAssertEqual(m[1000], 1010)
    XCTAssertNil(m[1001])
    XCTAssertEqual(m[2000], 5)
    XCTAssertEqual(m[2001], 6)
    XCTAssertNil(m[2002])
    XCTAssertEqual(m[1500], 7)
    XCTAssertEqual(m[-3], 8)
    XCTAssertNil(m[0])
  }

  func testFailedImportIntoEmptyStoreLeavesNoSchema() throws {
    let (_, header) = try smallStore()
    let empty = try Store(path: nil)
    let text = header + "\n" + #"{"_id":"Task/1","_entity":"Task","title":1}"# + "\n"
    expectStoreError(.validation) { try empty.importObjects(.bytes(Array(text.utf8)), mode: .replace) }
    XCTAssertNil(empty.schema)
    XCTAssertTrue(try empty.entityCounts().isEmpty)
  }
}

extension String {
  fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
    let t = Array(target.utf8)
    let bytes = Array(utf8)
    guard t.count <= bytes.count else { return self }
    for i in 0...(bytes.count - t.count) where Array(bytes[i..<i + t.count]) == t {
      return String(decoding: bytes[..<i] + Array(replacement.utf8) + bytes[(i + t.count)...], as: UTF8.self)
    }
    return self
  }
}
