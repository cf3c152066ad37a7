import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// A JSON-RPC 2.0 endpoint over two file descriptors, served by the thread that calls
/// `run`: it reads the input itself, handles messages strictly in order and writes the
/// replies, so an idle server answers a request with no hand-off between threads.
/// Replies are buffered and flushed whenever no further input is queued, so pipelined
/// requests share writes.
///
/// A `$/cancelRequest` must still be seen while a request runs. The request's own checks
/// read it: the store calls `pollInput()` between statements and every few thousand SQLite
/// steps (`Store.cancellationProbe`), and `RequestContext.isCancelled` calls it too. It reads
/// whatever input has arrived without waiting, at most once a millisecond
/// (`InputChannel.readAheadIfDue`); a cancellation among it is noted and, when it names the
/// running request, `interruptHook` runs. No other thread touches the input, the queue or
/// the cancellation state, so none of it needs a lock; the file watcher of live queries
/// only raises a wake-up (`InputChannel.wake`).
public final class Server: @unchecked Sendable {
  public struct Options {
    public var maxMessageBytes = 64 << 20
    public var maxDepth = JSONParser.defaultMaxDepth
    public init() {}
  }

  private let inputFD: Int32
  private let output: Int32
  private(set) var registry = MethodRegistry([])
  let options: Options
  public let log: Logger
  private lazy var input = InputChannel(
    fd: inputFD, maxMessageBytes: options.maxMessageBytes, onFraming: { [unowned self] f in self.framing = f },
    onCancelCandidate: { [unowned self] bytes, seq in self.noteCancel(bytes, seq: seq) })
  private lazy var writer = OutputWriter(fd: output)
  private var framing: Framing = .lines
  /// Started the first time a message is handled with others queued behind it.
  private var parseAhead: ParseAhead?
  private var parseAheadTried = false
  private var out: [UInt8] = []
  private var running = true
  private var exitCode: Int32 = 0
  private var outputBroken = false

  /// Called when a cancellation of the running request is read (from inside the request's
  /// checks, see `pollInput`), e.g. to interrupt SQLite.
  public var interruptHook: (() -> Void)?
  /// Called on this thread right before each request's handler runs (e.g. to clear a
  /// cancellation flag left by an earlier request).
  public var requestWillStart: (() -> Void)?
  /// Called on this thread right after each request's handler returned or threw, before
  /// its reply is queued (e.g. to clear a cancellation flag raised for it, so that no
  /// later work, a live query's refresh among it, meets it).
  public var requestDidEnd: (() -> Void)?
  /// Called after each message was handled and its reply queued (live queries notify here).
  public var requestDidFinish: (() -> Void)?
  /// Called when the watched store changed (`watchChanges`), and when no message came for
  /// `idleIntervalMilliseconds` (set only while needed: without it the loop sleeps until
  /// input arrives).
  public var idleHook: (() -> Void)?
  /// How long the loop waits for input before running the idle hook: the fallback check.
  /// `watchChanges` makes it long (5 s) when it can be woken by changes instead: then it only
  /// covers writes the file system does not report (SQLite's WAL needs every writer on
  /// this machine, where inotify sees them; some FUSE file systems do not report them) or
  /// notifications lost with a connection, and each wake-up of an idle server costs about
  /// 0.1-0.2 ms of CPU.
  public private(set) var idleIntervalMilliseconds = Server.pollingMilliseconds
  static let pollingMilliseconds = 10
  static let watchedFallbackMilliseconds = 5000
  /// After a wake-up the hook runs again after these gaps: a writer's last write to a file
  /// can come a moment before its commit becomes visible to readers (SQLite publishes a
  /// WAL commit in the shared-memory index, which raises no file event; a writer descheduled
  /// in between delays it further).
  static let followUpMilliseconds = [1, 3, 10, 50, 200]
  private var followUps: ArraySlice<Int> = []
  /// Whether a wake-up is followed up (files: yes; notifications: no, they come after the
  /// commit is visible).
  private var followsUpWakes = false
  private var watcher: ChangeWatcher?
  /// Called once when the input ends or `exit` arrives, before `run` returns.
  public var onFinish: (() -> Void)?
  /// Set by `shutdown`: later requests are refused.
  public private(set) var isShuttingDown = false

