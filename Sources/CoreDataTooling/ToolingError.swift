import FileAccess
import JSONCore

/// Why a model could not be imported, audited or generated from: a path that is missing
/// or not a model, a model without a usable current version. The `kind` words are the
/// engine's (`StoreError.Kind`), which `StoreError(_: ToolingError)` carries over, so
/// callers see the same error as if the engine had raised it.
public struct ToolingError: Error, CustomStringConvertible {
  public enum Kind: String, Sendable { case notFound, invalidArgument, storage, invalidModel }

  public var kind: Kind
  public var message: String
  /// Where and what: `path`, `what`, `issues`, `reason`, `limit`.
  public var details: JSONObject
  /// The request member the error is about (`versionOrder`, `modelVersion`), when it is
  /// one: the engine makes it the error's place (`ErrorPlace`).
  public var argument: String?

  public init(_ kind: Kind, _ message: String, _ details: JSONObject = [:], argument: String? = nil) {
    self.kind = kind
    self.message = message
    self.details = details
    self.argument = argument
  }

  /// A model file that could not be read, with the kind the engine gives a `FileAccessError`.
  init(_ e: FileAccessError) {
    var details: JSONObject = ["path": .string(UserPath.printable(e.path)), "reason": .string(e.reason.rawValue)]
    if let limit = e.limit { details["limit"] = .int(Int64(limit)) }
    switch e.reason {
    case .notFound: self.init(.notFound, e.message, details)
    case .io: self.init(.storage, e.message, details)
    case .invalidPath, .exists, .notRegularFile, .danglingLink, .tooLarge: self.init(.invalidArgument, e.message, details)
    }
  }

  public var description: String { "\(kind.rawValue): \(message)" }
}
