import Dispatch
import JSONCore
import XCTest

@testable import RPCCore

#if canImport(Glibc)
  import Glibc
#endif

final class FrameReaderTests: XCTestCase {
  private final class Recorder {
    var framings: [Framing] = []
    var cancels: [String] = []
    var cancelSeqs: [Int] = []
  }

  private func makeReader(max: Int = 1 << 20) -> (FrameReader, Recorder) {
    let rec = Recorder()
    let reader = FrameReader(
      maxMessageBytes: max, onFraming: { rec.framings.append($0) },
      onCancelCandidate: { bytes, seq in
        rec.cancels.append(String(decoding: bytes, as: UTF8.self))
        rec.cancelSeqs.append(seq)
      })
    return (reader, rec)
  }

  /// Feeds `chunks` one at a time and returns everything emitted.
  private func feed(_ reader: FrameReader, _ chunks: [String]) -> [String] {
    var out: [InboundItem] = []
    for c in chunks {
      var batch: [InboundItem] = []
      Array(c.utf8).withUnsafeBytes { reader.consume($0, &batch) }
      out += batch
    }
    return describe(out)
  }

  // MARK: - Deciding the framing

  func testDecideFraming() {
    func decide(_ s: String) -> Framing? { FrameReader.decideFraming(Array(s.utf8)) }
    XCTAssertEqual(decide("{\"jsonrpc\""), .lines)
    XCTAssertEqual(decide("["), .lines)
    XCTAssertEqual(decide("Content-Length: 12\r\n"), .headers)
    XCTAssertEqual(decide("content-length:5"), .headers, "any case")
    XCTAssertEqual(decide("CONTENT-LENGTH:"), .headers)
    XCTAssertEqual(decide("\r\n \tContent-Length: 3"), .headers, "leading blank bytes are skipped")
    XCTAssertNil(decide(""), "nothing to go on")
    XCTAssertNil(decide(" \r\n\t"))
    XCTAssertNil(decide("Content-Len"), "could still become a header")
    XCTAssertNil(decide("c"))
    XCTAssertNil(decide("123"), "a number could still become a header name")
    XCTAssertEqual(decide("123\n"), .lines)
    XCTAssertEqual(decide("Content-Type: x"), .headers, "LSP allows any header first")
    XCTAssertEqual(decide("Content-Lenght: 4"), .headers, "a misspelt header is a bad header block, not a bad line")
    XCTAssertEqual(decide("cx "), .lines)
    XCTAssertEqual(decide(":x"), .lines, "no header name")
    XCTAssertEqual(decide("\"a\":1"), .lines)
    XCTAssertEqual(decide("{\"Content-Length\": 3}"), .lines)
    XCTAssertEqual(decide(String(repeating: "a", count: 9000)), .lines, "no header name is that long")
  }

  /// A first message that never decided the framing (a bare number, a header name cut
  /// short) is read as a line when the input ends; it was dropped without a reply.
  func testUndecidedInputIsReadAsALineAtTheEnd() {
    for text in ["123", "Content-Len"] {
      let (reader, rec) = makeReader()
      var batch: [InboundItem] = []
      Array(text.utf8).withUnsafeBytes { reader.consume($0, &batch) }
      XCTAssertEqual(describe(batch), [])
      reader.finish(&batch)
      XCTAssertEqual(describe(batch), ["message:" + text])
      XCTAssertEqual(rec.framings, [.lines])
    }
  }

  // MARK: - Lines

  func testLinesAreSplitAcrossChunks() {
    let (reader, rec) = makeReader()
    XCTAssertEqual(feed(reader, ["{\"a\":1}\n{\"b\"", ":2}\n", "{\"c\":3}"]), ["message:{\"a\":1}", "message:{\"b\":2}"])
    XCTAssertEqual(rec.framings, [.lines])
    XCTAssertEqual(feed(reader, ["\n"]), ["message:{\"c\":3}"])
    XCTAssertEqual(reader.framing, .lines)
  }

