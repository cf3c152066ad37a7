import Handlers
import StoreEngine
import XCTest

@testable import JSONCore
@testable import RPCCore

/// `context.save` reads its changes from the message text one at a time. Beside a server
/// that parses every message whole (the same handlers, no streamed params), it must give
/// the same replies and leave the same objects, for valid saves and for every kind of
/// bad input: bad params at every level, text that is not JSON anywhere in the message,
/// duplicate keys, nesting past the limit, failures in the middle of a large save.
final class StreamedSaveTests: XCTestCase {
  static let schema = """
    {"version":"1","entities":[\
    {"name":"Category","attributes":[{"name":"name","type":"string","unique":true}],\
    "relationships":[{"name":"tasks","destination":"Task","toMany":true,"inverse":"category","deleteRule":"cascade"}]},\
    {"name":"Task","attributes":[{"name":"title","type":"string"},{"name":"priority","type":"int","optional":true},\
    {"name":"done","type":"bool","default":false}],\
    "relationships":[{"name":"category","destination":"Category","optional":true,"inverse":"tasks"}]}]}
    """

  /// A server that streams `context.save`'s changes and one that parses messages whole.
  final class Pair {
    let streamed: Server
    let whole: Server
    var nextID = 0
    /// Messages the streaming server took as streamed saves.
    var streamedMessages = 0

