/// A failure to read a typed value out of JSON, carrying the path to the offending member
/// (`params.values.priority`), the same role as a Codable coding path.
public struct JSONReadError: Error, Equatable, CustomStringConvertible {
  public var path: String
  public var expected: String
  public var actual: String?
  public var message: String
  public var description: String { message }

  public init(path: String, expected: String, actual: String?, message: String? = nil) {
    self.path = path
    self.expected = expected
    self.actual = actual
    self.message = message ?? (actual.map { "\(path): expected \(expected), got \($0)" } ?? "\(path): missing \(expected)")
  }
}

/// Reads members of a JSON object by name, tracking the path for precise errors and
/// rejecting members the caller did not ask for (`rejectUnknown`).
public struct JSONReader {
  public let object: JSONObject
  private let basePath: String
  private let index: Int?
  /// Where this object sits in the message (`params.changes[3]`); built only when asked,
  /// which is on errors: readers for list elements are made once per element.
  public var path: String { index.map { "\(basePath)[\($0)]" } ?? basePath }

  public init(_ object: JSONObject, path: String) {
    self.object = object
    self.basePath = path
    self.index = nil
  }

  /// Wraps any value that must be an object.
  public init(_ value: JSONValue, path: String) throws {
    guard case .object(let o) = value else {
      throw JSONReadError(path: path, expected: "object", actual: value.typeName)
    }
    self.init(o, path: path)
  }

  /// Wraps element `index` of the array at `arrayPath`, which must be an object.
  public init(_ value: JSONValue, arrayPath: String, index: Int) throws {
    guard case .object(let o) = value else {
      throw JSONReadError(path: "\(arrayPath)[\(index)]", expected: "object", actual: value.typeName)
    }
    self.object = o
    self.basePath = arrayPath
    self.index = index
  }

  public func child(_ key: String) -> String { "\(path).\(key)" }

  public func has(_ key: String) -> Bool {
    if let v = object[key], !v.isNull { return true }
    return false
  }

  public func value(_ key: String) -> JSONValue? {
    guard let v = object[key], !v.isNull else { return nil }
    return v
  }

  public func require(_ key: String, expected: String = "value") throws -> JSONValue {
    guard let v = value(key) else { throw JSONReadError(path: child(key), expected: expected, actual: nil) }
    return v
  }

  public func string(_ key: String) throws -> String? {
    guard let v = value(key) else { return nil }
    guard case .string(let s) = v else { throw JSONReadError(path: child(key), expected: "string", actual: v.typeName) }
    return s
  }

  public func requireString(_ key: String) throws -> String {
    guard let s = try string(key) else { throw JSONReadError(path: child(key), expected: "string", actual: nil) }
    return s
  }

  public func bool(_ key: String) throws -> Bool? {
    guard let v = value(key) else { return nil }
    guard case .bool(let b) = v else { throw JSONReadError(path: child(key), expected: "boolean", actual: v.typeName) }
    return b
  }

  public func int(_ key: String, min: Int64 = .min, max: Int64 = .max) throws -> Int64? {
    guard let v = value(key) else { return nil }
    guard case .int(let i) = v else { throw JSONReadError(path: child(key), expected: "integer", actual: v.typeName) }
    guard i >= min && i <= max else {
      throw JSONReadError(
        path: child(key), expected: "integer in \(min)...\(max)", actual: "\(i)",
        message: "\(child(key)): \(i) is out of range \(min)...\(max)")
    }
    return i
  }

  public func object(_ key: String) throws -> JSONReader? {
    guard let v = value(key) else { return nil }
    return try JSONReader(v, path: child(key))
  }

  public func requireObject(_ key: String) throws -> JSONReader {
    guard let r = try object(key) else { throw JSONReadError(path: child(key), expected: "object", actual: nil) }
    return r
  }

  public func array(_ key: String) throws -> [JSONValue]? {
    guard let v = value(key) else { return nil }
    guard case .array(let a) = v else { throw JSONReadError(path: child(key), expected: "array", actual: v.typeName) }
    return a
  }

  public func requireArray(_ key: String) throws -> [JSONValue] {
    guard let a = try array(key) else { throw JSONReadError(path: child(key), expected: "array", actual: nil) }
    return a
  }

  public func stringArray(_ key: String) throws -> [String]? {
    guard let a = try array(key) else { return nil }
    return try a.enumerated().map { i, v in
      guard case .string(let s) = v else {
        throw JSONReadError(path: "\(child(key))[\(i)]", expected: "string", actual: v.typeName)
      }
      return s
    }
  }

  /// Fails on the first member whose key is not in `known`, so typos never pass silently.
  /// `known` is an array: it is short, and a literal array costs no hashing per request.
  public func rejectUnknown(_ known: [String]) throws {
    for m in object.members where !known.contains(m.key) {
      throw JSONReadError(
        path: child(m.key), expected: "one of \(known.sorted().joined(separator: ", "))", actual: nil,
        message: "\(child(m.key)): unknown member '\(m.key)'")
    }
  }
}
