import Foundation
import JSONCore
import TestSupport
import XCTest

@testable import Studio

/// `modelstore studio` against hostile input: requests that are no valid HTTP or pass its
/// limits, paths that try to leave the page's files, a body too large to keep, and many
/// connections at once. Each gets an HTTP error (or, for bytes libmicrohttpd cannot read as
/// a request at all, the connection closed) and nothing else: no 2xx, no file, no change
/// to the store, and the studio serves on.
final class StudioHostileInputTests: XCTestCase {
  private var dir: TemporaryDirectory!
  private var store: String { dir.file("notes.store") }

  override func setUpWithError() throws {
    dir = try TemporaryDirectory("modelstore-studio-hostile")
    try StudioHTTPTests.writeNotes(store)
  }

  override func tearDown() { dir?.remove() }

  /// The studio still answers a good request with the page's script, and its store holds one note.
  private func assertServing(_ studio: StudioProcess, after what: String, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertTrue(studio.process.process.isRunning, "the studio ended after \(what): \(studio.process.stderr)", file: file, line: line)
    let good = try RawConnection.exchange(port: studio.port, request("GET", "/assets/main.js", studio))
    XCTAssertEqual(RawConnection.status(of: good), 200, "after \(what)", file: file, line: line)
  }

  private func request(_ method: String, _ target: String, _ studio: StudioProcess, token: Bool = true, extra: String = "") -> [UInt8] {
    let t = token ? (target.contains("?") ? "&" : "?") + "token=\(studio.token)" : ""
    return Array("\(method) \(target)\(t) HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\nConnection: close\r\n\(extra)\r\n".utf8)
  }

  func testMalformedRequestsGetAnHTTPError() throws {
    let studio = try StudioProcess(["--store", store])
    let host = "Host: 127.0.0.1:\(studio.port)\r\nConnection: close\r\n"
    let token = "token=\(studio.token)"
    let json = "Content-Type: application/json\r\n"
    let cases: [(String, [UInt8], Int)] = [
      (
        "a request line of 100,000 bytes", Array("GET /\(String(repeating: "a", count: 100_000))?\(token) HTTP/1.1\r\n\(host)\r\n".utf8),
        414
      ),
      (
        "a header of 200,000 bytes",
        Array("GET /?\(token) HTTP/1.1\r\n\(host)X-Long: \(String(repeating: "b", count: 200_000))\r\n\r\n".utf8), 431
      ),
      (
        "3,000 headers", Array("GET /?\(token) HTTP/1.1\r\n\(host)\((0..<3000).map { "X-\($0): y\r\n" }.joined())\r\n".utf8), 431
      ),
      ("a request line of three words that are no request", Array("GARBAGE x y\r\n\(host)\r\n".utf8), 400),
      ("an empty target", Array("GET  HTTP/1.1\r\n\(host)\r\n".utf8), 400),
      ("an unknown HTTP version", Array("GET /?\(token) HTTP/9.9\r\n\(host)\r\n".utf8), 505),
      ("a header line without a colon", Array("GET /?\(token) HTTP/1.1\r\n\(host)No colon here\r\n\r\n".utf8), 400),
      ("a negative Content-Length", Array("POST /rpc?\(token) HTTP/1.1\r\n\(host)\(json)Content-Length: -5\r\n\r\n".utf8), 400),
      (
        "a Content-Length past 2^64",
        Array("POST /rpc?\(token) HTTP/1.1\r\n\(host)\(json)Content-Length: 99999999999999999999999\r\n\r\n".utf8),
        413
      ),
      (
        "a chunk size that is no number",
        Array("POST /rpc?\(token) HTTP/1.1\r\n\(host)\(json)Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n".utf8), 400
      ),
      // Without a framing the server knows, libmicrohttpd would read the body until the client closes.
      (
        "a Transfer-Encoding other than chunked",
        Array("POST /rpc?\(token) HTTP/1.1\r\n\(host)\(json)Transfer-Encoding: gzip\r\n\r\nabc".utf8), 501
      ),
      (
        "chunked twice", Array("POST /rpc?\(token) HTTP/1.1\r\n\(host)\(json)Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n".utf8),
        501
      ),
      ("no Host (HTTP/1.0)", Array("GET /?\(token) HTTP/1.0\r\n\r\n".utf8), 421),
      ("Host twice", Array("GET /?\(token) HTTP/1.1\r\n\(host)Host: rebound.example\r\n\r\n".utf8), 421),
      ("the token twice", Array("GET /?token=0&\(token) HTTP/1.1\r\n\(host)\r\n".utf8), 403),
      ("a method the studio does not serve", Array("TRACE /?\(token) HTTP/1.1\r\n\(host)\r\n".utf8), 405),
      ("a path that is no UTF-8", Array("GET /\u{FF}?\(token) HTTP/1.1\r\n\(host)\r\n".utf8).map { $0 == 0xC3 ? 0xFF : $0 }, 404),
    ]
    for (what, bytes, status) in cases {
      let reply = try RawConnection.exchange(port: studio.port, bytes)
      XCTAssertEqual(RawConnection.status(of: reply), status, "\(what): \(String(decoding: reply.prefix(300), as: UTF8.self))")
      try assertServing(studio, after: what)
    }
    // Bytes that are no request line at all, or a head that fills libmicrohttpd's memory for
    // a connection with records (3,000 cookies): it closes the connection without a word.
    let cookies = "GET /?\(token) HTTP/1.1\r\n\(host)Cookie: \(String(repeating: "a=b; ", count: 3000))\r\n\r\n"
    for (what, bytes) in [
      ("a request line of one word", Array("GARBAGE\r\n\r\n".utf8)), ("a method alone", Array("GET\r\n\r\n".utf8)),
      ("3,000 cookies", Array(cookies.utf8)),
    ] {
      let reply = try RawConnection.exchange(port: studio.port, bytes)
      XCTAssertTrue(reply.isEmpty || (RawConnection.status(of: reply) ?? 0) >= 400, "\(what): \(String(decoding: reply, as: UTF8.self))")
      try assertServing(studio, after: what)
    }
    let count = try runModelstore(["query", store, "Note", "--format", "json"])
    XCTAssertEqual((try JSONParser.parse(count.stdout).arrayValue ?? []).count, 1, "the store is as it was")
    XCTAssertEqual(studio.stop(), 0)
  }

