import CoreDataTooling
import Diagrams
import JSONCore
import RPCCore
import StoreEngine

/// The one owner of the server's error codes and kinds, and of how engine errors read on
/// the wire. Each engine kind has its own code in the server range (-32000..-32099) so
/// that clients can switch on either; protocol.md lists them. The standard JSON-RPC
/// codes (-32700..-32603, -32800) are `RPCError`'s.
public enum ErrorCodes {
  public static let codes: [StoreError.Kind: Int] = [
    .validation: -32001, .constraint: -32002, .notFound: -32003, .deleteDenied: -32004, .invalidModel: -32005,
    .migrationRequired: -32006, .schemaMismatch: -32007, .conflict: -32008, .busy: -32009, .readOnly: -32010,
    .transaction: -32011, .notAStore: -32012, .noSchema: -32013, .formatTooOld: -32015, .storage: -32020,
    .predicate: -32602, .invalidArgument: -32602, .cancelled: -32800,
  ]

  /// The code of an engine kind (`storage`'s for a kind without one).
  public static func code(_ kind: StoreError.Kind) -> Int { codes[kind] ?? -32020 }

  /// Kinds only the transport raises.
  public static let hookFailed = -32014

  /// A method or param a restricted transport does not allow (`MethodPolicy`: a file
  /// path, or `store.open`, `shutdown`, `exit` in `modelstore studio`).
  public static let notAllowed = -32016

  static func notAllowed(_ message: String, _ data: JSONObject) -> RPCError {
    RPCError(code: notAllowed, message: message, kind: "notAllowed", data: data)
  }

  /// Graphviz's `dot`, which a picture needs, is not installed or failed.
  public static let graphviz = -32017

  /// A client's migration hook answered with an error.
  static func hookFailed(_ message: String, _ data: JSONObject) -> RPCError {
    RPCError(code: hookFailed, message: message, kind: "hookFailed", data: data)
  }
}

extension ErrorPlace {
  /// The JSON-RPC form of a place: the JSON path of the param, `params.changes[3].values.title`.
  public var jsonPath: String { "params." + description }
}

/// Engine errors in their JSON-RPC form: places rendered as JSON paths (and in
/// `data.path` where the error gives its place as data).
extension StoreError: RPCErrorConvertible {
  public var rpcError: RPCError {
    var data = details
    if placeInData, let place, data["path"] == nil { data.append("path", .string(place.jsonPath)) }
    return RPCError(code: ErrorCodes.code(kind), message: text.rendered(\.jsonPath), kind: kind.rawValue, data: data)
  }
}

/// Core Data tooling errors answer as the engine error they carry over to (same code).
extension ToolingError: RPCErrorConvertible {
  public var rpcError: RPCError { StoreError(self).rpcError }
}

/// A picture `dot` could not draw: not installed (`reason: "notInstalled"`, with the
/// Debian package to install) or failed (`reason: "failed"`, its exit status and the end of
/// its standard error).
extension Graphviz.Failure: RPCErrorConvertible {
  public var rpcError: RPCError {
    var data: JSONObject = ["reason": .string(reason.rawValue), "program": "dot", "package": .string(Graphviz.package)]
    if let status { data.append("status", .int(Int64(status))) }
    if !stderr.isEmpty { data.append("stderr", .string(stderr)) }
    return RPCError(code: ErrorCodes.graphviz, message: message, kind: "graphviz", data: data)
  }
}
