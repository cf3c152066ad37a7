import JSONCore

/// A value a method's result holds, typed: it writes its wire JSON (`resultJSON`) and
/// describes its JSON Schema (`resultSchema`), so the description in protocol.json is
/// generated from the same type that answers.
protocol ResultValue {
  /// Its JSON Schema in the description.
  static var resultSchema: JSONValue { get }
  /// Its wire form.
  var resultJSON: JSONValue { get }
}

/// An object result: its members, in wire order, each a key and the property it writes.
/// The member list is the one place that knows the shape: `resultJSON` writes it,
/// `resultSchema` describes it.
protocol ResultObject: ResultValue {
  static var members: [ResultMember<Self>] { get }
  /// The name of its shared definition in the description (`components.schemas`), or nil
  /// to describe it in place.
  static var component: String? { get }
}

extension ResultObject {
  static var component: String? { nil }

  static var resultSchema: JSONValue { component.map(JSONSchema.ref) ?? objectSchema }

  /// The object's JSON Schema: its members, the ones always written `required`, and no
  /// other (`additionalProperties: false`: the type writes nothing else).
  static var objectSchema: JSONValue {
    var properties = JSONObject()
    var required: [JSONValue] = []
    for m in members {
      properties.append(m.key, m.describe())
      if m.required { required.append(.string(m.key)) }
    }
    var o: JSONObject = ["type": "object", "properties": .object(properties)]
    if !required.isEmpty { o.append("required", .array(required)) }
    o.append("additionalProperties", false)
    return .object(o)
  }

  var resultJSON: JSONValue {
    var o = JSONObject()
    for m in Self.members { m.write(self, &o) }
    return .object(o)
  }
}

/// One member of a `ResultObject`: its key, its schema (from the property's type, made only
/// when the description asks: a reply never builds it), whether it is always written, and
/// how it is written.
struct ResultMember<Root> {
  let key: String
  let describe: () -> JSONValue
  let required: Bool
  let write: (Root, inout JSONObject) -> Void

  /// Always written; an optional property is written as `null` when nil.
  init<V: ResultValue>(_ key: String, _ path: KeyPath<Root, V>) {
    self.key = key
    describe = { V.resultSchema }
    required = true
    write = { root, o in o.append(key, root[keyPath: path].resultJSON) }
  }

  /// Written only when the property is not nil.
  init<V: ResultValue>(ifPresent key: String, _ path: KeyPath<Root, V?>) {
    self.key = key
    describe = { V.resultSchema }
    required = false
    write = { root, o in if let v = root[keyPath: path] { o.append(key, v.resultJSON) } }
  }
}

extension String: ResultValue {
  static var resultSchema: JSONValue { JSONSchema.string }
  var resultJSON: JSONValue { .string(self) }
}

extension Bool: ResultValue {
  static var resultSchema: JSONValue { JSONSchema.boolean }
  var resultJSON: JSONValue { .bool(self) }
}

extension Int: ResultValue {
  static var resultSchema: JSONValue { JSONSchema.integer }
  var resultJSON: JSONValue { .int(Int64(self)) }
}

extension Int64: ResultValue {
  static var resultSchema: JSONValue { JSONSchema.integer }
  var resultJSON: JSONValue { .int(self) }
}

extension Array: ResultValue where Element: ResultValue {
  static var resultSchema: JSONValue { JSONSchema.array(Element.resultSchema) }
  var resultJSON: JSONValue { .array(map(\.resultJSON)) }
}

/// A nullable value: `null` when nil.
extension Optional: ResultValue where Wrapped: ResultValue {
  static var resultSchema: JSONValue { JSONSchema.oneOf(Wrapped.resultSchema, JSONSchema.null) }
  var resultJSON: JSONValue { map(\.resultJSON) ?? .null }
}

/// An object whose members are all of one type (`{Entity: count}`), in order.
struct ResultMap<Value: ResultValue>: ResultValue {
  let pairs: [(key: String, value: Value)]
  init(_ pairs: [(key: String, value: Value)]) { self.pairs = pairs }
  static var resultSchema: JSONValue { JSONSchema.map(Value.resultSchema) }
  var resultJSON: JSONValue { .object(JSONObject(pairs.map { .init($0.key, $0.value.resultJSON) })) }
}

/// A word of a closed set (an enum's raw values): its schema lists them all.
protocol ResultWord: ResultValue, RawRepresentable, CaseIterable where RawValue == String {}

extension ResultWord {
  static var resultSchema: JSONValue { JSONSchema.enumeration(allCases.map(\.rawValue)) }
  var resultJSON: JSONValue { .string(rawValue) }
}

/// The result of a method that answers `null` (`shutdown`, `exit`, `query.unobserve`).
struct NullResult: ResultValue {
  static var resultSchema: JSONValue { JSONSchema.null }
  var resultJSON: JSONValue { .null }
}
