import JSONCore
import RPCCore
import StoreEngine

/// `initialize`, `shutdown`, `exit`.
enum LifecycleHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(InitializeParams.self) { p, _ in
        s.clientInfo = p.clientInfo
        s.clientCapabilities = p.capabilities
        s.author = p.author
        s.server.log.forward(at: p.options?.logMessages)
        return InitializeResult(
          serverInfo: .init(name: "modelstore", version: Session.version), protocolVersion: Session.protocolVersion,
          capabilities: .init(
            framing: ["lines", "headers"],
            attributeTypes: [
              "string", "int", "int16", "int32", "int64", "double", "float", "decimal", "bool", "date", "uuid", "data", "url", "json",
            ],
            deleteRules: ["nullify", "cascade", "deny", "noAction"], cancellation: true, batches: true, migrationHooks: true,
            workDoneProgress: true, logMessages: true, methods: s.server.methodNames),
          sqliteVersion: Store.sqliteVersion)
      },
      MethodEntry(ShutdownParams.self) { _, _ in
        try s.requireNoMigration("shutdown")
        s.server.beginShutdown()
        s.closeStore()
        return NullResult()
      },
      MethodEntry(ExitParams.self) { _, _ in
        // LSP: exit code 0 after shutdown, 1 without it.
        s.server.stop(exitCode: s.server.isShuttingDown ? 0 : 1)
        return NullResult()
      },
    ]
  }
}
