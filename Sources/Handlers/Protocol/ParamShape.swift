import JSONCore

/// What the describing run of a params struct's `init` records (see `ParamReader`).
final class ParamRecorder {
  struct Member {
    let key: String
    let schema: JSONValue
    let required: Bool
    let streamed: Bool
  }
  private(set) var members: [Member] = []
  var acceptsAny = false
  /// Members accepted and ignored (LSP's fields of `initialize`).
  var ignored: [String] = []

  func add(_ key: String, _ schema: JSONValue, required: Bool, streamed: Bool = false) {
    guard !members.contains(where: { $0.key == key }) else { return }
    members.append(Member(key: key, schema: schema, required: required, streamed: streamed))
  }
}

/// A params object's shape, found once per type by running its `init` against a
/// describing reader: its keys (the members it accepts), their types, the streamed one.
struct ParamShape {
  let members: [ParamRecorder.Member]
  /// The members accepted: those read, then those ignored.
  let keys: [String]
  let acceptsAny: Bool
  let ignored: [String]

  init<T: ParamObject>(describing type: T.Type) {
    let recorder = ParamRecorder()
    do {
      _ = try T(ParamReader(describingInto: recorder))
    } catch {
      // A programming error: the describing run must reach the end of the init.
      fatalError("describing \(T.self) threw \(error): check combined members after reading them all")
    }
    members = recorder.members
    ignored = recorder.ignored
    keys = members.map(\.key) + ignored
    acceptsAny = recorder.acceptsAny
  }

  var streamedParam: String? { members.first(where: \.streamed)?.key }

  /// Fails on the first member that is not one of `keys`, as `JSONReader.rejectUnknown`.
  func rejectUnknown(_ json: JSONReader) throws {
    if !acceptsAny { try json.rejectUnknown(keys) }
  }

  /// JSON Schema of the object.
  var schema: JSONValue {
    var properties = JSONObject()
    for m in members { properties.append(m.key, m.schema) }
    var o: JSONObject = ["type": "object", "properties": .object(properties)]
    let required = members.filter(\.required).map { JSONValue.string($0.key) }
    if !required.isEmpty { o.append("required", .array(required)) }
    o.append("additionalProperties", .bool(acceptsAny))
    return .object(o)
  }
}

/// A JSON object read into a struct through a `ParamReader`: a method's params, or an
/// object inside them (a sort key, an aggregate, a change of `context.save`).
protocol ParamObject: ParamValue {
  init(_ r: ParamReader) throws
  /// `ParamShape(describing: Self.self)`, kept once per type.
  static var shape: ParamShape { get }
}

extension ParamObject {
  static var schema: JSONValue { shape.schema }
  static var expected: String { "object" }

  /// Reads the object `v` at `path`: not an object, or a member the type does not read,
  /// fails before any member is read.
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let json = try JSONReader(v, path: path())
    try Self.shape.rejectUnknown(json)
    try self.init(ParamReader(json))
  }
}
