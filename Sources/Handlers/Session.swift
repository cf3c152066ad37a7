import JSONCore
import RPCCore
import StoreEngine
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The state one client session shares across handlers: the open store and the server.
///
/// `@unchecked Sendable`: handlers run on the server's one thread; the store reference,
/// which a cancellation may read meanwhile, is replaced under `storeLock`.
public final class Session: @unchecked Sendable {
  /// The open store. Replaced only under `storeLock`, which `interruptStore` also takes.
  public var store: Store? {
    get { storeRef }
    set {
      storeLock.withLock { _ in storeRef = newValue }
      newValue?.defaultAuthor = author
      adopt(newValue)
    }
  }
  /// Live queries by subscription id, in creation order, and the last history token seen.
  var subscriptions: [String: LiveQuery] = [:]
  var subscriptionOrder: [String] = []
  var nextSubscription = 0
  var historyCursor: Int64 = 0

  /// The author recorded in the history for this session's commits (`initialize`).
  public var author: String? {
    didSet { store?.defaultAuthor = author }
  }
  private var storeRef: Store?
  private let storeLock = Mutex(())
  public let server: Server
  public var clientInfo: JSONValue = .null
  public var clientCapabilities: JSONObject = [:]
  public static let version = "0.1.0"
  public static let protocolVersion = "1.0"

  public init(server: Server, store: Store?) {
    self.server = server
    storeRef = store
    server.interruptHook = { [weak self] in self?.interruptStore() }
    // (Another server's schema change is followed by each request in its own transaction
    // or snapshot: Store+SchemaFollowing.swift.)
    server.requestWillStart = { [weak self] in self?.storeRef?.resetInterrupt() }
    // A cancellation belongs to its request: its flag never outlives it.
    server.requestDidEnd = { [weak self] in self?.storeRef?.resetInterrupt() }
    adopt(store)
  }

  /// The store's work looks at the server's input while it runs, so a `$/cancelRequest`
  /// read meanwhile interrupts it (`interruptStore`).
  private func adopt(_ store: Store?) {
    store?.cancellationProbe = { [weak server] in server?.pollInput() }
  }

  /// Cancels the store's running work; called by the server when it reads a cancellation
  /// of the running request (from inside the store's own checks, `Store.cancellationProbe`).
  private func interruptStore() {
    storeLock.withLock { _ in storeRef?.interrupt() }
  }

  /// The open store, or an error telling the client to open one.
  func requireStore() throws -> Store {
    guard let store else {
      throw StoreError(.notFound, "no store is open: start with --store PATH or --memory, or call store.open", ["what": "store"])
    }
    return store
  }

  /// Refuses to replace or close the store while a migration waits for a client hook
  /// (the hook's requests are served meanwhile).
  func requireNoMigration(_ method: String) throws {
    if store?.isMigrating == true {
      throw StoreError(.transaction, "\(method) cannot run while a migration is in progress")
    }
  }

  /// Closes the store cleanly (rolls back open transactions, checkpoints the WAL).
  public func closeStore() {
    dropSubscriptions()
    store?.close()
    store = nil
  }

  /// The complete method table: every namespace's methods, in protocol.md's order. Each
  /// name, accepted member and streamed param comes from the method's params type. A
  /// restricted transport's `policy` refuses some of them (`MethodPolicy`).
  public func methods(policy: MethodPolicy = .unrestricted) -> MethodRegistry {
    let entries = methodEntries().map { policy.apply(to: $0) }
    var streamed: [String: String] = [:]
    for entry in entries { if let param = entry.params.shape.streamedParam { streamed[entry.name] = param } }
    return MethodRegistry(entries.map { ($0.name, $0.handler) }, streamedParams: streamed)
  }

  func methodEntries() -> [MethodEntry] {
    LifecycleHandlers.methods(self) + StoreHandlers.methods(self) + ModelHandlers.methods(self) + ObjectHandlers.methods(self)
      + ContextHandlers.methods(self) + QueryHandlers.methods(self) + MigrationHandlers.methods(self) + HistoryHandlers.methods(self)
      + InterchangeHandlers.methods(self)
  }
}
