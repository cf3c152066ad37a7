import JSONCore
import RPCCore
import StoreEngine

/// The state one client session shares across handlers: the open store and the server.
public final class Session {
  public var store: Store?
  public let server: Server
  public var clientInfo: JSONValue = .null
  public var clientCapabilities: JSONObject = [:]
  public static let version = "0.1.0"
  public static let protocolVersion = "1.0"

  public init(server: Server, store: Store?) {
    self.server = server
    self.store = store
  }

  /// The open store, or an error telling the client to open one.
  func requireStore() throws -> Store {
    guard let store else {
      throw RPCError(code: -32003, message: "no store is open: start with --store PATH or --memory, or call store.open", kind: "notFound", data: ["what": "store"])
    }
    return store
  }

  /// Closes the store cleanly (rolls back open transactions, checkpoints the WAL).
  public func closeStore() {
    store?.close()
    store = nil
  }

  /// The complete method table: every namespace's handlers, in protocol.md's order.
  public func methods() -> MethodRegistry {
    MethodRegistry(
      LifecycleHandlers.methods(self) + StoreHandlers.methods(self) + ModelHandlers.methods(self)
        + ObjectHandlers.methods(self) + ContextHandlers.methods(self) + QueryHandlers.methods(self))
  }
}
