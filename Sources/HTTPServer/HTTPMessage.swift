/// One header, query argument or cookie, as libmicrohttpd handed it over (a query
/// argument's value is percent-decoded; nil when it had no `=`).
public struct HTTPField: Sendable, Equatable {
  public let name: String
  public let value: String?

  public init(_ name: String, _ value: String?) {
    self.name = name
    self.value = value
  }
}

/// A request as the server read it: its head (method, path, headers, query, cookies)
/// and, once read, its body.
public struct HTTPRequest: Sendable {
  public let method: String
  /// The path, without the query, percent-decoded by libmicrohttpd.
  public let path: String
  public let headers: [HTTPField]
  public let query: [HTTPField]
  public let cookies: [HTTPField]
  public internal(set) var body: [UInt8] = []
  /// The client's socket, for a response that waits (a stream) to notice the client
  /// leaving: poll it for POLLRDHUP. Never read or written: libmicrohttpd owns it.
  public let clientSocket: Int32

  public init(
    method: String, path: String, headers: [HTTPField], query: [HTTPField] = [], cookies: [HTTPField] = [], body: [UInt8] = [],
    clientSocket: Int32 = -1
  ) {
    self.method = method
    self.path = path
    self.headers = headers
    self.query = query
    self.cookies = cookies
    self.body = body
    self.clientSocket = clientSocket
  }

  /// Every value of the header `name` (compared without regard to case), in order.
  public func headerValues(_ name: String) -> [String] {
    headers.filter { $0.name.lowercased() == name.lowercased() }.compactMap(\.value)
  }

  /// The header `name` when it is given exactly once; nil when absent or repeated.
  public func header(_ name: String) -> String? {
    let values = headerValues(name)
    return values.count == 1 ? values[0] : nil
  }

  /// The query argument `name` when it is given exactly once.
  public func queryValue(_ name: String) -> String? {
    let values = query.filter { $0.name == name }
    return values.count == 1 ? values[0].value : nil
  }

  /// The cookie `name` when it is given exactly once.
  public func cookie(_ name: String) -> String? {
    let values = cookies.filter { $0.name == name }
    return values.count == 1 ? values[0].value : nil
  }
}

/// A body sent as it is produced (Server-Sent Events): the connection's thread calls
/// `read` whenever the client can take bytes, and `close` once when the connection ends
/// (the client left, or `read` said the stream ended).
public protocol HTTPBodyStream: AnyObject, Sendable {
  /// Fills `buffer` with the next bytes and returns how many (at least 1), waiting for
  /// them as long as it takes; nil at the end of the stream (or when, waiting, it noticed
  /// the client leave: `HTTPRequest.clientSocket`).
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int?
  /// The connection is over: release what the stream holds.
  func close()
}

/// A response: status, headers and a body of bytes or a stream.
public struct HTTPResponse: Sendable {
  public enum Body: Sendable {
    case bytes([UInt8])
    case stream(any HTTPBodyStream)
  }

  public var status: Int
  public var headers: [HTTPField]
  public var body: Body

  public init(status: Int, headers: [HTTPField] = [], body: Body = .bytes([])) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A plain-text response (an error's explanation).
  public static func text(_ status: Int, _ message: String, headers: [HTTPField] = []) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: [HTTPField("Content-Type", "text/plain; charset=utf-8")] + headers,
      body: .bytes(Array((message + "\n").utf8)))
  }
}
