import CMicroHTTPD

#if canImport(Glibc)
  import Glibc
#endif

/// An HTTP/1.1 server on 127.0.0.1 only, through GNU libmicrohttpd: libmicrohttpd parses
/// every request (strictly) and writes every response; this wrapper hands requests to
/// Swift and takes responses back. One thread per connection, so a handler may block.
///
/// A request goes through two steps: `admit` sees its head (method, path, headers, query,
/// cookies) before any of the body is read, and may refuse it with a response; then
/// `respond` gets it with its whole body, which is read up to `maxBodyBytes` (a larger
/// one is refused with 413 and never kept).
public final class HTTPServer: Sendable {
  public struct Options: Sendable {
    /// 0: a free port the kernel picks.
    public var port: UInt16 = 0
    public var maxBodyBytes = 16 << 20
    /// Connections served at once; more wait in the kernel's queue.
    public var connectionLimit: UInt32 = 64
    /// A connection that sends nothing for this long is closed (an event stream writes
    /// more often than that).
    public var timeoutSeconds: UInt32 = 120
    public init() {}
  }

  public typealias Admit = @Sendable (HTTPRequest) -> HTTPResponse?
  public typealias Respond = @Sendable (HTTPRequest) -> HTTPResponse

  /// The port it listens on.
  public let port: UInt16
  private let handlers: Handlers
  /// The daemon; `stop` is called once (from the thread that owns the server).
  nonisolated(unsafe) private var daemon: OpaquePointer?

  /// Starts listening on 127.0.0.1:`options.port`; fails when the port cannot be had.
  public init(options: Options = Options(), admit: @escaping Admit, respond: @escaping Respond) throws(HTTPServerError) {
    handlers = Handlers(maxBodyBytes: options.maxBodyBytes, admit: admit, respond: respond)
    let context = Unmanaged.passUnretained(handlers).toOpaque()
    guard
      let d = ms_mhd_start_loopback(
        options.port, accessHandler, context, requestCompleted, context, options.connectionLimit, options.timeoutSeconds)
    else { throw HTTPServerError(message: "cannot listen on 127.0.0.1:\(options.port) (is the port taken?)") }
    daemon = d
    port = ms_mhd_port(d)
  }

  /// Stops listening and waits for every connection's thread to end: a streaming
  /// response must be ending (its `read` returning nil) for this to return.
  public func stop() {
    guard let d = daemon else { return }
    daemon = nil
    MHD_stop_daemon(d)
  }

  deinit { stop() }
}

public struct HTTPServerError: Error, CustomStringConvertible {
  public let message: String
  public var description: String { message }
}

/// The callbacks' context: what libmicrohttpd's threads call into.
final class Handlers: Sendable {
  let maxBodyBytes: Int
  let admit: HTTPServer.Admit
  let respond: HTTPServer.Respond

  init(maxBodyBytes: Int, admit: @escaping HTTPServer.Admit, respond: @escaping HTTPServer.Respond) {
    self.maxBodyBytes = maxBodyBytes
    self.admit = admit
    self.respond = respond
  }

