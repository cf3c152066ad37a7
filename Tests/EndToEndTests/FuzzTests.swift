import Foundation
import JSONCore
import TestSupport
import XCTest

/// Random bytes and mutated requests: the process never dies and answers every line that
/// needs an answer, exactly once.
final class FuzzTests: XCTestCase {
  /// SplitMix64 (TestSupport): small, seedable, identical on every platform.
  typealias SeededRandom = TestSupport.SeededRandom

  /// Requests whose mutations cannot end the session or touch the file system.
  static let seeds: [String] = [
    requestLine(1, "store.info"),
    requestLine(2, "query.count", ["entity": "Item", "where": "n > 3 AND title CONTAINS[c] \"a\""]),
    requestLine("s3", "objects.insert", ["entity": "Item", "values": ["title": "fuzz", "n": 7]]),
    requestLine(4, "query.fetch", ["entity": "Item", "where": "n BETWEEN {1, 5}", "sort": [["key": "n", "ascending": false]], "limit": 3]),
    requestLine(5, "context.save", ["changes": [["op": "insert", "entity": "Item", "ref": "$a", "values": ["title": "x"]], ["op": "update", "id": "$a", "values": ["n": 2]]]]),
    requestLine(6, "model.validate", ["schema": itemSchema]),
    requestLine(7, "objects.get", ["id": "Item/1"]),
    requestLine(8, "query.ids", ["entity": "Item", "where": "title == %@", "args": ["fuzz"]]),
    requestLine(9, "objects.updateWhere", ["entity": "Item", "where": "n == 7", "values": ["n": 8]]),
    notificationLine("$/cancelRequest", ["id": 12345]),
    notificationLine("$/setTrace", ["value": "off"]),
    #"[{"jsonrpc":"2.0","id":10,"method":"store.info"},{"jsonrpc":"2.0","id":11,"method":"query.count","params":{"entity":"Item"}}]"#,
    #"{"jsonrpc":"2.0","id":12,"result":{"ok":true}}"#,
  ]

