import XCTest

@testable import JSONCore
@testable import StoreEngine

/// A `json`-layout import reads its records from the document text one at a time (the
/// tree of a whole large document takes ten times its size). It imports what it did when
/// the document was parsed whole, and a document that is not JSON anywhere fails with the
/// whole parse's error, before any other, leaving the store as it was.
final class JSONDocumentImportTests: XCTestCase {
  /// A store with `categories` categories and 20 tasks in each, exported as a json document.
  func source(categories: Int) throws -> (Store, String) {
    let s = try makeStore(InterchangeTests.smallSchema)
    for c in 0..<categories {
      let id = try s.add("Category", ["name": .string("category \(c) \"é\" [x]")])
      for t in 0..<20 { try s.add("Task", ["title": .string("task \(c).\(t)"), "priority": .int(Int64(t)), "category": .string(id)]) }
    }
    let sink = MemorySink(limit: 1 << 26)
    _ = try s.export(ExportOptions(entities: nil, layout: .json), to: sink)
    return (s, String(decoding: sink.bytes, as: UTF8.self))
  }

  func exported(_ s: Store) throws -> [UInt8] {
    let sink = MemorySink(limit: 1 << 26)
    _ = try s.export(ExportOptions(entities: nil, layout: .json), to: sink)
    return sink.bytes
  }

  /// Runs `body` with records read on this thread, then parsed ahead on another.
  func bothWays(_ body: () throws -> Void) rethrows {
    defer { JSONArrayStream.parseAheadMinimumBytes = 1 << 16 }
    for minimum in [Int.max, 0] {
      JSONArrayStream.parseAheadMinimumBytes = minimum
      try body()
    }
  }

  func testALargeDocumentRoundTripsInEveryMode() throws {
    let (s, text) = try source(categories: 150)
    let original = try exported(s)
    // As ModelStore writes it (one object a line), and all on one line.
    let oneLine = text.replacingOccurrences(of: "\n", with: "") + "\n"
    try bothWays {
      for document in [text, oneLine] {
        let copy = try makeStore(InterchangeTests.smallSchema)
        let summary = try copy.importObjects(.bytes(Array(document.utf8)), mode: .replace)
        XCTAssertEqual(summary.layout, .json)
        XCTAssertEqual(summary.objects, 150 * 21)
        XCTAssertEqual(try exported(copy), original)
        let inserted = try makeStore(InterchangeTests.smallSchema)
        XCTAssertEqual(try inserted.importObjects(.bytes(Array(document.utf8)), mode: .insert).inserted, 150 * 21)
        XCTAssertEqual(try inserted.importObjects(.bytes(Array(document.utf8)), mode: .upsert).updated, 150)
      }
    }
  }

  /// Cut short or edited at many places: wherever the document is not JSON, the import
  /// fails with what a whole parse says, and the store is unchanged.
  func testBrokenDocumentsFailWithTheWholeParsesError() throws {
    let (_, text) = try source(categories: 4)
    let bytes = Array(text.utf8)
    let target = try makeStore(InterchangeTests.smallSchema)
    let before = try exported(target)
    var checked = 0
    bothWays {
      for i in stride(from: 1, to: bytes.count, by: 13) {
        for document in [
          Array(bytes[..<i]), Array(bytes[..<i]) + Array("}".utf8) + Array(bytes[(i + 1)...]),
          Array(bytes[..<i]) + [0xFF] + Array(bytes[i...]),
        ] {
          let whole: JSONParseError
          do {
            _ = try JSONParser.parse(document, maxDepth: ImportRecords.maxDepth)
            continue
          } catch {
            whole = error as! JSONParseError
          }
          let e = expectStoreError(.invalidArgument) { try target.importObjects(.bytes(document), mode: .insert) }
          XCTAssertEqual(e?.message, "line \(whole.line): not valid JSON: \(whole.message) (column \(whole.column))")
          XCTAssertEqual(e?.details["position"], .int(Int64(whole.position)))
          checked += 1
        }
      }
    }
    XCTAssertGreaterThan(checked, 100)
    XCTAssertEqual(try exported(target), before)
  }

  /// A document that is not JSON near its end fails as such even when something else is
  /// wrong before (the header, a record): a whole parse found it first.
  func testTextThatIsNotJSONComesFirst() throws {
    let (_, text) = try source(categories: 10)
    let cut = String(text.dropLast(30))
    let whole: JSONParseError
    do {
      _ = try JSONParser.parse(Array(cut.utf8), maxDepth: ImportRecords.maxDepth)
      return XCTFail("the cut document parses")
    } catch {
      whole = error as! JSONParseError
    }
    let expected = "line \(whole.line): not valid JSON: \(whole.message) (column \(whole.column))"
    try bothWays {
      for document in [
        cut.replacingOccurrences(of: #""version":1"#, with: #""version":2"#),  // header
        cut.replacingOccurrences(of: #""title":"task 0.3""#, with: #""title":3"#),  // a record's value
        cut.replacingOccurrences(of: #""_id":"Task/3""#, with: #""_id":"Task/2""#),  // a record twice
      ] {
        XCTAssertNotEqual(document, cut)
        let target = try makeStore(InterchangeTests.smallSchema)
        let e = expectStoreError(.invalidArgument) { try target.importObjects(.bytes(Array(document.utf8)), mode: .replace) }
        XCTAssertEqual(e?.message, expected)
        let other = try makeStore(InterchangeTests.fullSchema)  // a schema that does not match
        XCTAssertEqual(
          expectStoreError(.invalidArgument) { try other.importObjects(.bytes(Array(document.utf8)), mode: .insert) }?.message, expected)
      }
    }
  }

  func testRecordErrorsStillNameTheirPointer() throws {
    let (_, text) = try source(categories: 10)
    try bothWays {
      let target = try makeStore(InterchangeTests.smallSchema)
      let document = text.replacingOccurrences(of: #""title":"task 7.4""#, with: #""title":7"#)
      let e = expectStoreError(.validation) { try target.importObjects(.bytes(Array(document.utf8)), mode: .insert) }
      // Categories first, then tasks.
      XCTAssertEqual(e?.details["pointer"], .string("/objects/\(10 + 7 * 20 + 4)/title"), e?.message ?? "")
    }
  }
}
