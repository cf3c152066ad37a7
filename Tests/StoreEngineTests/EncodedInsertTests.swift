import JSONCore
import XCTest

@testable import StoreEngine

/// `objects.insert` answers with text written straight from the values the insert bound
/// (`Store.insertEncoded`); the bytes must be exactly those of encoding the object read
/// back, for every attribute type, defaults, transients, to-ones to sub-entities and every
/// `toMany` mode.
final class EncodedInsertTests: XCTestCase {
  private let model = schema(
    entity("Owner", [attr("name", "string")], relationships: [rel("pets", "Pet", inverse: "owner", toMany: true)]),
    entity("Pet", [attr("name", "string")], relationships: [rel("owner", "Owner", inverse: "pets")]),
    entity("Dog", parent: "Pet", [attr("chip", "string", optional: true)]),
    entity(
      "Item",
      [
        attr("id", "uuid", default: ["generate": "uuid"]), attr("title", "string", default: "untitled"),
        attr("done", "bool", default: false), attr("at", "date", default: ["generate": "now"]), attr("small", "int16", default: 3),
        attr("big", "int64", optional: true), attr("ratio", "double", optional: true), attr("f", "float", optional: true),
        attr("price", "decimal", optional: true), attr("blob", "data", optional: true), attr("link", "url", optional: true),
        attr("extra", "json", optional: true), attr("scratch", "string", optional: true, default: "tmp", transient: true),
        attr("note", "string", optional: true),
      ],
      relationships: [
        rel("pet", "Pet", optional: true), rel("owner", "Owner", optional: true),
        rel("tags", "Tag", inverse: "items", toMany: true),
      ]),
    entity("Tag", [attr("label", "string")], relationships: [rel("items", "Item", inverse: "tags", toMany: true)]))

  private func assertSameBytes(
    _ store: Store, _ entity: String, _ values: JSONObject, _ mode: ToManyMode = .none, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let encoded = try store.insertEncoded(entity: entity, values: values, toMany: mode)
    guard case .object(let o) = try JSONParser.parse(encoded.bytes), case .string(let id)? = o["_id"] else {
      return XCTFail("not an object with an _id: \(String(decoding: encoded.bytes, as: UTF8.self))", file: file, line: line)
    }
    let expected = JSONWriter.encode(.object(try store.get(id: id, toMany: mode)))
    XCTAssertEqual(String(decoding: encoded.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self), file: file, line: line)
  }

  func testEncodedInsertMatchesTheObjectReadBack() throws {
    let store = try makeStore(model)
    let owner = try store.add("Owner", ["name": "Ann \"A\"\n"])
    let dog = try store.add("Dog", ["name": "rex", "owner": .string(owner)])
    let tag = try store.add("Tag", ["label": "t"])
    for mode in ToManyMode.allCases {
      try assertSameBytes(store, "Item", [:], mode)
      try assertSameBytes(
        store, "Item",
        [
          "id": "0c3a5e6f-1b2c-4d5e-8f90-a1b2c3d4e5f6", "title": "é \u{1} tab\t", "done": true, "at": "2026-02-03T04:05:06.7Z",
          "small": -7, "big": .int(Int64.min), "ratio": 0.1, "f": 2.5, "price": "12.50", "blob": "AAEC",
          "link": "https://example.com/a?b=c", "extra": ["a": [1, "two", .null]], "scratch": "ignored", "note": .null,
          "pet": .string(dog), "owner": .string(owner),
        ], mode)
      try assertSameBytes(
        store, "Item", ["at": "-0044-03-15T12:00:00Z", "ratio": 3, "pet": .string("Pet/\(dog.split(separator: "/")[1])")], mode)
      // With a to-many value the row is read back: the same answer by the other path.
      try assertSameBytes(store, "Item", ["title": "tagged", "tags": [.string(tag)]], mode)
      try assertSameBytes(store, "Pet", ["name": "cat", "owner": .string(owner)], mode)
      try assertSameBytes(store, "Owner", ["name": "Bob"], mode)
    }
  }
}