  func testCRLFAndBlankLines() {
    let (reader, _) = makeReader()
    XCTAssertEqual(feed(reader, ["{\"a\":1}\r\n\r\n   \n\t\r\n{\"b\":2}\r\n"]), ["message:{\"a\":1}", "message:{\"b\":2}"])
  }

  func testFramingWaitsForEnoughBytes() {
    let (reader, rec) = makeReader()
    XCTAssertEqual(feed(reader, ["\n", "  "]), [])
    XCTAssertEqual(rec.framings, [])
    XCTAssertEqual(feed(reader, ["{}\n"]), ["message:  {}"], "blank lines are skipped; the JSON parser handles leading spaces")
    XCTAssertEqual(rec.framings, [.lines])
  }

  func testOversizeLineIsReportedAndSkipped() {
    let (reader, _) = makeReader(max: 10)
    XCTAssertEqual(feed(reader, ["{\"a\":\"0123456789\"}\n{\"b\":1}\n"]), ["tooLarge:18", "message:{\"b\":1}"])
  }

  func testOversizeLineAcrossChunksCountsEveryByte() {
    let (reader, _) = makeReader(max: 8)
    XCTAssertEqual(feed(reader, ["[1,2,3,", "4,5,6,7", ",8,9]", "\n[1]\n"]), ["tooLarge:19", "message:[1]"])
  }

  func testLineOfExactlyTheLimitIsAccepted() {
    let (reader, _) = makeReader(max: 7)
    XCTAssertEqual(feed(reader, ["[1,2,3]\n"]), ["message:[1,2,3]"])
  }

