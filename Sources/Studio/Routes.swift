import HTTPServer
import Handlers
import JSONCore
import RPCCore
import StoreEngine

/// What each path of the studio answers, once `StudioGate` let the request in.
struct Routes: Sendable {
  let configuration: StudioServer.Configuration
  let sessions: SessionTable
  let gate: GateBox
  /// The studio's own log lines (stderr).
  let log: Logger

  /// The header (or query argument `session`) naming the session of a `POST /rpc`.
  static let sessionHeader = "ModelStore-Session"

  func respond(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    if path == "/" || path.hasPrefix("/assets/") {
      guard request.method == "GET" || request.method == "HEAD" else { return Self.notAllowed("GET, HEAD") }
      if path == "/" && request.queryValue("token") != nil { return signIn() }
      return asset(request)
    }
    switch path {
    case "/rpc": return request.method == "POST" ? rpc(request) : Self.notAllowed("POST")
    case "/events": return request.method == "GET" ? events(request) : Self.notAllowed("GET")
    default: return .text(404, "Not Found: \(path)")
    }
  }

  /// The first load, with the token in the URL: the token goes into an HttpOnly,
  /// SameSite=Strict cookie and the page is loaded again without it, so the token leaves
  /// the address bar (and the history).
  private func signIn() -> HTTPResponse {
    let g = gate.gate
    return HTTPResponse(
      status: 303,
      headers: [
        HTTPField("Location", "/"), HTTPField("Set-Cookie", "\(g.cookieName)=\(g.token); Path=/; HttpOnly; SameSite=Strict"),
      ])
  }

  private func asset(_ request: HTTPRequest) -> HTTPResponse {
    guard let asset = StudioAssets.asset(at: request.path) else { return .text(404, "Not Found: \(request.path)") }
    let headers = [HTTPField("ETag", asset.etag), HTTPField("Cache-Control", "no-cache")]
    if request.headerValues("If-None-Match").contains(where: { $0.contains(asset.etag) }) {
      return HTTPResponse(status: 304, headers: headers)
    }
    return HTTPResponse(status: 200, headers: [HTTPField("Content-Type", asset.contentType)] + headers, body: .bytes(asset.bytes))
  }

  /// `GET /events`: a new session, and its stream.
  private func events(_ request: HTTPRequest) -> HTTPResponse {
    guard sessions.reserve() else {
      return .text(503, "Service Unavailable: \(sessions.limit) pages are open already (close one), or the studio is stopping")
    }
    guard let id = Secret.random(bytes: 16) else {
      sessions.release()
      return .text(500, "Internal Server Error: cannot read /dev/urandom")
    }
    let c = configuration
    var options = Server.Options()
    options.maxMessageBytes = c.maxBodyBytes
    let table = sessions
    do {
      let session = try StudioSession.start(
        id: id, open: { try StudioServer.openStore(c) },
        policy: MethodPolicy(readOnly: !c.writable, storeOnly: true, transport: "modelstore studio"), options: options,
        logLevel: c.logLevel,
        onEnd: { [log] in
          log.info("session \(id) ended")
          table.remove(id)
        })
      log.info("session \(id) started")
      sessions.add(session)
      return HTTPResponse(
        status: 200, headers: [HTTPField("Content-Type", "text/event-stream")],
        body: .stream(EventStream(session: session, client: request.clientSocket, readOnly: !c.writable)))
    } catch {
      sessions.release()
      let message = (error as? RPCErrorConvertible)?.rpcError.message ?? "\(error)"
      return .text(500, "Internal Server Error: the store cannot be opened: \(message)")
    }
  }

  /// `POST /rpc`: the body is one JSON-RPC message for the named session.
  private func rpc(_ request: HTTPRequest) -> HTTPResponse {
    guard let id = request.header(Self.sessionHeader) ?? request.queryValue("session") else {
      return .text(400, "Bad Request: name the session in the \(Self.sessionHeader) header (the `session` event of GET /events)")
    }
    guard let session = sessions[id] else {
      return .text(404, "Not Found: no session \(id) (a session ends with its event stream: open GET /events again)")
    }
    if Self.isCancellation(request.body) {
      return session.notify(request.body) ? HTTPResponse(status: 204) : Self.ended(id)
    }
    switch session.call(request.body) {
    case .reply(let bytes):
      return HTTPResponse(status: 200, headers: [HTTPField("Content-Type", "application/json")], body: .bytes(bytes))
    case .noReply: return HTTPResponse(status: 204)
    case .ended: return Self.ended(id)
    }
  }

  /// A `$/cancelRequest` notification, which must reach the session while the request it
  /// cancels runs (protocol.md, Cancellation): a whole object, no id, under 4096 bytes.
  static func isCancellation(_ body: [UInt8]) -> Bool {
    guard body.count < 4096, case .object(let o)? = try? JSONParser.parse(body) else { return false }
    return o["method"] == .string("$/cancelRequest") && o["id"] == nil
  }

  private static func ended(_ id: String) -> HTTPResponse {
    .text(410, "Gone: session \(id) ended before it answered (its event stream closed)")
  }

  private static func notAllowed(_ allow: String) -> HTTPResponse {
    .text(405, "Method Not Allowed", headers: [HTTPField("Allow", allow)])
  }

  /// Every response's headers: what the page may load and run (its own files only, no
  /// inline script or style, no framing), no sniffing, no referrer, no caching unless
  /// the response set its own (`Cache-Control` of assets).
  static func secured(_ response: HTTPResponse) -> HTTPResponse {
    var r = response
    r.headers += [
      HTTPField(
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; "
          + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
      HTTPField("X-Content-Type-Options", "nosniff"), HTTPField("X-Frame-Options", "DENY"), HTTPField("Referrer-Policy", "no-referrer"),
      HTTPField("Cross-Origin-Opener-Policy", "same-origin"), HTTPField("Cross-Origin-Resource-Policy", "same-origin"),
    ]
    if !r.headers.contains(where: { $0.name == "Cache-Control" }) { r.headers.append(HTTPField("Cache-Control", "no-store")) }
    return r
  }
}
