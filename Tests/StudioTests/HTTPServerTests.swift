import Foundation
import HTTPServer
import Synchronization
import TestSupport
import XCTest

/// The libmicrohttpd wrapper on its own, in this process, spoken to with curl: what a
/// handler is given (the head first, then the whole body), the body limit with and
/// without Content-Length, streamed bodies, and the loopback address.
final class HTTPServerTests: XCTestCase {
  private let curl = URL(fileURLWithPath: "/usr/bin/curl")

  override func setUpWithError() throws {
    guard FileManager.default.isExecutableFile(atPath: curl.path) else { throw XCTSkip("curl is not installed at /usr/bin/curl") }
  }

  /// What the handlers saw, for the test to look at.
  final class Seen: Sendable {
    let heads = Mutex<[HTTPRequest]>([])
    let requests = Mutex<[HTTPRequest]>([])
  }

  private func start(maxBodyBytes: Int = 1024, seen: Seen = Seen()) throws -> HTTPServer {
    var options = HTTPServer.Options()
    options.maxBodyBytes = maxBodyBytes
    return try HTTPServer(
      options: options,
      admit: { head in
        seen.heads.withLock { $0.append(head) }
        return head.path == "/refused" ? .text(403, "no") : nil
      },
      respond: { request in
        seen.requests.withLock { $0.append(request) }
        if request.path == "/stream" { return HTTPResponse(status: 200, body: .stream(Countdown(3))) }
        return HTTPResponse(status: 200, headers: [HTTPField("X-Body-Bytes", "\(request.body.count)")], body: .bytes(request.body))
      })
  }

  private func curl(_ args: [String]) throws -> RunResult {
    try runProgram(curl, ["-s", "-S", "--max-time", "60"] + args, timeout: 90)
  }

  func testTheHandlerGetsTheHeadThenTheWholeBody() throws {
    let seen = Seen()
    let server = try start(seen: seen)
    defer { server.stop() }
    let base = "http://127.0.0.1:\(server.port)"
    let r = try curl(["-H", "X-Twice: 1", "-H", "X-Twice: 2", "--data-binary", "hello", "\(base)/echo?a=x%20y&flag&a2=%2F"])
    XCTAssertEqual(r.stdout, "hello")
    let request = try XCTUnwrap(seen.requests.withLock { $0.last })
    XCTAssertEqual(request.method, "POST")
    XCTAssertEqual(request.path, "/echo")
    XCTAssertEqual(request.queryValue("a"), "x y")
    XCTAssertEqual(request.queryValue("a2"), "/")
    XCTAssertTrue(request.query.contains(HTTPField("flag", nil)))
    XCTAssertEqual(request.headerValues("x-twice"), ["1", "2"])
    XCTAssertNil(request.header("X-Twice"), "a repeated header is no single value")
    XCTAssertEqual(request.header("host"), "127.0.0.1:\(server.port)")
    // A refused head never reaches `respond`, and its body is not kept.
    let refused = try curl(["-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "secret", "\(base)/refused"])
    XCTAssertEqual(refused.stdout, "403")
    XCTAssertFalse(seen.requests.withLock { $0.contains { $0.path == "/refused" } })
    XCTAssertTrue(seen.heads.withLock { $0.contains { $0.path == "/refused" && $0.body.isEmpty } })
  }

  func testABodyOverTheLimitIsRefusedWithOrWithoutContentLength() throws {
    let seen = Seen()
    let server = try start(maxBodyBytes: 1024, seen: seen)
    defer { server.stop() }
    let base = "http://127.0.0.1:\(server.port)"
    let body = String(repeating: "x", count: 4096)
    let exact = try curl(["-o", "/dev/null", "-w", "%{http_code}", "--data-binary", String(repeating: "y", count: 1024), "\(base)/ok"])
    XCTAssertEqual(exact.stdout, "200")
    let declared = try curl(["-o", "/dev/null", "-w", "%{http_code}", "--data-binary", body, "\(base)/big"])
    XCTAssertEqual(declared.stdout, "413")
    // Chunked: the size is learnt while reading, and the body dropped from the limit on.
    let chunked = try curl([
      "-o", "/dev/null", "-w", "%{http_code}", "-H", "Transfer-Encoding: chunked", "--data-binary", body, "\(base)/chunked",
    ])
    XCTAssertEqual(chunked.stdout, "413", chunked.stderr)
    XCTAssertEqual(seen.requests.withLock { $0.map(\.path) }, ["/ok"], "no request over the limit reached respond")
  }

  /// A body whose end the server could not find (a Transfer-Encoding other than chunked)
  /// is refused from its head, and the path's escaped NUL is not decoded into the path.
  func testUnframedBodiesAndEscapedNULs() throws {
    let seen = Seen()
    let server = try start(seen: seen)
    defer { server.stop() }
    let host = "Host: 127.0.0.1:\(server.port)\r\nConnection: close\r\n"
    let gzip = try RawConnection.exchange(
      port: Int(server.port), Array("POST /gzip HTTP/1.1\r\n\(host)Transfer-Encoding: gzip\r\n\r\nabc".utf8))
    XCTAssertEqual(RawConnection.status(of: gzip), 501, String(decoding: gzip, as: UTF8.self))
    let chunked = try RawConnection.exchange(
      port: Int(server.port), Array("POST /chunked HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".utf8))
    XCTAssertEqual(RawConnection.status(of: chunked), 200)
    XCTAssertTrue(String(decoding: chunked, as: UTF8.self).hasSuffix("\r\n\r\nabc"))
    _ = try RawConnection.exchange(port: Int(server.port), Array("GET /a%00b?x=1%002&y=%41 HTTP/1.1\r\n\(host)\r\n".utf8))
    let request = try XCTUnwrap(seen.requests.withLock { $0.last })
    XCTAssertEqual(request.path, "/a%00b")
    XCTAssertEqual(request.queryValue("x"), "1%002")
    XCTAssertEqual(request.queryValue("y"), "A")
    XCTAssertEqual(seen.requests.withLock { $0.map(\.path) }, ["/chunked", "/a%00b"], "the gzip body never reached respond")
  }

  func testAStreamedBodyIsReadToItsEnd() throws {
    let server = try start()
    defer { server.stop() }
    let r = try curl(["-N", "http://127.0.0.1:\(server.port)/stream"])
    XCTAssertEqual(r.stdout, "3\n2\n1\n")
  }

  func testItListensOnLoopbackOnly() throws {
    let server = try start()
    defer { server.stop() }
    XCTAssertNotEqual(server.port, 0)
    let listening = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
    let port = String(format: "%04X", server.port)
    let lines = listening.split(separator: "\n").filter { $0.contains(":\(port) ") && $0.contains(" 0A ") }
    XCTAssertEqual(lines.count, 1, listening)
    XCTAssertTrue(lines.first?.contains("0100007F:\(port)") == true, "bound to 127.0.0.1: \(lines)")
  }
}

/// A stream of `n` lines counting down.
final class Countdown: HTTPBodyStream, @unchecked Sendable {
  private var left: Int
  init(_ n: Int) { left = n }
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    guard left > 0 else { return nil }
    let line = Array("\(left)\n".utf8)
    left -= 1
    buffer.copyBytes(from: line)
    return line.count
  }
  func close() {}
}
