// Ownership rules for the jansson calls in this file (jansson "Reference Count" docs):
// 1. json_loadb returns a new reference. It is owned by the parse's arena (JanssonArena):
//    instead of a decref, the whole arena is rewound after conversion, so no jansson
//    pointer may outlive `parseInArena`.
// 2. json_object_iter_value / json_array_get return borrowed references: only read, never
//    decref'd, never kept past the root's lifetime.
// 3. Strings are read with json_string_value + json_string_length so embedded NULs survive.
import CJansson

#if canImport(Glibc)
  import Glibc
#endif

/// Why a text could not become a `JSONValue`, with jansson's position where it has one.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
  /// `nulInKey`: an object key holds U+0000. jansson keeps keys as C strings, so it refuses
  /// them (JSON_ALLOW_NUL covers string values only) rather than cut the key short.
  public enum Kind: String, Sendable { case syntax, invalidUTF8, tooDeep, numericOverflow, duplicateKey, nulInKey }
  public var kind: Kind
  public var message: String
  public var line: Int
  public var column: Int
  public var position: Int
  /// jansson stopped at the end of its input (premature end): how a text cut short fails.
  var atEndOfInput = false
  public var description: String { "\(message) (line \(line), column \(column), byte \(position))" }

  public init(kind: Kind, message: String, line: Int, column: Int, position: Int) {
    self.kind = kind
    self.message = message
    self.line = line
    self.column = column
    self.position = position
  }
}

/// Parses JSON text through jansson and converts it to a Swift tree in one pass.
public enum JSONParser {
  /// The default limit of nested arrays/objects. Deeper input is refused, not recursed into.
  public static let defaultMaxDepth = 64

  /// Parses one JSON text (any value at top level, duplicate keys rejected).
  public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
    try refuseRawNUL(bytes)
    return try JanssonArena.withArena { inArena in try parse(bytes, maxDepth: maxDepth, freeingTree: !inArena) }
  }

  /// A raw 0x00 byte is never JSON (U+0000 is written `\u0000` inside a string), but
  /// jansson's lexer, asked to allow NUL in strings, passes over one after a number
  /// (`"id":1<NUL>,`) as if it were not there: it is refused here, at its position.
  static func refuseRawNUL(_ bytes: UnsafeRawBufferPointer) throws {
    guard let base = bytes.baseAddress, let hit = memchr(base, 0, bytes.count) else { return }
    let position = UnsafeRawPointer(hit) - base
    let before = UnsafeRawBufferPointer(rebasing: bytes[0..<position])
    let lastNewline = before.lastIndex(of: 0x0A)
    throw JSONParseError(
      kind: .syntax, message: "a NUL byte (0x00) is not allowed in JSON text (write U+0000 as \\u0000 inside a string)",
      line: before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }, column: position - (lastNewline.map { $0 + 1 } ?? 0) + 1, position: position)
  }

  /// The parse proper. In the thread's arena the root is not decref'd: the arena is
  /// rewound as a whole when the parse returns (see JanssonArena); a tree made with malloc
  /// (another thread holds the arena) is freed here.
  private static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int, freeingTree: Bool) throws -> JSONValue {
    let root = try load(bytes).root
    defer { if freeingTree { json_decref(root) } }
    return try convert(root, depth: 0, maxDepth: maxDepth)
  }

  /// One jansson parse of `bytes` with the usual flags (any value, duplicate keys refused,
  /// NUL allowed in strings) plus `extraFlags`: the root (owned by the caller, see rule 1)
  /// and the number of bytes jansson read (`JSON_DISABLE_EOF_CHECK` stops after one value).
  static func load(_ bytes: UnsafeRawBufferPointer, extraFlags: Int32 = 0) throws -> (
    root: UnsafeMutablePointer<json_t>, consumed: Int
  ) {
    var error = json_error_t()
    let flags = JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | extraFlags
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
      let root = json_loadb(base, bytes.count, Int(flags), &error)
    else {
      if bytes.baseAddress == nil {
        throw JSONParseError(kind: .syntax, message: "empty message", line: 1, column: 0, position: 0)
      }
      throw makeError(error)
    }
    // With JSON_DISABLE_EOF_CHECK jansson returns the value even when reading past it failed
    // (invalid UTF-8 right after a number), with the error set: the whole text fails there.
    if extraFlags != 0 && cj_error_text(&error).pointee != 0 {
      json_decref(root)
      throw makeError(error)
    }
    return (root, Int(error.position))
  }

  public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
    try bytes.withUnsafeBytes { try parse($0, maxDepth: maxDepth) }
  }

  public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
    var copy = text
    return try copy.withUTF8 { try parse(UnsafeRawBufferPointer($0), maxDepth: maxDepth) }
  }

  static func makeError(_ e: json_error_t) -> JSONParseError {
    var e = e
    let text = String(cString: cj_error_text(&e))
    let code = cj_error_code(&e)
    let kind: JSONParseError.Kind
    switch UInt32(code) {
    case json_error_invalid_utf8.rawValue: kind = .invalidUTF8
    case json_error_stack_overflow.rawValue: kind = .tooDeep
    case json_error_numeric_overflow.rawValue: kind = .numericOverflow
    case json_error_duplicate_key.rawValue: kind = .duplicateKey
    case json_error_null_byte_in_key.rawValue: kind = .nulInKey
    default: kind = .syntax
    }
    var parsed = JSONParseError(kind: kind, message: text, line: Int(e.line), column: Int(e.column), position: Int(e.position))
    parsed.atEndOfInput = UInt32(code) == json_error_premature_end_of_input.rawValue
    return parsed
  }

  static func convert(_ v: UnsafeMutablePointer<json_t>, depth: Int, maxDepth: Int) throws -> JSONValue {
    switch cj_typeof(v) {
    case JSON_NULL: return .null
    case JSON_TRUE: return .bool(true)
    case JSON_FALSE: return .bool(false)
    case JSON_INTEGER: return .int(Int64(json_integer_value(v)))
    case JSON_REAL: return .double(json_real_value(v))
    case JSON_STRING:
      return .string(readString(json_string_value(v), json_string_length(v)))
    case JSON_ARRAY:
      try checkDepth(depth, maxDepth)
      let n = json_array_size(v)
      var items: [JSONValue] = []
      items.reserveCapacity(n)
      for i in 0..<n {
        items.append(try convert(json_array_get(v, i)!, depth: depth + 1, maxDepth: maxDepth))
      }
      return .array(items)
    case JSON_OBJECT:
      try checkDepth(depth, maxDepth)
      var members: [JSONObject.Member] = []
      members.reserveCapacity(json_object_size(v))
      var iter = json_object_iter(v)
      while let it = iter {
        let key = readString(json_object_iter_key(it), json_object_iter_key_len(it))
        let value = try convert(json_object_iter_value(it)!, depth: depth + 1, maxDepth: maxDepth)
        members.append(JSONObject.Member(key, value))
        iter = json_object_iter_next(v, it)
      }
      return .object(JSONObject(members))
    default:
      return .null
    }
  }

  private static func checkDepth(_ depth: Int, _ maxDepth: Int) throws {
    if depth >= maxDepth {
      throw JSONParseError(
        kind: .tooDeep, message: "nesting deeper than \(maxDepth) levels", line: -1, column: -1, position: -1)
    }
  }

  @inline(__always)
  private static func readString(_ p: UnsafePointer<CChar>?, _ n: Int) -> String {
    guard let p else { return "" }
    return p.withMemoryRebound(to: UInt8.self, capacity: n) {
      String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self)
    }
  }
}