  /// Nothing but the page's own files is served, however the path is spelled; the page's
  /// files come from the binary, so no spelling can reach the file system.
  func testPathsThatTryToLeaveThePage() throws {
    let studio = try StudioProcess(["--store", store])
    let paths = [
      "/assets/../Package.swift", "/assets/%2e%2e/%2e%2e/Package.swift", "/assets/..%2f..%2f..%2fetc%2fpasswd", "//etc/passwd",
      "/assets//etc/passwd", "/assets/%2Fetc%2Fpasswd", "/assets/", "/assets", "/ASSETS/main.js", "/assets/main.js/",
      // An escaped NUL is kept as it came: decoded, `main.js%00.png` would have named main.js.
      "/assets/main.js%00.png", "/%00", "http://127.0.0.1:\(studio.port)/etc/passwd", "/rpc/../assets/main.js",
      "/assets/\(dir.file("notes.store"))", "/\(dir.file("notes.store"))",
    ]
    for path in paths {
      let reply = try RawConnection.exchange(port: studio.port, request("GET", path, studio))
      let text = String(decoding: reply, as: UTF8.self)
      XCTAssertEqual(RawConnection.status(of: reply), 404, "\(path): \(text.prefix(300))")
      XCTAssertFalse(text.contains("root:") || text.contains("PackageDescription") || text.contains("SQLite format"), path)
    }
    XCTAssertEqual(studio.stop(), 0)
  }

  /// A body past the limit is never kept: declared, it is refused before it is read;
  /// chunked, it is read and dropped as it comes, and refused at its end.
  func testAHugeBodyIsRefused() throws {
    let studio = try StudioProcess(["--store", store])
    let page = try StudioProcess.Events(studio)
    let head =
      "POST /rpc?token=\(studio.token) HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\nConnection: close\r\n"
      + "Content-Type: application/json\r\nModelStore-Session: \(page.session)\r\n"
    let declared = try RawConnection(port: studio.port)
    declared.send(head + "Content-Length: \(1 << 30)\r\n\r\n")
    XCTAssertEqual(RawConnection.status(of: declared.read()), 413)
    let chunked = try RawConnection(port: studio.port)
    chunked.send(head + "Transfer-Encoding: chunked\r\n\r\n")
    // 20 MiB of one JSON string, in chunks of 1 MiB (the limit is 16 MiB).
    let mebibyte = Array(String(repeating: "x", count: 1 << 20).utf8)
    let size = Array("100000\r\n".utf8)
    chunked.send(size + Array("[\"".utf8) + mebibyte.dropFirst(2) + Array("\r\n".utf8))
    for _ in 0..<19 { chunked.send(size + mebibyte + Array("\r\n".utf8)) }
    chunked.send("1\r\n]\r\n0\r\n\r\n")
    XCTAssertEqual(RawConnection.status(of: chunked.read()), 413)
    try assertServing(studio, after: "a huge body")
    XCTAssertEqual(studio.stop(), 0)
  }

