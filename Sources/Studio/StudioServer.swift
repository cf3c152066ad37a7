import HTTPServer
import Handlers
import JSONCore
import RPCCore
import StoreEngine

/// `modelstore studio`: the store served to a local web page over HTTP, in the protocol
/// of `modelstore serve` (protocol.md, "HTTP transport"):
///
/// - `GET /`, `GET /assets/PATH`: the page, built into the binary (`StudioAssets`);
/// - `GET /events`: starts a session (a JSON-RPC session of its own over its own
///   connection to the store) and streams its notifications as Server-Sent Events; the
///   session lasts as long as the stream;
/// - `POST /rpc`: one JSON-RPC message (a request, a notification or a batch) into the
///   session the `ModelStore-Session` header names; the reply is the body.
///
/// Every request passes `StudioGate` first; the sessions' method table is restricted
/// (`MethodPolicy`: no file but the store, no `store.open`; no write with `readOnly`).
public final class StudioServer: Sendable {
  public struct Configuration: Sendable {
    /// The store's file (`--store`).
    public var store: String
    /// A Core Data store read in place (`--format coredata`), always read-only.
    public var coreData = false
    /// With `coreData`: its model (`--model`), the version the store was written with
    /// (`--model-version`) and the versions' order (`--version-order`), as for `serve`:
    /// without a model, names and types are inferred from the store's columns, and a
    /// to-one whose destination's name is not the column's reads as a plain integer.
    public var coreDataModel: String?
    public var coreDataModelVersion: String?
    public var coreDataVersionOrder: [String]?
    public var readOnly = false
    /// 0: a free port.
    public var port: UInt16 = 0
    public var logLevel = Logger.Level.warning
    /// The largest request body, and the largest JSON-RPC message of a session.
    public var maxBodyBytes = 16 << 20
    /// Pages (sessions) served at once.
    public var maxSessions = 16

    public init(store: String) { self.store = store }

    /// Whether the page may write: not with `--read-only`, never to a Core Data store.
    var writable: Bool { !readOnly && !coreData }
  }

  public let configuration: Configuration
  private let token: String
  private let sessions: SessionTable
  private let http: HTTPServer
  private let gate: StudioGate

  /// Opens the store once (so that a store that cannot be served fails here, with the
  /// engine's error, and a format-1 store is upgraded now), then listens.
  public init(_ configuration: Configuration) throws {
    self.configuration = configuration
    try Self.openStore(configuration).close()
    guard let token = Secret.random(bytes: 32) else { throw StoreError(.storage, "cannot read /dev/urandom for the studio's token") }
    self.token = token
    let sessions = SessionTable(limit: configuration.maxSessions)
    self.sessions = sessions
    var options = HTTPServer.Options()
    options.port = configuration.port
    options.maxBodyBytes = configuration.maxBodyBytes
    // The gate needs the port, known once listening: the handlers read it from a box set right after.
    let box = GateBox()
    let routes = Routes(configuration: configuration, sessions: sessions, gate: box, log: Logger(level: configuration.logLevel))
    do {
      http = try HTTPServer(
        options: options, admit: { request in box.gate.refusal(request).map(Routes.secured) },
        respond: { request in Routes.secured(routes.respond(request)) })
    } catch {
      throw StoreError(.storage, error.message)
    }
    gate = StudioGate(port: http.port, token: token)
    box.set(gate)
  }

  public var port: UInt16 { http.port }

  /// The URL to open: the page, with the token.
  public var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

  /// Ends every session (each closes its store: an open client transaction is rolled
  /// back, the WAL checkpointed), waits for them, then stops listening.
  public func stop() {
    sessions.closeAll()
    sessions.waitUntilEmpty()
    http.stop()
  }

  /// A connection to the store as configured.
  static func openStore(_ c: Configuration) throws -> Store {
    if c.coreData {
      return try Store.openCoreData(
        path: c.store, model: c.coreDataModel, modelVersion: c.coreDataModelVersion, versionOrder: c.coreDataVersionOrder)
    }
    return try Store(path: c.store, options: Store.OpenOptions(readOnly: c.readOnly, create: false))
  }
}

/// The gate, set once the port is known (before the first request can arrive: the
/// handlers run only for connections to that port, which exist only after `listen`, but
/// the port is read back from the daemon after it started).
///
/// `@unchecked Sendable`: `value` is written once under `lock` and read under it.
final class GateBox: @unchecked Sendable {
  private let lock = ConditionLock()
  private var value: StudioGate?

  func set(_ gate: StudioGate) {
    lock.lock()
    value = gate
    lock.broadcast()
    lock.unlock()
  }

  var gate: StudioGate {
    lock.lock()
    defer { lock.unlock() }
    while value == nil { lock.wait() }
    return value!
  }
}
