import JSONCore
import RPCCore

/// Reads a method's params (or a nested params object) into its typed struct, and is the
/// one source of the params' shape: each struct's `init(_:)` reads its members through
/// this reader, and the same `init` run once against a describing reader
/// (`ParamShape(describing:)`) records every key it reads, with its type and whether it
/// is required. The keys recorded are the only members the struct accepts (a member it
/// does not read is refused before reading starts, `ParamShape.rejectUnknown`), and the
/// types recorded are the protocol description (`modelstore protocol --json`).
///
/// While describing, optional reads answer nil, required reads a placeholder, and
/// `has` false: an `init` must then run to its end without throwing (checks that combine
/// members go after the reads, or into the handler).
struct ParamReader {
  let json: JSONReader
  let recorder: ParamRecorder?

  init(_ json: JSONReader) {
    self.json = json
    recorder = nil
  }

  init(describingInto recorder: ParamRecorder) {
    json = JSONReader(JSONObject(), path: "params")
    self.recorder = recorder
  }

  var isDescribing: Bool { recorder != nil }
  /// `params.sort[2].key`, for errors.
  func child(_ key: String) -> String { json.child(key) }
  var path: String { json.path }

  /// True when `key` is present and not null (false while describing: the key must also be
  /// read, or named with `declare`, to be accepted).
  func has(_ key: String) -> Bool { json.has(key) }

  /// Member `key` as `T`, nil when absent or null. `required: true` only describes it as
  /// required, for a member whose absence the caller reports in its own words.
  func read<T: ParamValue>(_ key: String, required: Bool = false, schema: JSONValue? = nil) throws -> T? {
    if let recorder {
      recorder.add(key, schema ?? T.schema, required: required)
      return nil
    }
    guard let v = json.value(key) else { return nil }
    return try T(param: v, path: json.child(key))
  }

  /// Member `key` as `T`; absent or null is `params.key: missing <T.expected>`.
  func require<T: ParamValue>(_ key: String, schema: JSONValue? = nil) throws -> T {
    if let recorder {
      recorder.add(key, schema ?? T.schema, required: true)
      return T.placeholder
    }
    guard let v = json.value(key) else { throw JSONReadError(path: json.child(key), expected: T.expected, actual: nil) }
    return try T(param: v, path: json.child(key))
  }

  /// An integer member within `min...max`.
  func int(_ key: String, min: Int64 = .min, required: Bool = false) throws -> Int64? {
    if let recorder {
      var schema: JSONObject = ["type": "integer"]
      if min != .min { schema.append("minimum", .int(min)) }
      recorder.add(key, .object(schema), required: required)
      return nil
    }
    return try json.int(key, min: min)
  }

  /// The raw value of `key`, unchecked (the caller checks it), described by `schema`.
  func value(_ key: String, schema: JSONValue, required: Bool = false) -> JSONValue? {
    if let recorder {
      recorder.add(key, schema, required: required)
      return nil
    }
    return json.value(key)
  }

  /// Names a member this struct accepts without reading it here: a streamed array param
  /// (read one element at a time by the handler, `RequestContext.elements`), or one that
  /// is only refused when given without its companion (`refuseWithout`).
  func declare(_ key: String, schema: JSONValue, required: Bool = false, streamed: Bool = false) {
    recorder?.add(key, schema, required: required, streamed: streamed)
  }

  /// Refuses `key` given without `companion`, the param that gives it a meaning: every
  /// param present is used or refused, never silently dropped.
  func refuseWithout(_ key: String, _ companion: String, schema: JSONValue) throws {
    declare(key, schema: schema)
    guard has(key) && !has(companion) else { return }
    throw RPCError.invalidParams("\(child(key)) given without \(child(companion))", ["path": .string(child(key))])
  }

  /// `exit`: any members are accepted and ignored.
  func acceptAnyMembers() { recorder?.acceptsAny = true }

  /// Members accepted and ignored, whatever their value: another protocol's fields that
  /// mean nothing here (LSP's `processId`, `rootUri`, ... of `initialize`). The protocol
  /// description lists them as `x-ignoredParams`.
  func ignore(_ keys: [String]) { recorder?.ignored += keys }
}