  // Cancellation state (this thread only).
  private var currentID: JSONValue?
  /// Position in the input of the message being handled.
  private var currentSeq = -1
  /// Cancellations read but not yet reached: the id and the position of the
  /// `$/cancelRequest`. One applies to a request with that id read before it.
  private var cancelled = CancelLog()
  /// The request waiting in `callClient`, and whether the client cancelled it since.
  private var waitingOn: JSONValue?
  private var waitingCancelled = false

  private var serverRequests = 0
  /// Ids of the server's requests still waiting, and answers not yet collected.
  private var awaiting: [JSONValue] = []
  private var answers: [(id: JSONValue, outcome: Result<JSONValue, RPCError>)] = []

  public init(input: Int32 = 0, output: Int32 = 1, options: Options = Options(), log: Logger) {
    self.inputFD = input
    self.output = output
    self.options = options
    self.log = log
  }

  public func register(_ registry: MethodRegistry) { self.registry = registry }

  /// The names of the registered methods, in table order.
  public var methodNames: [String] { registry.names }

  /// Serves until end of input or `exit`; returns the process exit code.
  public func run() -> Int32 {
    while running {
      process(nextItem())
      if !input.hasQueued || out.count > (1 << 16) { flush() }
    }
    flush()
    if let parseAhead { log.info("\(parseAhead.used) messages were parsed ahead, beside the handling of the one before them") }
    watchChanges(.none)
    onFinish?()
    return exitCode
  }

  /// The next inbound item: a queued one, else read from the input, waiting for it. With
  /// an idle hook (live queries) the wait is bounded, and the hook runs each time it ends
  /// without input.
  private func nextItem() -> InboundItem {
    while true {
      if let item = input.take() { return item }
      let timeout = idleHook == nil ? -1 : (followUps.first ?? idleIntervalMilliseconds)
      if input.wait(timeoutMilliseconds: timeout) { continue }
      if !followUps.isEmpty { followUps.removeFirst() }
      idleHook?()
      flush()
    }
  }

  /// Reads the input that has arrived, without waiting, if it was last looked at more
  /// than a millisecond ago: how a running request notices `$/cancelRequest` (the store's
  /// cancellation checks call it). Messages read are queued; nothing is handled here.
  public func pollInput() { input.readAheadIfDue() }

  private func process(_ item: InboundItem) {
    switch item {
    case .message(let bytes, let seq):
      setSeq(seq)
      if input.hasQueued && parseAhead?.wantsMore ?? true { submitQueued() }
      if let reply = handle(bytes, seq: seq) { send(reply) }
      requestDidFinish?()
    case .tooLarge(let n):
      send(
        errorResponse(
          id: .null,
          .invalidRequest(
            "message of \(n) bytes exceeds the limit of \(options.maxMessageBytes) bytes (--max-message-bytes)",
            kind: "messageTooLarge",
            ["limit": .int(Int64(options.maxMessageBytes)), "size": .int(Int64(n))])))
    case .badHeader(let why):
      send(errorResponse(id: .null, .parseError(why, ["framing": "headers"])))
    case .endOfInput:
      log.info("end of input")
      running = false
    case .wake:
      guard let idle = idleHook else { return }
      if followsUpWakes { followUps = Self.followUpMilliseconds[...] }
      idle()
    }
  }

  /// Runs the idle hook as soon as `source` reports a change (one of its files written by
  /// any process, its descriptor readable), and otherwise every
  /// `watchedFallbackMilliseconds`; files that cannot be watched (no inotify) are polled
  /// every `pollingMilliseconds`. `.none` (an in-memory store, which no other process
  /// writes): only the fallback.
  public func watchChanges(_ source: ChangeSource) {
    watcher?.stop()
    watcher = nil
    let input = self.input
    followsUpWakes = false
    idleIntervalMilliseconds = Self.watchedFallbackMilliseconds
    switch source {
    case .none: break
    case .files(let paths):
      watcher = FileChangeWatcher.start(paths) { input.wake() }
      followsUpWakes = true
      if watcher == nil && !paths.isEmpty {
        idleIntervalMilliseconds = Self.pollingMilliseconds
        log.info("cannot watch \(paths) for changes; polling every \(Self.pollingMilliseconds) ms")
      }
    case .descriptor(let d):
      watcher = ChangeWatcher.start(ExternalDescriptor(d)) { input.wake() }
      if watcher == nil {
        idleIntervalMilliseconds = Self.pollingMilliseconds
        log.info("cannot start watching the store for changes; polling every \(Self.pollingMilliseconds) ms")
      }
    }
  }

  // MARK: - Requests to the client

