import JSONCore
import RPCCore

/// One method's typed description: its wire name, its params (the struct itself, read by
/// `init(_:)`) and its result type (`Result`, which writes the reply and describes it). The method table (`Session.methods()`)
/// takes its names from these types, and `modelstore protocol --json` describes the
/// protocol from them (`ProtocolDescription`).
protocol MethodParams: ParamObject {
  /// The wire name, `namespace.verb`.
  static var method: String { get }
  /// What the method may change: a transport that restricts its clients (`MethodPolicy`,
  /// `modelstore studio --read-only`) refuses by this, and protocol.json says it
  /// (`x-effect`). Every method states it: there is no default to forget.
  static var effect: MethodEffect { get }
  /// The result's type: the handler returns it, the description takes its schema.
  associatedtype Result: ResultValue
}

extension MethodParams {
  /// The JSON Schema of the result, from its type.
  static var result: JSONValue { Result.resultSchema }
}

/// What a method may change (protocol.json's `x-effect`).
public enum MethodEffect: String, Sendable {
  /// Reads the store, or nothing (a model file it is given, the session's own state).
  case reads
  /// May change the store: its objects, schema or history (a client transaction included).
  case writes
  /// Replaces or closes the session's store, or ends the session (`store.open`,
  /// `shutdown`, `exit`).
  case session
}

/// One entry of the method table: a params type and the handler it feeds.
struct MethodEntry {
  let params: any MethodParams.Type
  let handler: MethodHandler

  /// The handler gets its params read and checked: a member the params type does not
  /// read is refused first (`params.x: unknown member 'x'`), then `init(_:)` reads the rest.
  init<P: MethodParams>(_ type: P.Type, _ body: @escaping (P, RequestContext) throws -> P.Result) {
    params = type
    let shape = P.shape
    handler = { json, context in
      try shape.rejectUnknown(json)
      return try body(try P(ParamReader(json)), context).resultJSON
    }
  }

  init(params: any MethodParams.Type, handler: @escaping MethodHandler) {
    self.params = params
    self.handler = handler
  }

  var name: String { params.method }
}

extension ParamReader {
  /// A check that combines members (`give exactly one of 'path' or 'memory: true'`), made
  /// where it was always made; skipped while describing, where every member is absent.
  func check(_ ok: @autoclosure () throws -> Bool, _ error: @autoclosure () -> Error) throws {
    guard !isDescribing else { return }
    if try !ok() { throw error() }
  }
}

/// Params of a method that takes none: any member is refused.
protocol NoParams: MethodParams {
  init()
}

extension NoParams {
  init(_ r: ParamReader) throws { self.init() }
}
