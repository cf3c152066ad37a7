import Foundation
import JSONCore
import TestSupport
import XCTest

/// Numbers in predicates, answered alike by both engines (`make swift-test-postgresql`
/// runs this on PostgreSQL), or as protocol.md's "PostgreSQL engine: what differs" pins
/// them. Each case is a difference the differential fuzzer found (`Tests/Fuzz/fuzz.py
/// --differential`), minimised: `CAST(text, 'NSNumber')` failed on PostgreSQL for text
/// that is not a plain number; `CAST(decimal, 'NSDate')` could not run there; every
/// PostgreSQL "out of range" (an arithmetic overflow in a predicate) was answered as "a
/// sum of stored integers is beyond 64 bits", in an aggregate with an empty name; an
/// integer `@sum` beyond 64 bits was an error on SQLite only.
final class NumericPredicateParityTests: XCTestCase {
  private var server: ServerProcess?

  override func tearDown() {
    server?.closeInput()
    _ = server?.waitForExit()
    server = nil
  }

  private let schema: JSONValue = try! JSONParser.parse(
    """
    {"entities":[{"name":"Item","attributes":[{"name":"s","type":"string","optional":true},{"name":"link","type":"url","optional":true},
      {"name":"m","type":"decimal","optional":true},{"name":"n","type":"int64","optional":true},{"name":"d","type":"double","optional":true},
      {"name":"u","type":"uuid","optional":true}],
     "relationships":[{"name":"kids","destination":"Item","toMany":true,"inverse":"mom"},{"name":"mom","destination":"Item","inverse":"kids"}]}]}
    """)

  /// A server (a fresh schema on PostgreSQL) with the model and `objects` inserted, in order.
  private func serve(_ objects: [JSONObject]) throws -> ServerProcess {
    let s = try ServerProcess()
    server = s
    _ = try s.call("model.define", ["schema": schema])
    for values in objects { _ = try s.call("objects.insert", ["entity": "Item", "values": .object(values)]) }
    return s
  }

  private func ids(_ s: ServerProcess, _ predicate: String) throws -> [String] {
    let result = try s.call("query.ids", ["entity": "Item", "where": .string(predicate)])
    return (result["ids"]?.arrayValue ?? []).compactMap(\.stringValue)
  }

  func testTextIsReadAsANumberAsSQLiteReadsIt() throws {
    let texts = ["  12abc", "abc", "", "0x1A", ".5", "1e", "1e400", "-1e400", "\t7", "5.", "+.5e2x", "\u{0663}", "1e-400"]
    let s = try serve(texts.map { ["s": .string($0), "link": "https://x.org/a"] })
    XCTAssertEqual(try ids(s, "CAST(s, 'NSNumber') > 1"), ["Item/1", "Item/7", "Item/9", "Item/10", "Item/11"])
    XCTAssertEqual(try ids(s, "CAST(s, 'NSNumber') == 0"), ["Item/2", "Item/3", "Item/4", "Item/12", "Item/13"])
    XCTAssertEqual(try ids(s, "CAST(s, 'NSNumber') == 0.5"), ["Item/5"])
    XCTAssertEqual(try ids(s, "CAST(s, 'NSNumber') == 1"), ["Item/6"])
    XCTAssertEqual(try ids(s, "CAST(s, 'NSNumber') < -1e308"), ["Item/8"])
    XCTAssertEqual(try ids(s, "CAST(s, 'NSNumber') == 50"), ["Item/11"])
    // The fuzzer's case: a url that is not a number is 0.
    XCTAssertEqual(try ids(s, "CAST(link, 'NSNumber') >= 1000000000000000.0"), [])
    // A uuid is not a number (SQLite read its 16 bytes as text, PostgreSQL refused).
    let refused = try s.callFailing("query.ids", ["entity": "Item", "where": "CAST(u, 'NSNumber') > 0"])
    XCTAssertEqual(refused["data"]?["kind"], "predicate", "\(refused)")
  }

  func testADecimalCastToADateCountsSecondsFrom2001() throws {
    let s = try serve([["m": "12.50"], ["m": "-7.5"], [:]])
    XCTAssertEqual(try ids(s, "CAST(m, 'NSDate') < CAST('2024-12-30', 'NSDate')"), ["Item/1", "Item/2"])
    XCTAssertEqual(try ids(s, "CAST(m, 'NSDate') == CAST('2001-01-01T00:00:12.500Z', 'NSDate')"), ["Item/1"])
  }

