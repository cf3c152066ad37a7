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
    static var members: [ResultMember<Self>] {
      [
        .init("framing", \.framing), .init("attributeTypes", \.attributeTypes), .init("deleteRules", \.deleteRules),
        .init("cancellation", \.cancellation), .init("batches", \.batches), .init("migrationHooks", \.migrationHooks),
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
