import JSONCore

/// A JSON-RPC error object. `data.kind` is the stable word clients switch on; the code
/// is the coarse class (protocol.md, "Errors").
public struct RPCError: Error, Equatable, CustomStringConvertible {
  public var code: Int
  public var message: String
  public var data: JSONObject

  public init(code: Int, message: String, kind: String, data: JSONObject = [:]) {
    self.code = code
    self.message = message
    var d: JSONObject = ["kind": .string(kind)]
    for m in data.members where m.key != "kind" { d.append(m.key, m.value) }
    self.data = d
  }

  public var kind: String { data["kind"]?.stringValue ?? "" }
  public var description: String { "\(code) \(kind): \(message)" }

  public var json: JSONValue {
    .object(["code": .int(Int64(code)), "message": .string(message), "data": .object(data)])
  }

  // MARK: - The standard codes (JSON-RPC 2.0 section 5.1, LSP for -32800)

  public static func parseError(_ message: String, _ data: JSONObject = [:]) -> RPCError {
    RPCError(code: -32700, message: "Parse error: \(message)", kind: "parse", data: data)
  }
  public static func invalidRequest(_ message: String, kind: String = "invalidRequest", _ data: JSONObject = [:]) -> RPCError {
    RPCError(code: -32600, message: "Invalid Request: \(message)", kind: kind, data: data)
  }
  public static func methodNotFound(_ method: String) -> RPCError {
    RPCError(code: -32601, message: "Method not found: \(method)", kind: "methodNotFound", data: ["method": .string(method)])
  }
  public static func invalidParams(_ message: String, _ data: JSONObject = [:]) -> RPCError {
    RPCError(code: -32602, message: "Invalid params: \(message)", kind: "invalidParams", data: data)
  }
  public static func internalError(_ message: String) -> RPCError {
    RPCError(code: -32603, message: "Internal error: \(message)", kind: "internal")
  }
  public static func cancelled() -> RPCError {
    RPCError(code: -32800, message: "Request cancelled", kind: "cancelled")
  }
}

/// Errors from other layers that know their JSON-RPC form.
public protocol RPCErrorConvertible: Error {
  var rpcError: RPCError { get }
}

extension RPCError: RPCErrorConvertible {
  public var rpcError: RPCError { self }
}

extension JSONReadError: RPCErrorConvertible {
  public var rpcError: RPCError {
    var d: JSONObject = ["path": .string(path), "expected": .string(expected)]
    if let actual { d.append("actual", .string(actual)) }
    return .invalidParams(message, d)
  }
}
