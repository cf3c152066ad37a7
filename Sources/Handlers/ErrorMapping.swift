import CoreDataTooling
import JSONCore
import RPCCore
import StoreEngine

/// Engine errors in their JSON-RPC form. Each kind has its own code in the server range
/// (-32000..-32099) so that clients can switch on either; protocol.md lists them.
extension StoreError: RPCErrorConvertible {
  public static let codes: [Kind: Int] = [
    .validation: -32001, .constraint: -32002, .notFound: -32003, .deleteDenied: -32004, .invalidModel: -32005,
    .migrationRequired: -32006, .schemaMismatch: -32007, .conflict: -32008, .busy: -32009, .readOnly: -32010,
    .transaction: -32011, .notAStore: -32012, .noSchema: -32013, .formatTooOld: -32015, .storage: -32020,
    .predicate: -32602, .invalidArgument: -32602, .cancelled: -32800,
  ]

  public var rpcError: RPCError {
    RPCError(code: StoreError.codes[kind] ?? -32020, message: message, kind: kind.rawValue, data: details)
  }
}

/// Core Data tooling errors answer as the engine error they carry over to (same code).
extension ToolingError: RPCErrorConvertible {
  public var rpcError: RPCError { StoreError(self).rpcError }
}