  static let forbidden = ["exit", "shutdown", "store.open", "store.backup", "transaction", "model.define", "Content-Length"].map { Array($0.utf8) }

  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle {
      return true
    }
    return false
  }

  static func mutate(_ input: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
    var b = input
    let structural = Array("{}[]\":,\\ 0-eE.tfn".utf8)
    for _ in 0..<Int.random(in: 1...4, using: &rng) {
      guard !b.isEmpty else { break }
      let i = Int.random(in: 0..<b.count, using: &rng)
      switch Int.random(in: 0..<7, using: &rng) {
      case 0: b[i] = UInt8.random(in: 0...255, using: &rng)
      case 1: b.insert(UInt8.random(in: 0...255, using: &rng), at: i)
      case 2: b.remove(at: i)
      case 3: b[i] = structural.randomElement(using: &rng)!
      case 4: b = Array(b[..<i])
      case 5:
        let j = Int.random(in: i..<b.count, using: &rng)
        b.insert(contentsOf: b[i...j], at: j)
      default: b[i] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
      }
    }
    return b
  }

  /// How many replies a line may get: exactly one, or (for notifications and client
  /// responses, including malformed ones) at most one.
  enum Expectation { case one, atMostOne, none }

  static func expectation(_ line: [UInt8]) -> Expectation {
    var trimmed = line
    if trimmed.last == 0x0D { trimmed.removeLast() }
    if trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .none }
    guard let value = try? JSONParser.parse(trimmed) else { return .one }
    func needsReply(_ v: JSONValue) -> Bool {
      guard case .object(let o) = v else { return true }
      guard o["id"] != nil else { return false }  // a notification, perhaps malformed
      let isResponse = o["method"] == nil && (o["result"] != nil || o["error"] != nil)
      return !isResponse
    }
    switch value {
    case .array(let items):
      if items.isEmpty { return .one }
      return items.contains(where: needsReply) ? .one : .atMostOne
    case .object:
      return needsReply(value) ? .one : .atMostOne
    default:
      return .one
    }
  }

  func testRandomAndMutatedInputNeverCrashesAndIsAlwaysAnswered() throws {
    let seed = UInt64(ProcessInfo.processInfo.environment["MODELSTORE_FUZZ_SEED"] ?? "") ?? 0x5EED_2026
    var rng = SeededRandom(state: seed)
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    // Any file a mutated request might create lands in the temporary folder.
    let server = try ServerProcess(arguments: ["serve", "--memory"], currentDirectory: dir.url)
    _ = try server.call("initialize")
    _ = try server.call("model.define", ["schema": itemSchema])

    var cases: [[UInt8]] = []
    while cases.count < 2000 {
      var line: [UInt8]
      if cases.count % 2 == 0 {
        line = (0..<Int.random(in: 0...160, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
      } else {
        line = Self.mutate(Array(Self.seeds.randomElement(using: &rng)!.utf8), &rng)
      }
      line = line.map { $0 == 0x0A ? 0x20 : $0 }
      if Self.forbidden.contains(where: { Self.contains(line, $0) }) { continue }
      cases.append(line)
    }

    var answered = 0, silent = 0
    let chunk = 50
    for start in stride(from: 0, to: cases.count, by: chunk) {
      var data = Data()
      let slice = start..<min(start + chunk, cases.count)
      for k in slice {
        data.append(contentsOf: cases[k])
        data.append(0x0A)
        // A sentinel after each case attributes the replies in between to that case.
        data.append(contentsOf: Array((requestLine(.string("sentinel-\(k)"), "store.info") + "\n").utf8))
      }
      server.sendRaw(data)
      for k in slice {
        var replies: [JSONObject] = []
        while true {
          guard let line = server.readLine(timeout: 20) else {
            XCTFail("no reply for case \(k) (seed \(seed)): \(String(decoding: cases[k], as: UTF8.self).debugDescription); stderr: \(server.stderr)")
            return
          }
          let parsed = try? JSONParser.parse(line)
          guard let reply = parsed?.objectValue ?? (parsed?.arrayValue != nil ? (["batch": parsed!] as JSONObject) : nil) else {
            XCTFail("stdout line is not JSON: \(line.prefix(200))")
            return
          }
          if reply["id"] == .string("sentinel-\(k)") {
            XCTAssertNotNil(reply["result"], "sentinel \(k): \(reply)")
            break
          }
          if reply["batch"] == nil { XCTAssertEqual(reply["jsonrpc"], "2.0", "\(reply)") }
          replies.append(reply)
        }
        let text = String(decoding: cases[k], as: UTF8.self).debugDescription
        switch Self.expectation(cases[k]) {
        case .one: XCTAssertEqual(replies.count, 1, "case \(k) (seed \(seed)) \(text): \(replies)")
        case .atMostOne: XCTAssertLessThanOrEqual(replies.count, 1, "case \(k) (seed \(seed)) \(text): \(replies)")
        case .none: XCTAssertEqual(replies.count, 0, "case \(k) (seed \(seed)) \(text): \(replies)")
        }
        // A request with a usable id gets its reply under that id.
        if replies.count == 1, case .object(let request)? = try? JSONParser.parse(cases[k]), let id = request["id"],
          id.stringValue != nil || id.intValue != nil
        {
          XCTAssertEqual(replies[0]["id"], id, "case \(k) \(text)")
        }
        if replies.isEmpty { silent += 1 } else { answered += 1 }
      }
      XCTAssertTrue(server.process.isRunning, "the server died at case \(start)...; stderr: \(server.stderr)")
    }
    print("FuzzTests: \(cases.count) lines (seed \(seed)): \(answered) answered, \(silent) silent")
    XCTAssertGreaterThan(answered, 1500)
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    XCTAssertFalse(server.endedBySignal)
  }
}
