import JSONCore
import RPCCore
import StoreEngine

/// A type a param member can have: how it is read from JSON and how the protocol
/// description (JSON Schema) names it.
protocol ParamValue {
  /// Its JSON Schema in protocol.json.
  static var schema: JSONValue { get }
  /// What a missing required member is called in its error (`params.to: missing string`).
  static var expected: String { get }
  /// The value a describing run (`ParamReader`) hands out for a required member.
  static var placeholder: Self { get }
  /// Reads `v`, the member at `path` (built only for an error).
  init(param v: JSONValue, path: @autoclosure () -> String) throws
}

extension ParamObject {
  static var placeholder: Self {
    // The describing run needs no input: it reads nothing.
    try! Self(ParamReader(describingInto: ParamRecorder()))
  }
}

/// JSON Schema fragments of the description.
enum JSONSchema {
  static let string: JSONValue = ["type": "string"]
  static let boolean: JSONValue = ["type": "boolean"]
  static let integer: JSONValue = ["type": "integer"]
  static let number: JSONValue = ["type": "number"]
  static let object: JSONValue = ["type": "object"]
  static let null: JSONValue = ["type": "null"]
  static let any: JSONValue = .object([:])
  static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
  static func oneOf(_ schemas: JSONValue...) -> JSONValue { ["oneOf": .array(schemas)] }
  static func enumeration(_ words: [String]) -> JSONValue { ["type": "string", "enum": .array(words.map { .string($0) })] }
  static func constant(_ word: String) -> JSONValue { ["const": .string(word)] }
  /// A reference to a named definition of the description (`#/components/schemas/NAME`).
  static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }
  /// An object with these members (all present); `optional` ones may be absent.
  static func object(_ members: KeyValuePairs<String, JSONValue>, optional: [String] = []) -> JSONValue {
    var properties = JSONObject()
    for (k, v) in members { properties.append(k, v) }
    let required = members.map(\.key).filter { !optional.contains($0) }.map { JSONValue.string($0) }
    var o: JSONObject = ["type": "object", "properties": .object(properties)]
    if !required.isEmpty { o.append("required", .array(required)) }
    return .object(o)
  }
  /// An object whose members are all of one type (`{Entity: count}`).
  static func map(_ values: JSONValue) -> JSONValue { ["type": "object", "additionalProperties": values] }
  static let stringOrObject = oneOf(string, object)
  /// A string that names a file the server opens, reads or writes (`x-filePath`): a
  /// transport that reaches no file but its store refuses it (`MethodPolicy`).
  static let filePath: JSONValue = ["type": "string", "x-filePath": true]
  static let progressToken = oneOf(string, integer)
  static let toMany = enumeration(ToManyMode.allCases.map(\.rawValue))
}

extension String: ParamValue {
  static var schema: JSONValue { JSONSchema.string }
  static var expected: String { "string" }
  static var placeholder: String { "" }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    guard case .string(let s) = v else { throw JSONReadError(path: path(), expected: "string", actual: v.typeName) }
    self = s
  }
}

extension Bool: ParamValue {
  static var schema: JSONValue { JSONSchema.boolean }
  static var expected: String { "boolean" }
  static var placeholder: Bool { false }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    guard case .bool(let b) = v else { throw JSONReadError(path: path(), expected: "boolean", actual: v.typeName) }
    self = b
  }
}

extension Array: ParamValue where Element: ParamValue {
  static var schema: JSONValue { JSONSchema.array(Element.schema) }
  static var expected: String { "array" }
  static var placeholder: [Element] { [] }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    guard case .array(let a) = v else { throw JSONReadError(path: path(), expected: "array", actual: v.typeName) }
    self = []
    reserveCapacity(a.count)
    for (i, e) in a.enumerated() { append(try Element(param: e, path: "\(path())[\(i)]")) }
  }
}

/// Any JSON value (a predicate argument, a schema the engine reads, `clientInfo`).
extension JSONValue: ParamValue {
  static var schema: JSONValue { JSONSchema.any }
  static var expected: String { "value" }
  static var placeholder: JSONValue { .null }
  init(param v: JSONValue, path: @autoclosure () -> String) throws { self = v }
}

/// An object whose members the engine reads (`capabilities`, `variables`).
extension JSONObject: ParamValue {
  static var schema: JSONValue { JSONSchema.object }
  static var expected: String { "object" }
  static var placeholder: JSONObject { [:] }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    guard case .object(let o) = v else { throw JSONReadError(path: path(), expected: "object", actual: v.typeName) }
    self = o
  }
}

/// `toMany`: how the objects of the reply carry their to-many relationships.
extension ToManyMode: ParamValue {
  static var schema: JSONValue { JSONSchema.toMany }
  static var expected: String { "string" }
  static var placeholder: ToManyMode { .none }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    if case .string(let s) = v, let mode = ToManyMode(rawValue: s) {
      self = mode
      return
    }
    let actual: String
    if case .string(let s) = v { actual = "'\(s)'" } else { actual = v.typeName }
    let expected = ToManyMode.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    let at = path()
    throw JSONReadError(
      path: at, expected: "one of \(expected)", actual: actual, message: "\(at): expected one of \(expected), got \(actual)")
  }
}

/// An object's attribute and relationship values (`values`), handed to the engine as they are.
struct Values: ParamValue {
  let object: JSONObject
  static var schema: JSONValue { JSONSchema.object }
  static var expected: String { "object" }
  static var placeholder: Values { Values(object: [:]) }
  init(object: JSONObject) { self.object = object }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    guard case .object(let o) = v else {
      let at = path()
      throw RPCError.invalidParams("\(at): expected an object, got \(v.typeName)", ["path": .string(at), "expected": "object"])
    }
    object = o
  }
}