  func testCancelCandidatesAreNoticedOnTheReaderSide() {
    let (reader, rec) = makeReader()
    let cancel = #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":4}}"#
    XCTAssertEqual(feed(reader, [#"{"id":1}"# + "\n" + cancel + "\n"]).count, 2)
    XCTAssertEqual(rec.cancels, [cancel])
    XCTAssertEqual(rec.cancelSeqs, [1], "the cancel's position in the stream")
    XCTAssertTrue(FrameReader.mentionsCancel(Array(cancel.utf8)))
    XCTAssertFalse(FrameReader.mentionsCancel(Array("$/cancel".utf8)))
  }

  func testMessagesAreNumberedInStreamOrder() {
    let (reader, _) = makeReader()
    var batch: [InboundItem] = []
    Array("[1]\n\n[2]\n[3]\n".utf8).withUnsafeBytes { reader.consume($0, &batch) }
    let seqs = batch.compactMap { item -> Int? in
      if case .message(_, let seq) = item { return seq }
      return nil
    }
    XCTAssertEqual(seqs, [0, 1, 2], "blank lines take no number")
  }

  // MARK: - Content-Length headers

  func testHeaderFraming() {
    let (reader, rec) = makeReader()
    let body = #"{"jsonrpc":"2.0","id":1,"method":"x"}"#
    let out = feed(reader, ["Content-Length: \(body.utf8.count)\r\n\r\n\(body)Content-Length: 2\r\n\r\n{}"])
    XCTAssertEqual(out, ["message:" + body, "message:{}"])
    XCTAssertEqual(rec.framings, [.headers])
    XCTAssertEqual(reader.framing, .headers)
  }

  func testHeaderFramingAcrossChunksWithExtraHeaders() {
    let (reader, _) = makeReader()
    let body = #"{"k":"é"}"#
    let n = body.utf8.count
    let out = feed(
      reader, ["Content-", "Length: \(n)\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r", "\n\r\n{\"k\"", ":\"é\"}"])
    XCTAssertEqual(out, ["message:" + body], "the length counts bytes, not characters")
  }

  func testBareLineFeedHeaders() {
    let (reader, _) = makeReader()
    XCTAssertEqual(feed(reader, ["content-length: 2\n\n[]"]), ["message:[]"])
  }

  func testBadHeaders() {
    XCTAssertEqual(
      feed(makeReader().0, ["Content-Length: 2\r\n\r\n{}", "Content-Length: abc\r\n\r\n"]),
      ["message:{}", "badHeader:Content-Length is not a number: abc"])
    XCTAssertEqual(
      feed(makeReader().0, ["Content-Length: 1\r\nX-Other: 1\r\n\r\n1", "X-Other: 1\r\n\r\n"]),
      ["message:1", "badHeader:header block without Content-Length"])
    XCTAssertEqual(
      feed(makeReader().0, ["Content-Length: 1\r\n\r\n1", "garbage line\r\n\r\n"]),
      ["message:1", "badHeader:header line without ':': garbage line"])
    XCTAssertEqual(feed(makeReader().0, ["Content-Length: -4\r\n\r\n"]), ["badHeader:Content-Length is not a number: -4"])
  }

  /// protocol.md: blanks (spaces, tabs, CR, LF) before the first header block are skipped;
  /// they were fed into the first block, where ` Content-Length` is not `Content-Length`.
  func testBlanksBeforeTheFirstHeaderBlockAreSkipped() {
    for prefix in [" ", "\t", "\r\n", "\n", " \r\n\t ", "\r\n\r\n\r\n", "\n\n\n"] {
      let (reader, rec) = makeReader()
      XCTAssertEqual(feed(reader, [prefix + "Content-Length: 2\r\n\r\n{}"]), ["message:{}"], "prefix \(Array(prefix.utf8))")
      XCTAssertEqual(rec.framings, [.headers])
      let (split, _) = makeReader()
      XCTAssertEqual(
        feed(split, [prefix, "Content-", "Length: 2\r\n\r\n{}"]), ["message:{}"], "prefix \(Array(prefix.utf8)) in its own write")
    }
  }

  func testBlanksBetweenHeaderMessagesAreSkipped() {
    let (reader, _) = makeReader()
    XCTAssertEqual(
      feed(reader, ["Content-Length: 2\r\n\r\n{}\r\n \t", "\nContent-Length: 2\r\n\r\n[]\n\n", "Content-Length: 1\r\n\r\n1"]),
      ["message:{}", "message:[]", "message:1"])
  }

  /// After a malformed header block the length of what follows is unknown: input is skipped
  /// up to the next `Content-Length:`, so one bad block costs one message, not the session.
  func testMalformedHeaderBlockRecoversAtTheNextContentLength() {
    let body = #"{"jsonrpc":"2.0","id":1,"method":"x"}"#
    let next = "Content-Length: 2\r\n\r\n{}"
    let cases: [(String, String)] = [
      ("Content-Length: abc\r\n\r\n", "badHeader:Content-Length is not a number: abc"),
      ("Content-Length: 38\r\nno colon here\r\n\r\n", "badHeader:header line without ':': no colon here"),
      ("Content-Type: x\r\n\r\n", "badHeader:header block without Content-Length"),
    ]
    // Each session starts with a good message, so that the framing is headers.
    let first = "Content-Length: 1\r\n\r\n1"
    for (headers, error) in cases {
      XCTAssertEqual(feed(makeReader().0, [first + headers + body + next]), ["message:1", error, "message:{}"], headers)
      // The skipped body ends in `c`, and the next header arrives in pieces and in capitals.
      XCTAssertEqual(
        feed(makeReader().0, [first, headers, #"{"a":"abc"#, "cCont", "ENT-LENGTH", ": 2\r\n\r\n{}", next]),
        ["message:1", error, "message:{}", "message:{}"], headers)
    }
  }

  /// LSP allows other headers before `Content-Length`, and a first block that is
  /// malformed costs that message only. Both chose line framing, where every later
  /// message, `exit` included, was a parse error.
  func testFirstHeaderBlockDecidesHeadersWhateverItsFirstHeader() {
    let body = #"{"jsonrpc":"2.0","id":1,"method":"x"}"#
    let exit = #"{"jsonrpc":"2.0","method":"exit"}"#
    let next = "Content-Length: \(exit.utf8.count)\r\n\r\n" + exit
    let (reader, rec) = makeReader()
    XCTAssertEqual(
      feed(reader, ["Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body + next]),
      ["message:" + body, "message:" + exit])
    XCTAssertEqual(rec.framings, [.headers])
    for (first, error) in [
      ("Content-Lenght: 38\r\n\r\n", "badHeader:header block without Content-Length"),
      ("Content-Length: 3 8\r\n\r\n", "badHeader:Content-Length is not a number: 3 8"),
      ("X-Trace: 1\r\nno colon\r\n\r\n", "badHeader:header line without ':': no colon"),
    ] {
      let (reader, rec) = makeReader()
      XCTAssertEqual(feed(reader, [first + body + next]), [error, "message:" + exit], first)
      XCTAssertEqual(rec.framings, [.headers], first)
    }
  }

  /// While skipping the body of a bad block, a `Content-Length:` inside it (in a JSON
  /// string) starts no block of its own: skipping goes on from there, and the real block
  /// after the body is read. It took that real block into a second bad block, so the
  /// good message after a bad one was lost too.
  func testContentLengthInsideTheSkippedBodyIsSkipped() {
    let exit = #"{"jsonrpc":"2.0","method":"exit"}"#
    let next = "Content-Length: \(exit.utf8.count)\r\n\r\n" + exit
    for body in [
      #"{"jsonrpc":"2.0","id":1,"method":"objects.insert","params":{"values":{"title":"Content-Length: 12"}}}"#,
      #"{"a":"content-length:","b":"Content-Length: 5 Content-Length: x"}"#,
      #"{"a":"Content-Length:"#,
    ] {
      let first = "Content-Length: 1\r\n\r\n1"
      XCTAssertEqual(
        feed(makeReader().0, [first + "Content-Length: abc\r\n\r\n" + body + next + next]),
        ["message:1", "badHeader:Content-Length is not a number: abc", "message:" + exit, "message:" + exit], body)
      // The same, a byte at a time.
      let bytes = Array((first + "Content-Length: abc\r\n\r\n" + body + next).utf8).map { String(decoding: [$0], as: UTF8.self) }
      XCTAssertEqual(feed(makeReader().0, bytes), ["message:1", "badHeader:Content-Length is not a number: abc", "message:" + exit], body)
    }
  }

  func testOverlongHeaderBlockRecovers() {
    let (reader, _) = makeReader()
    let out = feed(reader, ["Content-Length: 1\r\nX: " + String(repeating: "a", count: 9000), "\r\n\r\n1", "Content-Length: 2\r\n\r\n[]"])
    XCTAssertEqual(out, ["badHeader:header block longer than 8192 bytes", "message:[]"])
  }

  func testEveryLaterMessageIsReadAfterABadBlock() {
    let (reader, _) = makeReader()
    let exit = #"{"jsonrpc":"2.0","method":"exit"}"#
    let out = feed(reader, ["Content-Length: twelve\r\n\r\n{\"id\":1}", "Content-Length: \(exit.utf8.count)\r\n\r\n\(exit)"])
    XCTAssertEqual(out, ["badHeader:Content-Length is not a number: twelve", "message:" + exit])
  }

  func testZeroLengthBody() {
    let (reader, _) = makeReader()
    XCTAssertEqual(feed(reader, ["Content-Length: 0\r\n\r\nContent-Length: 1\r\n\r\n1"]), ["message:", "message:1"])
  }

  func testOversizeBodyIsSkipped() {
    let (reader, _) = makeReader(max: 4)
    XCTAssertEqual(feed(reader, ["Content-Length: 6\r\n\r\n[1,2]", " Content-Length: 2\r\n\r\n[]"]), ["tooLarge:6", "message:[]"])
  }

  func testOverlongHeaderBlock() {
    let (reader, _) = makeReader()
    let out = feed(reader, ["Content-Length: 1\r\nX: " + String(repeating: "a", count: 9000)])
    XCTAssertEqual(out, ["badHeader:header block longer than 8192 bytes"])
  }
}
