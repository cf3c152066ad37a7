import JSONCore
import RPCCore

/// `initialize`. LSP's `InitializeParams` are accepted too: `clientInfo` and
/// `capabilities` are recorded, `initializationOptions` holds ModelStore's options, the
/// rest is ignored (`workDoneToken` is every request's, see `WorkDoneProgress`).
struct InitializeParams: MethodParams {
  static let method = "initialize"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = InitializeResult
  /// LSP's fields that mean nothing to ModelStore.
  static let lspIgnored = ["processId", "rootUri", "rootPath", "workspaceFolders", "trace", "locale"]

  let clientInfo: JSONValue
  let capabilities: JSONObject
  let author: String?
  let options: InitializationOptions?

  init(_ r: ParamReader) throws {
    clientInfo = r.value("clientInfo", schema: JSONSchema.any) ?? .null
    capabilities = try r.read("capabilities") ?? [:]
    author = try r.read("author")
    options = try r.read("initializationOptions")
    r.ignore(Self.lspIgnored)
  }
}

/// `initialize`'s `initializationOptions` (where LSP puts a server's own options).
struct InitializationOptions: ParamObject {
  static let shape = ParamShape(describing: Self.self)
  /// Log lines at this level or more severe are also sent as `window/logMessage`.
  let logMessages: Logger.Level?
  init(_ r: ParamReader) throws { logMessages = try r.read("logMessages") }
}

extension Logger.Level: ParamValue {
  static var schema: JSONValue { JSONSchema.enumeration(["error", "warning", "info", "debug"]) }
  static var expected: String { "string" }
  static var placeholder: Logger.Level { .warning }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let name = try String(param: v, path: path())
    guard let level = Logger.Level(name: name) else {
      throw RPCError.invalidParams(
        "\(path()): expected one of error, warning, info, debug, got '\(name)'",
        ["path": .string(path()), "expected": "error, warning, info or debug", "actual": .string(name)])
    }
    self = level
  }
}

/// `shutdown`.
struct ShutdownParams: NoParams {
  static let method = "shutdown"
  static let effect = MethodEffect.session
  static let shape = ParamShape(describing: Self.self)
  typealias Result = NullResult
}

/// `exit`: its params are ignored.
struct ExitParams: MethodParams {
  static let method = "exit"
  static let effect = MethodEffect.session
  static let shape = ParamShape(describing: Self.self)
  typealias Result = NullResult
  init(_ r: ParamReader) throws { r.acceptAnyMembers() }
}
