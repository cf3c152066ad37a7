import JSONCore

/// A failure the engine reports to its caller, with a stable `kind` word, where in the
/// request it is (`place`, typed: the transport renders it) and the things it concerns
/// (`details`: entity, attribute, object, file). The transport maps kinds to error codes.
public struct StoreError: Error, CustomStringConvertible {
  public enum Kind: String, Sendable {
    case validation, constraint, notFound, deleteDenied, invalidModel, migrationRequired, schemaMismatch
    case conflict, busy, readOnly, transaction, notAStore, noSchema, predicate, storage, cancelled, invalidArgument
    /// A store written in an older storage format (`formatVersion` below `Store.formatVersion`).
    case formatTooOld
  }

  public var kind: Kind
  /// The message, its places typed; `message` is its neutral form.
  public var text: ErrorText
  /// What it concerns: `entity`, `attribute`, `id`, `existing`, `blocking`, `issues`, a
  /// file's `path`, a predicate's `offset`, ...
  public var details: JSONObject
  /// The request member the error is about, when it is about one.
  public var place: ErrorPlace?
  /// Whether the transport also gives `place` as data (`data.path` in JSON-RPC). Errors
  /// whose documented data never had it leave it out, so the wire stays as documented.
  public var placeInData: Bool

  public init(_ kind: Kind, _ message: String, _ details: JSONObject = [:]) {
    self.init(kind, ErrorText(message), details)
  }

  public init(_ kind: Kind, _ text: ErrorText, _ details: JSONObject = [:]) {
    self.kind = kind
    self.text = text
    self.details = details
    self.place = nil
    self.placeInData = false
  }

  /// An error about `place`: the message reads `PLACE: message`.
  public init(_ kind: Kind, at place: ErrorPlace, _ message: ErrorText, _ details: JSONObject = [:], placeInData: Bool = true) {
    self.init(kind, "\(place: place): " + message, details)
    self.place = place
    self.placeInData = placeInData
  }

  public init(_ kind: Kind, at place: ErrorPlace, _ message: String, _ details: JSONObject = [:], placeInData: Bool = true) {
    self.init(kind, at: place, ErrorText(message), details, placeInData: placeInData)
  }

  /// An error about `place` whose message names it elsewhere than at its start.
  public init(_ kind: Kind, _ text: ErrorText, _ details: JSONObject = [:], about place: ErrorPlace, placeInData: Bool = true) {
    self.init(kind, text, details)
    self.place = place
    self.placeInData = placeInData
  }

  /// The message after its leading `PLACE: ` (all of it when it does not start with its place).
  public var body: ErrorText {
    guard let place, text.parts.count >= 2, text.parts[0] == .place(place), case .text(let t) = text.parts[1], t.hasPrefix(": ")
    else { return text }
    let rest = String(t.dropFirst(2))
    return ErrorText(parts: (rest.isEmpty ? [] : [.text(rest)]) + text.parts.dropFirst(2))
  }

  /// The message with places in their neutral form (`values.title`).
  public var message: String { text.description }

  public var description: String { "\(kind.rawValue): \(message)" }

  static func unknownEntity(_ name: String) -> StoreError {
    StoreError(.notFound, "unknown entity '\(name)'", ["entity": .string(name), "what": "entity"])
  }
}