  /// `@sum` of integers is `sum`: beyond 64 bits, the same `integerOverflow` on both
  /// engines (also inside `query.aggregate`'s `where`, whose error names no aggregate).
  func testAnIntegerSumBeyond64BitsInAPredicateIsRefusedOnBothEngines() throws {
    let max: JSONValue = .int(Int64.max)
    let s = try serve([["n": 1], ["n": max, "mom": "Item/1"], ["n": max, "mom": "Item/1"]])
    let e = try s.callFailing("query.count", ["entity": "Item", "where": "kids.@sum.n > 0"])
    XCTAssertEqual(e["data"]?["reason"], "integerOverflow", "\(e)")
    XCTAssertEqual(e["message"], "a sum of stored integers is beyond 64 bits (-9223372036854775808 ... 9223372036854775807)")
    let a = try s.callFailing(
      "query.aggregate", ["entity": "Item", "where": "kids.@sum.n > 0", "aggregates": [["fn": "count", "as": "c"]]])
    XCTAssertEqual(a, e)
  }

  /// *Pinned* (protocol.md, PostgreSQL engine: what differs): a running total that passes
  /// 64 bits and comes back is an error on SQLite; PostgreSQL sums exactly.
  func testARunningTotalThatComesBackIsExactOnPostgreSQLOnly() throws {
    let s = try serve([
      ["n": 1], ["n": .int(Int64.max), "mom": "Item/1"], ["n": .int(Int64.max), "mom": "Item/1"], ["n": .int(-Int64.max), "mom": "Item/1"],
    ])
    let reply = try s.request("query.ids", ["entity": "Item", "where": "kids.@sum.n == 9223372036854775807"])
    if TestEngine.isPostgres {
      XCTAssertEqual(reply["result"]?["ids"], ["Item/1"], "\(reply)")
    } else {
      XCTAssertEqual(reply["error"]?["data"]?["reason"], "integerOverflow", "\(reply)")
    }
  }

  /// An integer key path against a number that is not an integer compares exactly, as
  /// SQLite does; PostgreSQL compared a bigint and a double as two doubles, so
  /// `-9223372036854775807 <= -9223372036854775808.0` held there (the fuzzer's case).
  func testAnIntegerAgainstANumberIsComparedExactly() throws {
    let s = try serve([["n": .int(Int64.min + 1)], ["n": .int(Int64.max)], ["n": 9_007_199_254_740_993], ["n": 2], [:]])
    let cases: [(String, [String])] = [
      ("n <= -9223372036854775808", []),
      ("n < 2.5", ["Item/1", "Item/4"]),
      ("n == 2.0", ["Item/4"]),
      ("n == 2.5", []),
      ("n != 2.5", ["Item/1", "Item/2", "Item/3", "Item/4", "Item/5"]),
      ("n == 9007199254740992.0", []),
      ("n > 9007199254740992.0", ["Item/2", "Item/3"]),
      ("n < 1e300", ["Item/1", "Item/2", "Item/3", "Item/4"]),
      ("n > 1e300", []),
      ("n >= -1e300", ["Item/1", "Item/2", "Item/3", "Item/4"]),
      ("n IN {2.0, 2.5, 9007199254740992.0}", ["Item/4"]),
      ("n BETWEEN {1.5, 9007199254740992.0}", ["Item/4"]),
      ("NOT (n < 2.5)", ["Item/2", "Item/3", "Item/5"]),
    ]
    for (predicate, expected) in cases { XCTAssertEqual(try ids(s, predicate), expected, predicate) }
  }

  /// An integer key path against a double one (or arithmetic giving a double) compares
  /// exactly too: PostgreSQL compared them as two doubles, so `n - 0.5 <= n` held for
  /// n = 2^63 - 1 there (n - 0.5 is the double 2^63, and so is n as a double: the fuzzer's
  /// case), and `n == d` for 2^53 + 1 and 2^53.
  func testAnIntegerAgainstADoubleKeyPathIsComparedExactly() throws {
    let big: JSONValue = .int(Int64.max)
    let s = try serve([
      ["n": big, "d": 9_223_372_036_854_775_807.0], ["n": 9_007_199_254_740_993, "d": 9_007_199_254_740_992.0],
      ["n": 2, "d": 2.5], ["n": 3, "d": 3.0], ["n": 4], ["d": 1.0], [:],
    ])
    let cases: [(String, [String])] = [
      // n - 0.5 is a double: 2^63 for n = 2^63 - 1, above n; n + 0.5 is 2^53 for n = 2^53 + 1.
      ("n - 0.5 <= n", ["Item/2", "Item/3", "Item/4", "Item/5"]),
      ("n < n + 0.5", ["Item/1", "Item/3", "Item/4", "Item/5"]),
      ("n == d", ["Item/4", "Item/7"]),
      ("d == n", ["Item/4", "Item/7"]),
      ("n != d", ["Item/1", "Item/2", "Item/3", "Item/5", "Item/6"]),
      ("n < d", ["Item/1", "Item/3"]),
      ("d > n", ["Item/1", "Item/3"]),
      ("n >= d", ["Item/2", "Item/4"]),
      ("NOT (n < d)", ["Item/2", "Item/4", "Item/5", "Item/6", "Item/7"]),
    ]
    for (predicate, expected) in cases { XCTAssertEqual(try ids(s, predicate), expected, predicate) }
  }