  /// Sends a request to the client and serves the client's messages (ordinary requests
  /// included) until its answer arrives: how a handler waits for a client hook while the
  /// client works against the store. Throws the client's error, `cancelled` when the
  /// waiting request is cancelled, or an error when the input ends first.
  public func callClient(_ method: String, _ params: JSONValue, on outer: JSONValue?) throws -> JSONValue {
    serverRequests += 1
    let id: JSONValue = .string("modelstore-\(serverRequests)")
    awaiting.append(id)
    let (savedID, savedSeq) = (currentID, currentSeq)
    waitingOn = outer
    waitingCancelled = false
    defer {
      awaiting.removeAll { $0 == id }
      currentID = savedID
      currentSeq = savedSeq
      waitingOn = nil
    }
    send(.object(["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]))
    flush()
    while true {
      if let i = answers.firstIndex(where: { $0.id == id }) {
        let answer = answers.remove(at: i)
        return try answer.outcome.get()
      }
      if waitingCancelled { throw RPCError.cancelled() }
      if !running {
        throw RPCError(
          code: -32603, message: "the client ended the session while the server waited for its answer to \(method)", kind: "clientGone")
      }
      // (`.endOfInput` stays queued, so the main loop sees it too.)
      let item = nextItem()
      if case .endOfInput = item {
        throw RPCError(
          code: -32603, message: "the client closed its input while the server waited for its answer to \(method)", kind: "clientGone")
      }
      process(item)
      currentID = outer
      flush()
    }
  }

  /// Ends the loop after the current message (the `exit` notification).
  public func stop(exitCode: Int32) {
    self.exitCode = exitCode
    running = false
  }

  public func beginShutdown() { isShuttingDown = true }

  // MARK: - Output

  /// Queues a notification to the client.
  public func notify(method: String, params: JSONValue) {
    send(.object(["jsonrpc": "2.0", "method": .string(method), "params": params]))
    // Sent while a handler runs ($/progress): written now, not when the handler returns,
    // so the client sees the work advance.
    flush()
  }

  private func send(_ message: JSONValue) {
    if log.isForwarding { sendLogMessages() }
    append(message)
  }

  /// Sends the log lines kept for the client (`initialize`'s `logMessages`) as LSP's
  /// `window/logMessage {type, message}`: type 1 error, 2 warning, 3 info, 4 debug.
  private func sendLogMessages() {
    let kept = log.takeForwarded()
    for (level, text) in kept.lines {
      append(
        .object([
          "jsonrpc": "2.0", "method": "window/logMessage",
          "params": .object(["type": .int(Int64(level.rawValue + 1)), "message": .string(text)]),
        ]))
    }
    if kept.dropped > 0 {
      append(
        .object([
          "jsonrpc": "2.0", "method": "window/logMessage",
          "params": .object(["type": 2, "message": .string("\(kept.dropped) more log lines were dropped")]),
        ]))
    }
  }

  private func append(_ message: JSONValue) {
    switch framing {
    case .lines:
      // Encoded straight into the output buffer: no intermediate copy per reply.
      var w = JSONWriter(capacity: 0)
      swap(&w.bytes, &out)
      w.write(message)
      w.bytes.append(0x0A)
      swap(&w.bytes, &out)
    case .headers:
      var w = JSONWriter(capacity: 256)
      w.write(message)
      out.append(contentsOf: Array("Content-Length: \(w.bytes.count)\r\n\r\n".utf8))
      out.append(contentsOf: w.bytes)
    }
  }

  private func flush() {
    if log.isForwarding { sendLogMessages() }
    guard !out.isEmpty else { return }
    if !outputBroken {
      let (writer, input) = (self.writer, self.input)
      let ok = out.withUnsafeBytes { writer.write($0, readingMeanwhile: input) }
      if !ok {
        outputBroken = true
        log.warning("stdout is closed; replies are dropped")
      }
    }
    out.removeAll(keepingCapacity: true)
  }

  // MARK: - Cancellation

  /// Runs for messages that mention `$/cancelRequest`, as soon as they are read (before
  /// the messages queued ahead of them are handled).
  private func noteCancel(_ bytes: [UInt8], seq: Int) {
    guard case .object(let o)? = try? JSONParser.parse(bytes), o["method"] == .string("$/cancelRequest"),
      case .object(let p)? = o["params"], let id = p["id"]
    else { return }
    cancelled.append(id, seq: seq)
    if let waitingOn, waitingOn == id { waitingCancelled = true }
    if currentID == id && currentSeq < seq {
      log.debug("interrupting request \(id)")
      interruptHook?()
    }
  }

  /// True when a cancellation for `id` was read after the message being handled.
  func isCancelled(_ id: JSONValue?) -> Bool {
    guard let id else { return false }
    return cancelled.contains(id)
  }

  private func setSeq(_ seq: Int) {
    currentSeq = seq
    // Cancellations at or before this point can no longer apply to anything.
    if !cancelled.isEmpty { cancelled.spend(through: seq) }
  }

  // MARK: - Dispatch

  /// The client's answer to a server request: its result, or its error as an RPCError.
  private func clientOutcome(_ o: JSONObject) -> Result<JSONValue, RPCError> {
    guard let error = o["error"] else { return .success(o["result"] ?? .null) }
    let code = error["code"].flatMap { v -> Int? in if case .int(let i) = v { return Int(i) } else { return nil } } ?? -32603
    let message = error["message"]?.stringValue ?? "the client answered with an error"
    var data: JSONObject = [:]
    if case .object(let d)? = error["data"] { data = d }
    return .failure(RPCError(code: code, message: message, kind: data["kind"]?.stringValue ?? "clientError", data: data))
  }

  func errorResponse(id: JSONValue, _ e: RPCError) -> JSONValue {
    .object(["jsonrpc": "2.0", "id": id, "error": e.json])
  }

  /// Hands the messages queued behind the current one to the parse-ahead thread.
  private func submitQueued() {
    if !parseAheadTried {
      parseAheadTried = true
      let streamed = registry.streamedParams
      parseAhead = ParseAhead(maxDepth: options.maxDepth) { bytes in
        !streamed.isEmpty && JSONParser.rootString(bytes, "method").map { streamed[$0] != nil } == true
      }
    }
    parseAhead?.submit(input.queuedMessages(ParseAhead.limit))
  }

  /// The reply to one raw message, or nil when none is due (notifications). Its parse may
  /// already have been done by the parse-ahead thread (same outcome as parsing it here).
  func handle(_ bytes: [UInt8], seq: Int? = nil) -> JSONValue? {
    let value: JSONValue
    var parsedAhead = false
    switch seq.flatMap({ parseAhead?.take($0) }) {
    case .parsed(let v)?:
      value = v
      parsedAhead = true
    case .failed(let error)?: return parseFailureReply(error)
    case .skipped?, nil:
      if let streamed = handleStreamed(bytes) { return streamed.reply }
      do {
        value = try JSONParser.parse(bytes, maxDepth: options.maxDepth)
      } catch {
        return parseFailureReply(error)
      }
    }
    // The tree goes back to the thread that made it, which releases it (`ParseAhead.retire`).
    defer { if parsedAhead { parseAhead?.retire(value) } }
    switch value {
    case .array(let items):
      if items.isEmpty { return errorResponse(id: .null, .invalidRequest("empty batch")) }
      let replies = items.compactMap { handleOne($0) }
      return replies.isEmpty ? nil : .array(replies)
    case .object:
      return handleOne(value)
    default:
      return errorResponse(id: .null, .invalidRequest("a message must be an object or a batch array, got \(value.typeName)"))
    }
  }

  /// The reply to a message that is not JSON (or nests too deep), sent with id null.
  func parseFailureReply(_ error: Error) -> JSONValue {
    guard let e = error as? JSONParseError else { return errorResponse(id: .null, .parseError("\(error)")) }
    switch e.kind {
    case .tooDeep:
      return errorResponse(
        id: .null,
        .invalidRequest("message nests deeper than \(options.maxDepth) levels", kind: "tooDeep", ["limit": .int(Int64(options.maxDepth))]))
    case .invalidUTF8:
      return errorResponse(
        id: .null, .parseError("invalid UTF-8 at byte \(e.position)", ["position": .int(Int64(e.position)), "reason": "invalidUTF8"]))
    default:
      var data: JSONObject = ["line": .int(Int64(e.line)), "column": .int(Int64(e.column)), "position": .int(Int64(e.position))]
      if e.kind == .nulInKey { data.append("reason", "nulInKey") }
      return errorResponse(id: .null, .parseError(e.message, data))
    }
  }

  func handleOne(_ value: JSONValue, streamed: (param: String, elements: JSONArrayStream)? = nil) -> JSONValue? {
    guard case .object(let o) = value else {
      return errorResponse(id: .null, .invalidRequest("a batch element must be an object, got \(value.typeName)"))
    }
    let idMember = o["id"]
    if let id = idMember {
      switch id {
      case .string, .int, .null, .double: break
      default: return errorResponse(id: .null, .invalidRequest("id must be a string, a number or null, got \(id.typeName)"))
      }
    }
    let replyID = idMember ?? .null
    guard o["jsonrpc"] == .string("2.0") else {
      return errorResponse(id: replyID, .invalidRequest("\"jsonrpc\" must be exactly \"2.0\""))
    }
    guard let methodValue = o["method"] else {
      if o["result"] != nil || o["error"] != nil {
        if let id = idMember, awaiting.contains(id) {
          answers.append((id, clientOutcome(o)))
        } else {
          log.debug("ignoring a response from the client (no server request is outstanding)")
        }
        return nil
      }
      return errorResponse(id: replyID, .invalidRequest("missing \"method\""))
    }
    guard case .string(let method) = methodValue else {
      return errorResponse(id: replyID, .invalidRequest("\"method\" must be a string, got \(methodValue.typeName)"))
    }
    for m in o.members {
      switch m.key {
      case "jsonrpc", "id", "method", "params": continue
      default: return errorResponse(id: replyID, .invalidRequest("unknown member \"\(m.key)\" in a request"))
      }
    }
    let isNotification = idMember == nil
    let params: JSONObject
    switch o["params"] {
    // `null` is absent: JSON-RPC clients in the wild (pygls among them) send it for "no params".
    case nil, .null?: params = [:]
    case .object(let p)?: params = p
    case .array?:
      if isNotification { return nil }
      return errorResponse(
        id: replyID,
        .invalidParams("params must be an object (ModelStore methods take named parameters)", ["path": "params", "expected": "object"]))
    case let other?:
      return errorResponse(id: replyID, .invalidRequest("params must be an object, got \(other.typeName)"))
    }
    if method == "$/cancelRequest" || method == "initialized" {
      // `$/cancelRequest` was noted as soon as it was read (`noteCancel`); LSP's
      // `initialized` says nothing the server needs. Sent as a request, either gets `null`.
      return isNotification ? nil : .object(["jsonrpc": "2.0", "id": replyID, "result": .null])
    }
    if isNotification {
      run(method, params, id: nil, streamed: streamed)
      return nil
    }
    if isCancelled(replyID) { return errorResponse(id: replyID, .cancelled()) }
    if isShuttingDown && method != "exit" {
      return errorResponse(id: replyID, .invalidRequest("the server is shutting down", kind: "shuttingDown"))
    }
    switch run(method, params, id: replyID, streamed: streamed) {
    case .success(let result):
      // Members built as an array (a dictionary literal costs a second array and a copy).
      return .object(JSONObject([.init("jsonrpc", "2.0"), .init("id", replyID), .init("result", result)]))
    case .failure(let e): return errorResponse(id: replyID, e)
    }
  }

  @discardableResult
  private func run(
    _ method: String, _ params: JSONObject, id: JSONValue?, streamed: (param: String, elements: JSONArrayStream)?
  ) -> Result<JSONValue, RPCError> {
    guard let handler = registry[method] else {
      if id == nil && method.hasPrefix("$/") { return .success(.null) }  // optional notifications are ignored
      if id == nil { log.warning("unknown notification \(method)") }
      return .failure(.methodNotFound(method))
    }
    requestWillStart?()
    if let id { currentID = id }
    defer {
      if id != nil { currentID = nil }
      requestDidEnd?()
    }
    var workDone: WorkDoneProgress?
    let outcome: Result<JSONValue, RPCError>
    do {
      var params = params
      // Any request may carry LSP's `workDoneToken`; a notification's is dropped (nothing to report on).
      if let token = try WorkDoneProgress.take(from: &params), id != nil {
        workDone = WorkDoneProgress(token: token, title: method, server: self)
      }
      let context = RequestContext(id: id, method: method, server: self, streamed: streamed, workDone: workDone)
      outcome = .success(try handler(JSONReader(params, path: "params"), context))
    } catch let e as RPCErrorConvertible {
      let err = e.rpcError
      if id == nil { log.warning("notification \(method) failed: \(err.message)") }
      outcome = .failure(err)
    } catch {
      log.error("\(method) failed unexpectedly: \(error)")
      outcome = .failure(.internalError("\(method) failed; see the server log"))
    }
    if let workDone {
      if case .failure(let e) = outcome { workDone.end(message: "failed: \(e.message)") } else { workDone.end(message: nil) }
    }
    return outcome
  }
}
