import JSONCore

/// `initialize`.
struct InitializeParams: MethodParams {
  static let method = "initialize"
  static let shape = ParamShape(describing: Self.self)
  static let result = JSONSchema.object([
    "serverInfo": JSONSchema.object(["name": JSONSchema.string, "version": JSONSchema.string]), "protocolVersion": JSONSchema.string,
    "capabilities": JSONSchema.object([
      "framing": JSONSchema.array(JSONSchema.string), "attributeTypes": JSONSchema.array(JSONSchema.string),
      "deleteRules": JSONSchema.array(JSONSchema.string),
      "cancellation": JSONSchema.boolean, "batches": JSONSchema.boolean, "migrationHooks": JSONSchema.boolean,
    ]),
    "sqliteVersion": JSONSchema.string,
  ])

  let clientInfo: JSONValue
  let capabilities: JSONObject
  let author: String?

  init(_ r: ParamReader) throws {
    clientInfo = r.value("clientInfo", schema: JSONSchema.any) ?? .null
    capabilities = try r.read("capabilities") ?? [:]
    author = try r.read("author")
  }
}

/// `shutdown`.
struct ShutdownParams: NoParams {
  static let method = "shutdown"
  static let shape = ParamShape(describing: Self.self)
  static let result = JSONSchema.null
}

/// `exit`: its params are ignored.
struct ExitParams: MethodParams {
  static let method = "exit"
  static let shape = ParamShape(describing: Self.self)
  static let result = JSONSchema.null
  init(_ r: ParamReader) throws { r.acceptAnyMembers() }
}