  /// Many connections at once, past the connection limit (64) and the pages' limit (16):
  /// each gets its answer (the ones past the limit wait their turn in the kernel's
  /// queue), the pages past 16 get 503, and once they close new pages start.
  func testManyConnectionsAtOnce() throws {
    let studio = try StudioProcess(["--store", store, "--log-level", "info"])
    // Fewer requests than the studio serves at once (HTTPServer's connectionLimit, 64; the
    // margin for a connection of the start-up check the daemon may not have closed yet), all
    // connected and sent before any reply is read: each is answered.
    var connections: [RawConnection] = []
    for _ in 0..<48 { connections.append(try RawConnection(port: studio.port)) }
    for c in connections { c.send(request("GET", "/assets/main.js", studio)) }
    XCTAssertEqual(connections.map { RawConnection.status(of: $0.read()) }, Array(repeating: 200, count: 48))
    connections = []
    // 200 at once: a connection past the limit is closed without a byte (how many depends on
    // how fast the answered ones close theirs), every other one is answered whole.
    for _ in 0..<200 { connections.append(try RawConnection(port: studio.port)) }
    for c in connections { c.send(request("GET", "/assets/main.js", studio)) }
    let statuses = connections.map { RawConnection.status(of: $0.read()) }
    XCTAssertEqual(statuses.filter { $0 != 200 && $0 != nil }, [], "only answers or closed connections")
    XCTAssertGreaterThanOrEqual(statuses.filter { $0 == 200 }.count, 48, "those under the limit answered")
    connections = []
    // 24 pages at once: 16 sessions, 8 refused.
    let pages = try (0..<24).map { _ in try RawConnection(port: studio.port) }
    for p in pages { p.send(request("GET", "/events", studio)) }
    var sessions: [String] = []
    var refused = 0
    for p in pages {
      let bytes = p.read { Self.firstEvent(in: $0) != nil }
      switch RawConnection.status(of: bytes) {
      case 200: sessions.append(try XCTUnwrap(Self.firstEvent(in: bytes)?["session"]?.stringValue))
      case 503: refused += 1
      case let other: XCTFail("GET /events answered \(other.map(String.init) ?? "nothing"): \(String(decoding: bytes, as: UTF8.self))")
      }
    }
    XCTAssertEqual(sessions.count, 16)
    XCTAssertEqual(refused, 8)
    // The pages go away; each session ends (its store closed) and a new page starts.
    for p in pages { shutdown(p.fd, Int32(SHUT_RDWR)) }
    for id in sessions { XCTAssertTrue(studio.waitForLog("session \(id) ended"), studio.process.stderr) }
    let again = try StudioProcess.Events(studio)
    XCTAssertFalse(again.session.isEmpty)
    try assertServing(studio, after: "200 connections and 24 pages")
    XCTAssertEqual(studio.stop(), 0)
  }

  /// The data of the `session` event, once the stream has it whole.
  static func firstEvent(in bytes: [UInt8]) -> JSONValue? {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let start = text.range(of: "event: session\ndata: "), let end = text[start.upperBound...].firstIndex(of: "\n") else { return nil }
    return try? JSONParser.parse(String(text[start.upperBound..<end]))
  }

  /// The token is compared whole, byte by byte, without stopping at the first difference
  /// (`Secret.matches`): its time says nothing of how much of a guess was right.
  func testTheTokenComparison() throws {
    let secret = try XCTUnwrap(Secret.random(bytes: 32))
    XCTAssertEqual(secret.count, 64)
    XCTAssertNotEqual(Secret.random(bytes: 32), secret)
    XCTAssertTrue(Secret.matches(secret, secret))
    XCTAssertTrue(Secret.matches(String(secret), secret))
    var first = Array(secret.utf8)
    first[0] = first[0] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
    var last = Array(secret.utf8)
    last[63] = last[63] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
    for wrong in [
      String(decoding: first, as: UTF8.self), String(decoding: last, as: UTF8.self), String(secret.dropLast()), secret + "0", "",
      secret.uppercased(),
    ] where wrong != secret {
      XCTAssertFalse(Secret.matches(wrong, secret), wrong)
    }
    XCTAssertFalse(Secret.matches(nil, secret))
  }
}
