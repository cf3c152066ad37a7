import Foundation
import JSONCore
import TestSupport
import XCTest

/// A Core Data store whose date column holds values no calendar has (1e300, ±1e19, ±inf),
/// browsed in place by the real binary: every date bucket in several zones, groups,
/// objects and exports answer, pipelined, and the server exits cleanly afterwards.
final class CoreDataExtremeDateTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws {
    try TestEngine.requireSQLite("Core Data stores are SQLite files")
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed at \(sqlite3CLI.path)") }
    dir = try TemporaryDirectory()
  }
  override func tearDown() { dir?.remove() }

  static let dates = ["1e300", "-1e300", "1e19", "-1e19", "9e999", "-9e999", "700000000.5"]

  private func id(_ v: JSONValue) throws -> Int64 {
    guard case .int(let i) = v else { throw XCTSkip("ids are integers") }
    return i
  }

  private func writeStore(_ path: String, metadata: [UInt8]? = nil) throws {
    let plist = metadata.map { "X'" + $0.map { String(format: "%02x", $0) }.joined() + "'" } ?? "NULL"
    var sql = """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZTASK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDUE TIMESTAMP, ZTITLE VARCHAR );
      INSERT INTO Z_PRIMARYKEY VALUES (1, 'Task', 0, \(Self.dates.count));
      INSERT INTO Z_METADATA VALUES (1, '0B5C7D2E-9A41-4C3B-8E6F-112233445566', \(plist));

      """
    for (i, d) in Self.dates.enumerated() { sql += "INSERT INTO ZTASK VALUES (\(i + 1), 1, 1, \(d), 'due \(d)');\n" }
    let r = try sqlite3(path, sql)
    XCTAssertEqual(r.status, 0, r.stderr)
  }

  func testDatesWithoutACalendarDateNeverStopTheServer() throws {
    let source = dir.file("Dates.sqlite")
    try writeStore(source)
    let server = try ServerProcess(arguments: ["serve", "--store", source, "--format", "coredata", "--read-only"])
    // Pipelined: every reply must come back, none lost in an output buffer.
    var sent: [Int64] = []
    for zone in ["UTC", "+18:00", "-18:00", "Europe/Paris", "America/New_York"] {
      for bucket in ["day", "week", "month", "year"] {
        let key: JSONValue = .object(["keyPath": "due", "bucket": .string(bucket), "timeZone": .string(zone)])
        sent.append(try id(server.sendRequest("query.fetch", ["entity": "Task", "sectionBy": key, "select": ["due"]])))
        sent.append(
          try id(
            server.sendRequest(
              "query.aggregate", ["entity": "Task", "groupBy": .array([key]), "aggregates": [["fn": "count", "as": "n"]]])))
      }
    }
    sent.append(
      try id(server.sendRequest("query.aggregate", ["entity": "Task", "aggregates": [["fn": "min", "key": "due", "as": "first"]]])))
    sent.append(try id(server.sendRequest("export.json", ["format": "ndjson"])))
    for i in 1...Self.dates.count { sent.append(try id(server.sendRequest("objects.get", ["id": .string("Task/\(i)")]))) }
    sent.append(
      try id(
        server.sendRequest(
          "query.fetch", ["entity": "Task", "where": "due > %@", "args": ["2020-01-01T00:00:00Z"], "sort": [["key": "due"]]])))

    var replies: [Int64: JSONObject] = [:]
    for _ in sent {
      guard let reply = try server.readReply() else { break }
      if case .int(let i)? = reply["id"] { replies[i] = reply }
    }
    XCTAssertEqual(Set(replies.keys), Set(sent), "a reply for every request; stderr: \(server.stderr)")
    for (id, reply) in replies { XCTAssertNotNil(reply["result"], "request \(id): \(reply)") }

    // Sorted by the date: -inf, -1e300, -1e19 first, +1e19, 1e300, inf last, all without a key.
    let plus18 = try XCTUnwrap(replies[sent[8]]?["result"]?["sections"]?.arrayValue)
    XCTAssertEqual(plus18.compactMap { $0["key"] }, [.null, "2023-03-09", .null], "UTC+18 day keys: dates off the calendar have none")
    XCTAssertEqual(plus18.map { $0["count"] }, [3, 1, 3])
    let groups = try XCTUnwrap(replies[sent[1]]?["result"]?["groups"]?.arrayValue)
    XCTAssertEqual(groups.map { $0["values"]?["n"] }, [6, 1], "one nil group, one day")
    let objects = sent.suffix(Self.dates.count + 1).dropLast().map { replies[$0]?["result"]?["due"] ?? .string("missing") }
    XCTAssertEqual(
      objects,
      [
        .double(1e300), .double(-1e300), .double(1e19 + 978_307_200), .double(-1e19 + 978_307_200), .null, .null,
        "2023-03-08T20:26:40.500Z",
      ])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  func testAMetadataPlistThatExpandsWithoutBoundIsNamedAndTheStoreStillServes() throws {
    let source = dir.file("Laughs.sqlite")
    try writeStore(source, metadata: HostilePlist.laughs(levels: 12, width: 14))
    let server = try ServerProcess(arguments: ["serve", "--store", source, "--format", "coredata", "--read-only"])
    let info = try server.call("store.info", [:])
    XCTAssertEqual(
      info["coreData"]?["metadataProblem"]?.stringValue?.hasPrefix("binary plist: expands to more than 100000 values"), true, "\(info)")
    XCTAssertEqual(try server.call("query.count", ["entity": "Task"])["count"], .int(Int64(Self.dates.count)))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }
}
