// The jansson calls follow JSONParser.swift's ownership rules: each element is loaded
// inside `JanssonArena.withArena` and converted before it returns (decref'd there only
// when the tree was made with malloc).
import CJansson

/// Reads the elements of one array of a JSON text one at a time, each parsed by jansson
/// (`JSON_DISABLE_EOF_CHECK` stops after one value and says where it ended); the
/// separators between them are checked here. Errors carry the positions of the whole text
/// and are those a parse of the whole text reports. Used by one thread at a time.
final class JSONElementReader {
  /// What one step read.
  enum Step {
    case element(JSONValue)
    /// The closing `]`, at this byte (the reader's owner checks it is the one the scanner found).
    case end(at: Int)
    /// The text is not JSON here (or nests past jansson's own limit): it fails here.
    case syntax(JSONParseError)
    /// The element nests deeper than `maxDepth`, a limit checked after parsing: a syntax
    /// error later in the text still comes first.
    case tooDeep(JSONParseError)
  }

  let bytes: [UInt8]
  /// Where the array's `[` is.
  let open: Int
  /// Arrays and objects around an element (the root object, each member on the path, the array).
  private let baseDepth: Int
  private let maxDepth: Int
  /// The next byte to read: after `[`, or after the last element read.
  private var cursor: Int
  private var state = State.first
  /// Where the element last read started (for replaying it inside its enclosing levels).
  private var elementStart = 0

  private enum State { case first, separator, done }

  /// jansson's own limit (JSON_PARSER_MAX_DEPTH): a value nested deeper is a parse error.
  static let janssonMaxDepth = 2048

  init(_ bytes: [UInt8], open: Int, baseDepth: Int, maxDepth: Int) {
    self.bytes = bytes
    self.open = open
    self.baseDepth = baseDepth
    self.maxDepth = maxDepth
    cursor = open + 1
  }

  var isAtEnd: Bool { state == .done }

  /// A reader of the same array from its start.
  func rewound() -> JSONElementReader { JSONElementReader(bytes, open: open, baseDepth: baseDepth, maxDepth: maxDepth) }

  /// The next element, converted (or, with `convert` false, only checked: `.element(.null)`).
  func step(convert: Bool) -> Step {
    do {
      return try JanssonArena.withArena { inArena -> Step in
        guard let root = try readElement() else { return .end(at: cursor - 1) }
        defer { if !inArena { json_decref(root) } }
        // Only an element past `maxDepth` can pass jansson's own limit, unless `maxDepth`
        // is above it: the walk that checks runs for those alone.
        if maxDepth >= Self.janssonMaxDepth { try checkJanssonDepth(root) }
        guard convert else {
          guard Self.nesting(root, countingScalars: false) + baseDepth > maxDepth else { return .element(.null) }
          try checkJanssonDepth(root)
          return .tooDeep(tooDeepError)
        }
        do {
          return .element(try JSONParser.convert(root, depth: baseDepth, maxDepth: maxDepth))
        } catch let e as JSONParseError where e.kind == .tooDeep {
          try checkJanssonDepth(root)
          return .tooDeep(e)
        }
      }
    } catch {
      return .syntax(error as! JSONParseError)
    }
  }

  /// The error `convert` throws past `maxDepth`.
  private var tooDeepError: JSONParseError {
    JSONParseError(kind: .tooDeep, message: "nesting deeper than \(maxDepth) levels", line: -1, column: -1, position: -1)
  }

  /// The error of the text up to the array's `[`, if it has one before (jansson running out
  /// of text exactly after the `[` is not one). Reads only the bytes: safe on any thread.
  func prefixError() -> JSONParseError? {
    let failure: JSONParseError? = bytes.withUnsafeBytes { raw in
      JanssonArena.withArena { inArena in
        do {
          let (root, _) = try JSONParser.load(UnsafeRawBufferPointer(rebasing: raw[...open]))
          if !inArena { json_decref(root) }
          return nil
        } catch {
          return error as? JSONParseError
        }
      }
    }
    guard let e = failure, !(e.atEndOfInput && e.position == open + 1) else { return nil }
    return e
  }

  // MARK: - Reading

