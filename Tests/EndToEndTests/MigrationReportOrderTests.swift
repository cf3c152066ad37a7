import Foundation
import JSONCore
import TestSupport
import XCTest

/// The objects a refused migration names (values that do not convert, required values
/// missing) are the first by key, in key order, on both engines (`make
/// swift-test-postgresql` runs this on PostgreSQL). The differential fuzzer found them in
/// another order on PostgreSQL, which reads a table without ORDER BY as its rows were
/// last written.
final class MigrationReportOrderTests: XCTestCase {
  func testTheObjectsOfARefusedChangeAreListedByKey() throws {
    let s = try ServerProcess()
    defer {
      s.closeInput()
      _ = s.waitForExit()
    }
    func schema(_ version: String, t: String, n: JSONValue) -> JSONValue {
      [
        "version": .string(version),
        "entities": [["name": "Book", "attributes": [["name": "t", "type": .string(t), "optional": true], n]]],
      ]
    }
    let optionalN: JSONValue = ["name": "n", "type": "int", "optional": true]
    _ = try s.call("model.define", ["schema": schema("1", t: "date", n: optionalN)])
    for k in 1...3 {
      _ = try s.call("objects.insert", ["entity": "Book", "values": ["t": .string("2030-04-2\(k)T18:06:14.52\(k)Z")]])
    }
    // Written again: last in its table on PostgreSQL.
    _ = try s.call("objects.update", ["id": "Book/1", "values": ["t": "2030-04-23T18:06:14.521Z"]])
    let retyped = try s.callFailing("model.define", ["schema": schema("2", t: "int", n: optionalN)])
    XCTAssertEqual(retyped["data"]?["reasons"]?.arrayValue?.first?["ids"], ["Book/1", "Book/2", "Book/3"], "\(retyped)")
    let required = try s.callFailing(
      "model.define", ["schema": schema("2", t: "date", n: ["name": "n", "type": "int", "optional": false])])
    XCTAssertEqual(required["data"]?["reasons"]?.arrayValue?.first?["ids"], ["Book/1", "Book/2", "Book/3"], "\(required)")
  }
}
