/// `initialize`'s result.
struct InitializeResult: ResultObject {
  struct ServerInfo: ResultObject {
    let name: String
    let version: String
    static var members: [ResultMember<Self>] { [.init("name", \.name), .init("version", \.version)] }
  }

  struct Capabilities: ResultObject {
    let framing: [String]
    let attributeTypes: [String]
    let deleteRules: [String]
    let cancellation: Bool
    let batches: Bool
    let migrationHooks: Bool
    /// `$/progress` for a request's LSP `workDoneToken`.
    let workDoneProgress: Bool
    /// `window/logMessage` when `initializationOptions.logMessages` asks for it.
    let logMessages: Bool
    /// Every method the server answers, in its table's order.
    let methods: [String]
    static var members: [ResultMember<Self>] {
      [
        .init("framing", \.framing), .init("attributeTypes", \.attributeTypes), .init("deleteRules", \.deleteRules),
        .init("cancellation", \.cancellation), .init("batches", \.batches), .init("migrationHooks", \.migrationHooks),
        .init("workDoneProgress", \.workDoneProgress), .init("logMessages", \.logMessages), .init("methods", \.methods),
      ]
    }
  }

  let serverInfo: ServerInfo
  let protocolVersion: String
  let capabilities: Capabilities
  let sqliteVersion: String
  static var members: [ResultMember<Self>] {
    [
      .init("serverInfo", \.serverInfo), .init("protocolVersion", \.protocolVersion), .init("capabilities", \.capabilities),
      .init("sqliteVersion", \.sqliteVersion),
    ]
  }
}
