import Foundation
import XCTest

@testable import JSONCore

/// The arena is lent to one thread at a time and rewound before it is given back: two
/// threads parsing at once (the dispatcher and the reader thread's cancel check) must each
/// get exactly their own values. Before the arena was thread-specific this crashed or
/// returned values parsed from the other thread's bytes within a few thousand rounds.
final class JanssonArenaTests: XCTestCase {
  func testTwoThreadsParsingAtOnceEachGetTheirOwnValues() throws {
    let rounds = 100_000
    let texts = [
      #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#,
      #"{"jsonrpc":"2.0","id":7,"method":"objects.insert","params":{"entity":"Item","values":{"title":"a fairly long title, to take more than one block","n":42,"tags":[1,2,3,4,5,6,7,8]}}}"#,
    ]
    let expected = try texts.map { try JSONParser.parse($0) }
    let failures = ManagedAtomicCounter()
    let group = DispatchGroup()
    for t in 0..<2 {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        let bytes = Array(texts[t].utf8)
        for _ in 0..<rounds {
          let value = try? JSONParser.parse(bytes)
          if value != expected[t] { failures.increment() }
        }
      }
    }
    XCTAssertEqual(group.wait(timeout: .now() + 300), .success, "the parsing threads did not finish")
    XCTAssertEqual(failures.value, 0, "parses that returned something else than their own text's value")
  }
}

/// A counter shared by test threads.
final class ManagedAtomicCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}

/// Raw NUL bytes: jansson passed over one after a number; the parser refuses it where it is.
final class RawNULTests: XCTestCase {
  func testARawNULByteIsASyntaxErrorAtItsPosition() {
    for (text, position) in [("{\"id\":1\u{0},\"m\":2}", 7), ("[1,\n\u{0}2]", 4), ("\"a\u{0}\"", 2)] {
      XCTAssertThrowsError(try JSONParser.parse(text), text.debugDescription) { error in
        let e = error as? JSONParseError
        XCTAssertEqual(e?.kind, .syntax)
        XCTAssertEqual(e?.position, position, text.debugDescription)
      }
    }
    XCTAssertEqual(try JSONParser.parse("\"a\\u0000b\""), .string("a\u{0}b"), "an escaped NUL in a string is fine")
  }
}
