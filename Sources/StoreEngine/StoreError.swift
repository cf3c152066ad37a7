import JSONCore

/// A failure the engine reports to its caller, with a stable `kind` word and the place
/// (entity, attribute, object) it concerns. The RPC layer maps kinds to error codes.
public struct StoreError: Error, CustomStringConvertible {
  public enum Kind: String, Sendable {
    case validation, constraint, notFound, deleteDenied, invalidModel, migrationRequired, schemaMismatch
    case conflict, busy, readOnly, transaction, notAStore, noSchema, predicate, storage, cancelled, invalidArgument
    /// A store written in an older storage format (`formatVersion` below `Store.formatVersion`).
    case formatTooOld
  }

  public var kind: Kind
  public var message: String
  /// Where and what: `entity`, `attribute`, `id`, `existing`, `blocking`, `issues`, ...
  public var details: JSONObject

  public init(_ kind: Kind, _ message: String, _ details: JSONObject = [:]) {
    self.kind = kind
    self.message = message
    self.details = details
  }

  public var description: String { "\(kind.rawValue): \(message)" }

  static func unknownEntity(_ name: String) -> StoreError {
    StoreError(.notFound, "unknown entity '\(name)'", ["entity": .string(name), "what": "entity"])
  }
}