  /// One call of libmicrohttpd's access handler: the first with the head only, then one
  /// per piece of the body, then a last one with none (`uploadSize` 0).
  func access(
    _ connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
    state slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    guard let opaque = slot.pointee else {
      let pending = PendingRequest(Self.head(connection, url: url, method: method))
      slot.pointee = Unmanaged.passRetained(pending).toOpaque()
      if let refusal = Self.unframed(pending.request) ?? admit(pending.request) { return pending.answer(refusal, on: connection) }
      if let length = pending.request.header("Content-Length").flatMap({ Int($0) }), length > maxBodyBytes {
        return pending.answer(tooLarge, on: connection)
      }
      return .YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(opaque).takeUnretainedValue()
    if uploadSize.pointee > 0 {
      let count = uploadSize.pointee
      uploadSize.pointee = 0
      // The rest of a refused body, or of one that grew too large, is dropped as it comes.
      if pending.answered || pending.tooLarge { return .YES }
      guard pending.request.body.count + count <= maxBodyBytes, let upload else {
        // A body without Content-Length (chunked) grew too large: what it held is let go
        // now; libmicrohttpd answers only once a body is read, so the 413 comes at its end.
        pending.tooLarge = true
        pending.request.body = []
        return .YES
      }
      pending.request.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: count))
      return .YES
    }
    if pending.answered { return .YES }
    return pending.answer(pending.tooLarge ? tooLarge : respond(pending.request), on: connection)
  }

  /// The refusal of a body whose end cannot be found: a `Transfer-Encoding` other than
  /// `chunked` alone (libmicrohttpd would read such a body until the client closes, RFC
  /// 9112 6.1 says 501 for a coding the server does not know).
  static func unframed(_ request: HTTPRequest) -> HTTPResponse? {
    let codings = request.headerValues("Transfer-Encoding")
    guard !codings.isEmpty, codings.map({ $0.lowercased() }) != ["chunked"] else { return nil }
    return .text(
      501, "Not Implemented: Transfer-Encoding \(codings.joined(separator: ", ")) (a body is sent as it is, or chunked)",
      headers: [HTTPField("Connection", "close")])
  }

  private var tooLarge: HTTPResponse {
    .text(413, "Payload Too Large: a request body is at most \(maxBodyBytes) bytes", headers: [HTTPField("Connection", "close")])
  }

  /// The request's head: its headers, query arguments and cookies as libmicrohttpd parsed them.
  static func head(_ connection: OpaquePointer, url: String, method: String) -> HTTPRequest {
    HTTPRequest(
      method: method, path: url, headers: fields(connection, .HEADER_KIND), query: fields(connection, .GET_ARGUMENT_KIND),
      cookies: fields(connection, .COOKIE_KIND), clientSocket: ms_mhd_connection_fd(connection))
  }

  private static func fields(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [HTTPField] {
    final class Collected { var fields: [HTTPField] = [] }
    let collected = Collected()
    _ = MHD_get_connection_values(
      connection, kind,
      { cls, _, key, value in
        let collected = Unmanaged<Collected>.fromOpaque(cls!).takeUnretainedValue()
        if let key { collected.fields.append(HTTPField(String(cString: key), value.map { String(cString: $0) })) }
        return .YES
      }, Unmanaged.passUnretained(collected).toOpaque())
    return collected.fields
  }
}

/// A request being read: its head, then its body as it arrives. Owned by its connection's
/// thread (libmicrohttpd calls one connection's callbacks on one thread), released when
/// libmicrohttpd reports the request completed.
final class PendingRequest {
  var request: HTTPRequest
  /// A response was queued: later pieces of the body are dropped.
  var answered = false
  /// The body passed the limit: it is dropped, and the answer is 413.
  var tooLarge = false

  init(_ request: HTTPRequest) { self.request = request }

  func answer(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    answered = true
    guard let r = makeResponse(response) else { return .NO }
    defer { MHD_destroy_response(r) }
    return MHD_queue_response(connection, UInt32(response.status), r)
  }

  private func makeResponse(_ response: HTTPResponse) -> OpaquePointer? {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
      made = bytes.withUnsafeBytes { b in
        MHD_create_response_from_buffer(b.count, UnsafeMutableRawPointer(mutating: b.baseAddress), .RESPMEM_MUST_COPY)
      }
    case .stream(let stream):
      let box = Unmanaged.passRetained(StreamBox(stream)).toOpaque()
      made = MHD_create_response_from_callback(UInt64.max, 16 << 10, readStream, box, freeStream)
      if made == nil { Unmanaged<StreamBox>.fromOpaque(box).release() }
    }
    guard let made else { return nil }
    for field in response.headers { _ = MHD_add_response_header(made, field.name, field.value ?? "") }
    return made
  }
}

/// A streaming body handed to libmicrohttpd, released by its free callback.
final class StreamBox {
  let stream: any HTTPBodyStream
  init(_ stream: any HTTPBodyStream) { self.stream = stream }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, slot in
  guard let cls, let connection, let uploadSize, let slot else { return .NO }
  let handlers = Unmanaged<Handlers>.fromOpaque(cls).takeUnretainedValue()
  return handlers.access(
    connection, url: url.map { String(cString: $0) } ?? "", method: method.map { String(cString: $0) } ?? "", upload: upload,
    uploadSize: uploadSize, state: slot)
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, slot, _ in
  guard let slot, let opaque = slot.pointee else { return }
  Unmanaged<PendingRequest>.fromOpaque(opaque).release()
  slot.pointee = nil
}

private let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
  guard let cls, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
  let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
  guard let n = box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) else {
    return -1  // MHD_CONTENT_READER_END_OF_STREAM
  }
  return n
}

private let freeStream: MHD_ContentReaderFreeCallback = { cls in
  guard let cls else { return }
  let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
  box.stream.close()
}
