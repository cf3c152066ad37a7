import FileAccess
import Foundation
import XCTest

@testable import StoreEngine

/// The documented size limits of the files the engine reads, at the limit and one past it.
final class InputLimitTests: XCTestCase {
  private var dir: String!

  override func setUpWithError() throws {
    dir = NSTemporaryDirectory() + "input-limits-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

  private func file(_ name: String, lineOf length: Int, newline: Bool) throws -> String {
    let path = dir + "/" + name
    var data = Data(repeating: UInt8(ascii: "a"), count: length)
    if newline { data.append(0x0A) }
    try data.write(to: URL(fileURLWithPath: path))
    return path
  }

  func testAnNdjsonLineAtTheLimitIsReadAndOnePastItIsRefused() throws {
    let limit = ImportInput.maxLineBytes
    for newline in [true, false] {
      var lengths: [Int] = []
      try ImportInput.file(path: try file("at.ndjson", lineOf: limit, newline: newline)).forEachLine { _, line in
        lengths.append(line.count)
        return true
      }
      XCTAssertEqual(lengths, [limit])
      do {
        try ImportInput.file(path: try file("past.ndjson", lineOf: limit + 1, newline: newline)).forEachLine { _, _ in
          XCTFail("a line past the limit reached the importer")
          return true
        }
        XCTFail("a line of \(limit + 1) bytes was accepted")
      } catch let e as StoreError {
        XCTAssertEqual(e.kind, .invalidArgument)
        XCTAssertEqual(e.details["line"], .int(1))
        XCTAssertEqual(e.details["limit"], .int(Int64(limit)))
        XCTAssertEqual(e.details["reason"], "tooLarge")
      }
    }
  }

  func testAJsonDocumentPastTheLimitIsRefusedWithoutBeingRead() throws {
    let path = dir + "/big.json"
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: UInt64(ImportInput.maxDocumentBytes + 1))  // sparse: nothing to read
    try handle.close()
    do {
      _ = try ImportInput.file(path: path).readAll()
      XCTFail("accepted")
    } catch let e as StoreError {
      XCTAssertEqual(e.details["reason"], "tooLarge")
      XCTAssertEqual(e.details["limit"], .int(Int64(ImportInput.maxDocumentBytes)))
    }
  }
}