    init() throws {
      streamed = Server(input: -1, output: -1, log: Logger(level: .error))
      whole = Server(input: -1, output: -1, log: Logger(level: .error))
      let a = Session(server: streamed, store: try Store(path: nil))
      streamed.register(a.methods())
      XCTAssertEqual(a.methods().streamedParams, ["context.save": "changes"])
      let b = Session(server: whole, store: try Store(path: nil))
      let table = b.methods()
      whole.register(MethodRegistry(table.names.map { ($0, table.handlers[$0]!) }))
      _ = try call("model.define", #"{"schema":\#(StreamedSaveTests.schema)}"#)
    }

    /// Sends `text` to both; fails unless both replies are the same. Returns the reply.
    @discardableResult
    func send(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
      send(Array(text.utf8), file: file, line: line)
    }

    @discardableResult
    func send(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> String? {
      // `handle` would take the same way; called directly to count the messages streamed.
      let outcome = streamed.handleStreamed(bytes)
      if outcome != nil { streamedMessages += 1 }
      let a = (outcome.map { $0.reply } ?? streamed.handle(bytes)).map { JSONWriter.encodeString($0) }
      let b = whole.handle(bytes).map { JSONWriter.encodeString($0) }
      XCTAssertEqual(a, b, String(decoding: bytes.prefix(400), as: UTF8.self), file: file, line: line)
      return a
    }

    func call(_ method: String, _ params: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
      nextID += 1
      let reply = try XCTUnwrap(
        send(#"{"jsonrpc":"2.0","id":\#(nextID),"method":"\#(method)","params":\#(params)}"#, file: file, line: line))
      return try JSONParser.parse(reply)
    }

    /// Both stores hold the same objects (fetched through each server).
    func checkSameObjects(file: StaticString = #filePath, line: UInt = #line) throws {
      for entity in ["Category", "Task"] {
        let r = try call(
          "query.fetch",
          #"{"entity":"\#(entity)","sort":["title"]}"#.replacingOccurrences(of: "title", with: entity == "Task" ? "title" : "name"),
          file: file, line: line)
        XCTAssertNotNil(r["result"], "\(r)", file: file, line: line)
      }
    }

    func count(_ entity: String) throws -> Int64? {
      let r = try call("query.count", #"{"entity":"\#(entity)"}"#)
      if case .int(let n)? = r["result"]?["count"] { return n }
      if case .int(let n)? = r["result"] { return n }
      return nil
    }
  }

  /// Runs `body` with the changes read on the handler's thread, then parsed ahead.
  func bothWays(_ body: () throws -> Void) rethrows {
    defer { JSONArrayStream.parseAheadMinimumBytes = 1 << 16 }
    for minimum in [Int.max, 0] {
      JSONArrayStream.parseAheadMinimumBytes = minimum
      try body()
    }
  }

  static func save(_ id: Int, _ changes: [String], extra: String = "") -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"context.save","params":{"changes":[\#(changes.joined(separator: ","))]\#(extra)}}"#
  }

  func testValidSavesGiveTheSameRepliesAndObjects() throws {
    try bothWays {
      let p = try Pair()
      let changes = [
        #"{"op":"insert","entity":"Task","ref":"$t","values":{"title":"Plan trip","category":"$c"}}"#,
        #"{"op":"insert","entity":"Category","ref":"$c","values":{"name":"Travel é \"x\" [y]"}}"#,
        #"{"op":"insert","entity":"Task","values":{"title":"b","priority":3,"done":true,"category":"$c"}}"#,
        #"{"op":"update","id":"$t","values":{"priority":1}}"#,
      ]
      let reply = try XCTUnwrap(p.send(Self.save(1, changes, extra: #","author":"me""#)))
      XCTAssertTrue(reply.contains(#""ids":{"$t":"Task/1","$c":"Category/1"}"#), reply)
      XCTAssertTrue(reply.contains(#""inserted":["Task/1","Category/1","Task/2"],"updated":["Task/1"],"deleted":[]"#), reply)
      // Members in another order, the method last, whitespace and newlines anywhere.
      p.send(
        "{ \"params\" : {\n \"author\":\"you\", \"changes\" : [\n \(#"{"op":"delete","id":"Task/2"}"#) ,\n\(#"{"op":"update","id":"Task/1","values":{"title":"c"}}"#)\n ] } ,\n \"id\":\"x\", \"jsonrpc\":\"2.0\",\"method\":\"context.save\"}"
      )
      p.send(Self.save(3, []))
      p.send(#"{"jsonrpc":"2.0","method":"context.save","params":{"changes":[{"op":"insert","entity":"Category","values":{"name":"n"}}]}}"#)  // a notification
      XCTAssertEqual(p.streamedMessages, 4)
      try p.checkSameObjects()
      XCTAssertEqual(try p.count("Category"), 2)
      XCTAssertEqual(try p.count("Task"), 1)
    }
  }

  func testBadParamsAtEveryLevel() throws {
    let good = #"{"op":"insert","entity":"Task","values":{"title":"ok"}}"#
    let bad = [
      #"{"entity":"Task"}"#, #"{"op":"upsert","entity":"Task"}"#, #"{"op":7}"#, #"{"op":"insert","entity":"Task","x":1}"#,
      #"{"op":"insert","entity":"Nope"}"#, #"{"op":"insert","entity":"Task","values":[1]}"#,
      #"{"op":"insert","entity":"Task","values":{"title":5}}"#, #"{"op":"insert","entity":"Task","values":{"titel":"x"}}"#,
      #"{"op":"insert","entity":"Task","values":{"_id":"Task/9","title":"x"}}"#, #"{"op":"insert","entity":"Task","values":{}}"#,
      #"{"op":"insert","entity":"Task","ref":"t","values":{"title":"x"}}"#,
      #"{"op":"insert","entity":"Task","ref":"$a","values":{"title":"x"}}"#,
      #"{"op":"insert","entity":"Task","values":{"title":"x","category":"$nowhere"}}"#,
      #"{"op":"insert","entity":"Task","values":{"title":"x","category":"Task/1"}}"#, #"{"op":"update","id":"Task/999","values":{}}"#,
      #"{"op":"update","id":"nope","values":{}}"#, #"{"op":"delete","id":"$unknown"}"#, #"{"op":"delete"}"#, "3", "null", "[]",
      #"{"op":"insert","entity":"Category","values":{"name":"dup"}}"#,
    ]
    try bothWays {
      let p = try Pair()
      for (i, b) in bad.enumerated() {
        for at in [0, 1, 5] {
          var changes = [String](repeating: good, count: 6)
          changes.insert(#"{"op":"insert","entity":"Task","ref":"$a","values":{"title":"a"}}"#, at: 0)
          changes.insert(#"{"op":"insert","entity":"Category","values":{"name":"dup"}}"#, at: 1)
          changes.insert(b, at: at + 2)
          let reply = try XCTUnwrap(p.send(Self.save(i, changes)))
          XCTAssertTrue(reply.contains(#""error""#), reply)
        }
      }
      for params in [
        #"{"changes":[],"x":1}"#, #"{"changes":[],"author":5}"#, #"{"changes":{}}"#, #"{"changes":"[]"}"#, "{}", "[]", "7",
        #"{"changes":[\#(good)],"author":["a"]}"#,
      ] {
        p.send(#"{"jsonrpc":"2.0","id":1,"method":"context.save","params":\#(params)}"#)
      }
      for envelope in [
        #"{"jsonrpc":"1.0","id":1,"method":"context.save","params":{"changes":[\#(good)]}}"#,
        #"{"jsonrpc":"2.0","id":[1],"method":"context.save","params":{"changes":[\#(good)]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"context.save","params":{"changes":[\#(good)]},"extra":true}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"context.sav\u0065","params":{"changes":[\#(good)]}}"#,
        #"[{"jsonrpc":"2.0","id":1,"method":"context.save","params":{"changes":[\#(good)]}}]"#,
      ] {
        p.send(envelope)
      }
      XCTAssertEqual(
        p.streamedMessages, bad.count * 3 + 3 + 3, "all but those whose params have no array of changes, the escaped method and the batch")
      try p.checkSameObjects()
      XCTAssertEqual(try p.count("Task"), 2, "only the two single saves that were valid")
    }
  }

  /// Every cut and one-byte edit of a save message: the same reply from both, and the
  /// same objects after (a message that is not JSON changes nothing).
  func testBrokenMessagesGiveTheSameReplies() throws {
    let text = Array(
      Self.save(
        5,
        [
          #"{"op":"insert","entity":"Category","ref":"$c","values":{"name":"é\n"}}"#,
          #"{"op":"insert","entity":"Task","values":{"title":"[t]","category":"$c","priority":-2}}"#,
        ], extra: #","author":"a""#
      ).utf8)
    let edits: [[UInt8]] = [
      [], Array("}".utf8), Array("]".utf8), Array(",".utf8), Array("\"".utf8), [0x0A], [0xFF], Array("{".utf8), [0x00],
    ]
    try bothWays {
      let p = try Pair()
      for i in stride(from: 0, to: text.count, by: 1) {
        p.send(Array(text[..<i]))
        for e in edits { p.send(Array(text[..<i]) + e + Array(text[(i + 1)...])) }
      }
      try p.checkSameObjects()
    }
  }

  func testDuplicateKeysAndNesting() throws {
    let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
    try bothWays {
      let p = try Pair()
      for changes in [
        [#"{"op":"insert","op":"insert","entity":"Task","values":{"title":"x"}}"#],
        [#"{"op":"insert","entity":"Task","values":{"title":"x","title":"y"}}"#],
        [#"{"op":"insert","entity":"Task","values":{"title":"x"}}"#, deep],
        [#"{"op":"insert","entity":"Task","values":{"title":"x"}}"#, deep, #"{"a" 1}"#],
        [#"{"op":"insert","entity":"Task","values":{"title":"x","n":\#(deep)}}"#],
      ] {
        p.send(Self.save(1, changes))
      }
      let good = #"{"op":"insert","entity":"Task","values":{"title":"x"}}"#
      p.send(#"{"jsonrpc":"2.0","id":1,"id":2,"method":"context.save","params":{"changes":[\#(good)]}}"#)
      p.send(#"{"jsonrpc":"2.0","id":1,"method":"context.save","params":{"changes":[\#(good)],"changes":[]}}"#)
      p.send(#"{"jsonrpc":"2.0","id":1,"method":"context.save","params":{"changes":[\#(good)]},"params":{}}"#)
      p.send(#"{"jsonrpc":"2.0","id":\#(deep),"method":"context.save","params":{"changes":[\#(good)]}}"#)
      XCTAssertEqual(p.streamedMessages, 9)
      try p.checkSameObjects()
      XCTAssertEqual(try p.count("Task"), 0)
    }
  }

  /// A large save that fails near its end keeps nothing, whether the failure is a
  /// constraint, a bad param or text that is not JSON; the same save without the fault
  /// keeps everything.
  func testALargeSaveIsAtomic() throws {
    let n = 3000
    func changes(fault: String?, at k: Int) -> [String] {
      var list = [#"{"op":"insert","entity":"Category","ref":"$c","values":{"name":"big"}}"#]
      for i in 0..<n { list.append(#"{"op":"insert","entity":"Task","ref":"$t\#(i)","values":{"title":"task \#(i)","category":"$c"}}"#) }
      if let fault { list[k] = fault }
      return list
    }
    try bothWays {
      let p = try Pair()
      for fault in [
        #"{"op":"insert","entity":"Category","values":{"name":"big"}}"#, #"{"op":"insert","entity":"Task","values":{"title":7}}"#,
        #"{"op":"insert","entity":"Task","values":{"title":"x"} "#, #"{"op":"insert","entity":"Task","values":{"title":"x","title":"y"}}"#,
      ] {
        let reply = try XCTUnwrap(p.send(Self.save(1, changes(fault: fault, at: n - 10))))
        XCTAssertTrue(reply.contains(#""error""#), reply)
        XCTAssertEqual(try p.count("Task"), 0)
        XCTAssertEqual(try p.count("Category"), 0)
      }
      // Cut short in the middle (a client that died while writing).
      let text = Array(Self.save(1, changes(fault: nil, at: 0)).utf8)
      let reply = try XCTUnwrap(p.send(Array(text[..<(text.count * 2 / 3)])))
      XCTAssertTrue(reply.contains("-32700"), reply)
      XCTAssertEqual(try p.count("Task"), 0)
      let ok = try XCTUnwrap(p.send(Self.save(2, changes(fault: nil, at: 0))))
      XCTAssertTrue(ok.contains(#""$t2999":"Task/3000""#), String(ok.suffix(200)))
      XCTAssertEqual(try p.count("Task"), Int64(n))
      XCTAssertEqual(p.streamedMessages, 6)
    }
  }

  /// Inside a client transaction a failing save rolls back only itself.
  func testAFailingSaveInsideATransactionRollsBackOnlyItself() throws {
    try bothWays {
      let p = try Pair()
      _ = try p.call("transaction.begin", "{}")
      p.send(Self.save(1, [#"{"op":"insert","entity":"Task","values":{"title":"kept"}}"#]))
      p.send(Self.save(2, [#"{"op":"insert","entity":"Task","values":{"title":"gone"}}"#, #"{"op":"insert" "#]))
      p.send(Self.save(3, [#"{"op":"insert","entity":"Task","values":{"title":"gone"}}"#, #"{"op":"insert"}"#]))
      _ = try p.call("transaction.commit", "{}")
      XCTAssertEqual(try p.count("Task"), 1)
    }
  }
}