  /// The next element's jansson tree (in the caller's arena), or nil after the closing `]`.
  private func readElement() throws -> UnsafeMutablePointer<json_t>? {
    switch state {
    case .done: return nil
    case .first:
      let q = skipWhitespace(cursor)
      if q < bytes.count && bytes[q] == 0x5D { return end(at: q) }
    case .separator:
      let q = skipWhitespace(cursor)
      guard q < bytes.count, bytes[q] == 0x2C || bytes[q] == 0x5D else {
        // jansson, after an element, wants `,` or `]`: replay that state for its message.
        throw replayedError(prefix: "[[]", from: cursor)
      }
      if bytes[q] == 0x5D { return end(at: q) }
      cursor = q + 1
    }
    let start = cursor
    elementStart = start
    guard skipWhitespace(start) < bytes.count else {
      // The text ends where an element should be: jansson's array parser says so itself.
      throw replayedError(prefix: "[", from: start)
    }
    let loaded: (root: UnsafeMutablePointer<json_t>, consumed: Int)
    do {
      loaded = try bytes.withUnsafeBytes { raw in
        try JSONParser.load(UnsafeRawBufferPointer(rebasing: raw[start...]), extraFlags: Int32(JSON_DISABLE_EOF_CHECK))
      }
    } catch var e as JSONParseError {
      // Past jansson's own depth limit within the element alone: inside the whole text the
      // limit is reached sooner, where the replay puts it.
      if e.kind == .tooDeep { throw replayedError(prefix: String(repeating: "[", count: baseDepth), from: start) }
      e.relocate(in: bytes, to: start + e.position)
      throw e
    }
    cursor = start + loaded.consumed
    state = .separator
    return loaded.root
  }

  private func end(at q: Int) -> UnsafeMutablePointer<json_t>? {
    state = .done
    cursor = q + 1
    return nil
  }

  private func skipWhitespace(_ from: Int) -> Int {
    var i = from
    while i < bytes.count && JSONScanner.isWhitespace(bytes[i]) { i += 1 }
    return i
  }

  // MARK: - Depth

  /// An element whose nesting passes jansson's own limit inside the whole text fails the
  /// whole parse at that point: the error is replayed with the element inside as many
  /// arrays as enclose it, so that jansson reports it with its own message and position.
  private func checkJanssonDepth(_ root: UnsafeMutablePointer<json_t>) throws {
    guard Self.nesting(root, countingScalars: true) + baseDepth > Self.janssonMaxDepth else { return }
    throw replayedError(prefix: String(repeating: "[", count: baseDepth), from: elementStart)
  }

  /// Levels of nesting of a value. jansson counts every value (a scalar is 1, an array of
  /// scalars 2); `convert`'s limit counts arrays and objects only (a scalar is 0).
  static func nesting(_ v: UnsafeMutablePointer<json_t>, countingScalars: Bool) -> Int {
    var deepest = 0
    switch cj_typeof(v) {
    case JSON_ARRAY:
      for i in 0..<json_array_size(v) { deepest = max(deepest, nesting(json_array_get(v, i)!, countingScalars: countingScalars)) }
    case JSON_OBJECT:
      var iter = json_object_iter(v)
      while let it = iter {
        deepest = max(deepest, nesting(json_object_iter_value(it)!, countingScalars: countingScalars))
        iter = json_object_iter_next(v, it)
      }
    default: return countingScalars ? 1 : 0
    }
    return deepest + 1
  }

  // MARK: - Errors in the whole text's coordinates

  /// jansson's error for the text from `q` on, parsed after `prefix` (which puts its parser
  /// in the state it is in at `q` in the whole text); the text is copied (errors only).
  private func replayedError(prefix: String, from q: Int) -> JSONParseError {
    var buffer = Array(prefix.utf8)
    buffer.append(contentsOf: bytes[q...])
    let failure: JSONParseError? = buffer.withUnsafeBytes { raw in
      JanssonArena.withArena { inArena in
        do {
          let (root, _) = try JSONParser.load(raw)
          if !inArena { json_decref(root) }
          return nil
        } catch {
          return error as? JSONParseError
        }
      }
    }
    guard var e = failure, e.position >= prefix.utf8.count else { return canonicalError(near: q) }
    e.relocate(in: bytes, to: q + e.position - prefix.utf8.count)
    return e
  }

  /// The whole text's error from a whole parse: the fallback where the scanner and jansson
  /// disagree (the array ends elsewhere than the scanner found), which valid JSON never
  /// makes them do.
  func canonicalError(near q: Int) -> JSONParseError {
    do {
      _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
    } catch let e as JSONParseError {
      return e
    } catch {}
    var e = JSONParseError(kind: .syntax, message: "unexpected text", line: 0, column: 0, position: q)
    e.relocate(in: bytes, to: q)
    return e
  }
}

extension JSONParseError {
  /// Moves the error to byte `position` of `text`, with jansson's line and column there:
  /// lines counted from 1 by `\n`, columns counted from 0 in characters (bytes that do not
  /// continue a UTF-8 sequence), so that they equal what a parse of the whole text reports.
  mutating func relocate(in text: [UInt8], to position: Int) {
    self.position = position
    var line = 1
    var lineStart = 0
    var column = 0
    text.withUnsafeBytes { raw in
      let end = min(position, raw.count)
      for i in 0..<end where raw[i] == 0x0A {
        line += 1
        lineStart = i + 1
      }
      for i in lineStart..<max(lineStart, end) {
        let c = raw[i]
        if c < 0x80 || (0xC2...0xF4).contains(c) { column += 1 }
      }
    }
    self.line = line
    self.column = column
  }
}
