import JSONCore

/// `initialize`.
struct InitializeParams: MethodParams {
  static let method = "initialize"
  static let shape = ParamShape(describing: Self.self)
  typealias Result = InitializeResult

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
  typealias Result = NullResult
}

/// `exit`: its params are ignored.
struct ExitParams: MethodParams {
  static let method = "exit"
  static let shape = ParamShape(describing: Self.self)
  typealias Result = NullResult
  init(_ r: ParamReader) throws { r.acceptAnyMembers() }
}