  /// A comparison answered without its operand (an empty IN list, a nil pattern, an
  /// integer against a number that is no integer) left the values the operand bound (the 1
  /// of `n + 1`) unnamed in the statement: SQLite ignores them, PostgreSQL refused the
  /// statement ("could not determine data type of parameter $1", the fuzzer's case).
  func testAComparisonAnsweredWithoutItsOperandKeepsItsValues() throws {
    let s = try serve([["n": 1, "d": 1.5], ["n": 2]])
    let cases: [(String, [String])] = [
      ("n + 1 IN {}", []),
      ("NOT (n + 1 IN {})", ["Item/1", "Item/2"]),
      ("n + 1 IN {2.5, nil}", []),
      ("CAST(d + 1, 'NSString') BEGINSWITH nil", []),
      ("n + 1 == 2.5", []),
      ("n + 1 != 2.5", ["Item/1", "Item/2"]),
      ("(n + 1) * 2 < 1e300 AND n + 1 = 2.5", []),
    ]
    for (predicate, expected) in cases { XCTAssertEqual(try ids(s, predicate), expected, predicate) }
  }

  /// PostgreSQL's `avg` of doubles also sums their squares and failed beyond about 1.3e154:
  /// the average is the sum over the count on both engines, in `query.aggregate` and `@avg`.
  func testTheAverageOfLargeDoublesIsTheirSumOverTheirCount() throws {
    let s = try serve([["n": 0], ["d": -1e300, "mom": "Item/1"], ["d": -0.0, "mom": "Item/1"], ["d": 1e200, "mom": "Item/1"]])
    let groups = try s.call(
      "query.aggregate",
      [
        "entity": "Item", "where": "mom != nil",
        "aggregates": [["fn": "avg", "key": "d", "as": "a"], ["fn": "avg", "key": "d", "as": "b", "distinct": true]],
      ])
    XCTAssertEqual(groups["groups"]?.arrayValue?.first?["values"], ["a": .double(-1e300 / 3), "b": .double(-1e300 / 3)], "\(groups)")
    XCTAssertEqual(try ids(s, "kids.@avg.d < -1e299"), ["Item/1"])
  }

  /// *Pinned*: a sum of doubles beyond the largest double is infinity on SQLite (written
  /// `null`); PostgreSQL fails the statement (-32020 `storage`, `sqlstate` 22003).
  func testASumOfDoublesBeyondTheLargestFailsOnPostgreSQL() throws {
    let s = try serve([["d": 1e308], ["d": 1e308]])
    let reply = try s.request("query.aggregate", ["entity": "Item", "aggregates": [["fn": "sum", "key": "d", "as": "t"]]])
    if TestEngine.isPostgres {
      XCTAssertEqual(reply["error"]?["data"]?["sqlstate"], "22003", "\(reply)")
    } else {
      XCTAssertEqual(reply["result"]?["groups"], [["key": [:], "values": ["t": .null]]], "\(reply)")
    }
  }

  /// *Pinned*: arithmetic beyond 64 bits (integers) or beyond the doubles (overflow, and
  /// underflow of `*` and `/` with nonzero operands) goes on on SQLite as a double,
  /// infinity or 0; PostgreSQL fails the statement: -32020 `storage`, `sqlstate` 22003.
  func testArithmeticOutOfRangeFailsTheStatementOnPostgreSQL() throws {
    let s = try serve([["n": .int(Int64.max), "d": 1e300], ["n": 40, "d": .double(.leastNonzeroMagnitude)]])
    let cases: [(String, [String])] = [
      ("n * 2 > 0", ["Item/1", "Item/2"]),
      ("(n - 2) * 4611686018427387904 == 9223372036854775807", []),
      ("d * 1e300 >= 1000000000000000.0", ["Item/1"]),
      ("d / 10 >= 0", ["Item/1", "Item/2"]),
      ("d * 1e-300 == 0", ["Item/2"]),
    ]
    for (predicate, expected) in cases {
      for method in ["query.ids", "query.aggregate"] {
        var params: JSONObject = ["entity": "Item", "where": .string(predicate)]
        if method == "query.aggregate" { params["aggregates"] = [["fn": "count", "as": "c"]] }
        let reply = try s.request(method, params)
        if TestEngine.isPostgres {
          XCTAssertEqual(reply.errorCode, -32020, "\(predicate): \(reply)")
          XCTAssertEqual(reply["error"]?["data"]?["sqlstate"], "22003", "\(predicate): \(reply)")
          XCTAssertNil(reply["error"]?["data"]?["reason"], "\(predicate): not a sum: \(reply)")
        } else if method == "query.ids" {
          XCTAssertEqual(reply["result"]?["ids"], .array(expected.map { .string($0) }), "\(predicate): \(reply)")
        } else {
          XCTAssertEqual(
            reply["result"]?["groups"]?.arrayValue?.first?["values"]?["c"]?.intValue, Int64(expected.count), "\(predicate): \(reply)")
        }
      }
    }
  }
}
