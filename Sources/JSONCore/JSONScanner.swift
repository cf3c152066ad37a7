#if canImport(Glibc)
  import Glibc
#endif

/// Finds where values begin and end in JSON text without parsing them: it follows only
/// strings (with their escapes) and brackets. It validates nothing else (numbers, literals,
/// escapes and UTF-8 are jansson's job), so what it finds is a guess that jansson then
/// confirms: a streamed array's elements are parsed by jansson one by one, and any
/// disagreement is a syntax error that jansson reports at its own position.
struct JSONScanner {
  let bytes: UnsafeRawBufferPointer

  /// jansson's whitespace between tokens.
  @inline(__always)
  static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

  func skipWhitespace(_ from: Int) -> Int {
    var i = from
    while i < bytes.count && Self.isWhitespace(bytes[i]) { i += 1 }
    return i
  }

  /// Just past the string whose opening quote is at `i`; nil when the text ends inside it.
  /// A backslash escapes the byte after it (as in jansson's lexer, which checks the rest).
  /// A byte loop: the strings of a request are short, shorter than a `memchr` call is worth.
  func stringEnd(_ i: Int) -> Int? {
    var j = i + 1
    let n = bytes.count
    while j < n {
      let c = bytes[j]
      if c == 0x22 { return j + 1 }
      j += c == 0x5C ? 2 : 1
    }
    return nil
  }

  /// Just past the value starting at `i` (not whitespace), and for an array the number of
  /// its elements as separators count them; nil when the text ends inside the value.
  func valueEnd(_ i: Int) -> (end: Int, elements: Int)? {
    guard i < bytes.count else { return nil }
    switch bytes[i] {
    case 0x22: return stringEnd(i).map { ($0, 0) }
    case 0x5B, 0x7B: break  // [ {
    default:
      var j = i
      while j < bytes.count && !Self.endsScalar(bytes[j]) { j += 1 }
      return (j, 0)
    }
    var depth = 0
    var commas = 0
    var sawElement = false
    var j = i
    while j < bytes.count {
      let c = bytes[j]
      switch c {
      case 0x22:
        guard let end = stringEnd(j) else { return nil }
        if depth == 1 { sawElement = true }
        j = end
        continue
      case 0x5B, 0x7B:
        if depth == 1 { sawElement = true }
        depth += 1
      case 0x5D, 0x7D:
        depth -= 1
        if depth == 0 { return (j + 1, bytes[i] == 0x5B && sawElement ? commas + 1 : 0) }
      case 0x2C:
        if depth == 1 { commas += 1 }
      default:
        if depth == 1 && !Self.isWhitespace(c) { sawElement = true }
      }
      j += 1
    }
    return nil
  }

  @inline(__always)
  private static func endsScalar(_ c: UInt8) -> Bool {
    isWhitespace(c) || c == 0x2C || c == 0x5D || c == 0x7D || c == 0x5B || c == 0x7B || c == 0x22 || c == 0x3A
  }

  /// What a member visitor tells `members`: go on after the value (which ends at the
  /// index given), stop here, or give up (the value's end cannot be found).
  enum Step {
    case next(Int)
    case stop
    case malformed
  }

  /// Calls `body` with each member of the object whose `{` is at `i`: the key's raw bytes
  /// (between the quotes, escapes left as written) and where its value starts. Returns
  /// false when the text is not an object of that shape as far as the scanner can tell.
  func members(ofObjectAt i: Int, _ body: (_ key: UnsafeRawBufferPointer, _ valueStart: Int) -> Step) -> Bool {
    guard i < bytes.count, bytes[i] == 0x7B else { return false }
    var j = skipWhitespace(i + 1)
    if j < bytes.count && bytes[j] == 0x7D { return true }
    while j < bytes.count {
      guard bytes[j] == 0x22, let keyEnd = stringEnd(j) else { return false }
      let key = UnsafeRawBufferPointer(rebasing: bytes[(j + 1)..<(keyEnd - 1)])
      j = skipWhitespace(keyEnd)
      guard j < bytes.count, bytes[j] == 0x3A else { return false }
      let valueStart = skipWhitespace(j + 1)
      switch body(key, valueStart) {
      case .stop: return true
      case .malformed: return false
      case .next(let valueEnd): j = skipWhitespace(valueEnd)
      }
      guard j < bytes.count else { return false }
      if bytes[j] == 0x7D { return true }
      guard bytes[j] == 0x2C else { return false }
      j = skipWhitespace(j + 1)
    }
    return false
  }

  /// The step past the value starting at `start`.
  private func skip(_ start: Int) -> Step { valueEnd(start).map { .next($0.end) } ?? .malformed }

  /// Where the value of the root object's member `key` (written without escapes) starts.
  func rootMember(_ key: String) -> Int? {
    var found: Int?
    _ = members(ofObjectAt: skipWhitespace(0)) { k, start in
      guard Self.equals(k, key) else { return skip(start) }
      found = start
      return .stop
    }
    return found
  }

  /// The value of the root object's member `key` when it is a string written without
  /// escapes (how a request names its method).
  func rootString(_ key: String) -> String? {
    guard let start = rootMember(key), start < bytes.count, bytes[start] == 0x22, let end = stringEnd(start) else { return nil }
    let raw = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(end - 1)])
    return raw.contains(0x5C) ? nil : String(decoding: raw, as: UTF8.self)
  }

  /// Where the array at `path` (member names from the root object, first occurrence of
  /// each) starts: its `[`. Nil when there is no array there, as far as the scanner can tell.
  func arrayStart(at path: [String]) -> Int? {
    var at = skipWhitespace(0)
    for name in path {
      var next: Int?
      guard
        members(
          ofObjectAt: at,
          { k, start in
            guard Self.equals(k, name) else { return skip(start) }
            next = start
            return .stop
          }), let start = next, start < bytes.count
      else { return nil }
      at = start
    }
    return bytes[at] == 0x5B ? at : nil
  }

  private static func equals(_ raw: UnsafeRawBufferPointer, _ s: String) -> Bool {
    var s = s
    return s.withUTF8 { s in raw.count == s.count && (s.isEmpty || memcmp(raw.baseAddress!, s.baseAddress!, s.count) == 0) }
  }
}

extension JSONParser {
  /// The root object's member `key` when it is a string written without escapes, found
  /// without parsing (how the server learns a request's method before choosing how to
  /// parse it); nil otherwise.
  public static func rootString(_ bytes: [UInt8], _ key: String) -> String? {
    bytes.withUnsafeBytes { JSONScanner(bytes: $0).rootString(key) }
  }

  /// True when the text is, as far as a scan without parsing tells, an object with a
  /// member `key` written without escapes (an import document's `objects`).
  public static func hasRootMember(_ bytes: UnsafeRawBufferPointer, _ key: String) -> Bool {
    JSONScanner(bytes: bytes).rootMember(key) != nil
  }
}
