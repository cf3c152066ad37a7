// The jansson calls follow JSONParser.swift's ownership rules: each element is loaded
// inside `JanssonArena.withArena` and converted before it returns (decref'd there only
// when the tree was made with malloc).
import CJansson

/// A JSON text parsed with one array left out of the tree: `skeleton` is the text parsed
/// with that array empty (`[]`), and `elements` parses the array's elements one at a time,
/// when they are read. A large `context.save` is read this way: jansson's tree of a whole
/// 14 MB message takes about 200 MB, one element's a few hundred bytes.
public struct StreamedJSON {
  public let skeleton: JSONValue
  public let elements: JSONArrayStream
}

extension JSONParser {
  /// Parses `bytes` leaving out of the tree the array at `path` (member names from the root
  /// object). Nil when the scanner finds no array there: parse the text whole then.
  ///
  /// Errors are the whole text's, exactly as `parse(_:maxDepth:)` reports them (kind,
  /// message, line, column, byte): an error outside the array is thrown here (after any
  /// error earlier in the text, inside the array, which comes first); an error inside the
  /// array is thrown when reading reaches it, and `JSONArrayStream.finish` finds the first
  /// one in what was not read.
  public static func parse(_ bytes: [UInt8], streaming path: [String], maxDepth: Int = defaultMaxDepth) throws -> StreamedJSON? {
    let found: (open: Int, close: Int?, elements: Int)? = try bytes.withUnsafeBytes { raw in
      try refuseRawNUL(raw)
      return JSONScanner(bytes: raw).array(at: path)
    }
    guard let found else { return nil }
    let stream = JSONArrayStream(
      bytes, open: found.open, close: found.close, expectedCount: found.elements, baseDepth: path.count + 1, maxDepth: maxDepth)
    guard let close = found.close else {
      // The array never closes: the text is cut short or broken; find where.
      guard let e = stream.errorOfUnclosedText() else { return nil }
      throw e
    }
    var skeletonBytes: [UInt8] = []
    skeletonBytes.reserveCapacity(bytes.count - (close - found.open - 1))
    skeletonBytes.append(contentsOf: bytes[...found.open])
    skeletonBytes.append(contentsOf: bytes[close...])
    do {
      return StreamedJSON(skeleton: try parse(skeletonBytes, maxDepth: maxDepth), elements: stream)
    } catch var e as JSONParseError {
      if e.position >= 0 && e.position <= found.open + 1 { throw e }  // before the array: the same bytes
      // After the array (or the nesting limit, which a syntax error anywhere overrides):
      // an error among the elements comes first.
      if let first = stream.firstSyntaxError() { throw first }
      if e.position >= 0 { e.relocate(in: bytes, to: e.position + (close - found.open - 1)) }
      throw e
    }
  }
}

/// The elements of one array of a JSON text, parsed by jansson one at a time as they are
/// read (`JSON_DISABLE_EOF_CHECK` stops after one value and says where it ended); the
/// separators between them are checked here. Errors carry the positions of the whole text.
public final class JSONArrayStream {
  private let bytes: [UInt8]
  private let open: Int
  /// Where the scanner found the closing `]`; nil when the text ends inside the array.
  private let close: Int?
  /// The number of elements as the scanner counted them (exact for valid JSON).
  public let expectedCount: Int
  /// Arrays and objects around an element (the root object, each member on the path, the array).
  private let baseDepth: Int
  private let maxDepth: Int
  /// The next byte to read: after `[`, or after the last element read.
  private var cursor: Int
  private var state = State.first
  /// How many elements were read.
  public private(set) var index = 0
  /// The first error that makes the text not JSON (jansson refuses it; its nesting passes
  /// jansson's own limit): it wins over everything, as when a message is parsed whole.
  private var syntaxError: JSONParseError?
  /// The first element nesting deeper than `maxDepth` (a limit checked after parsing).
  private var depthError: JSONParseError?

  private enum State { case first, separator, done }

  /// jansson's own limit (JSON_PARSER_MAX_DEPTH): a value nested deeper is a parse error.
  static let janssonMaxDepth = 2048

  init(_ bytes: [UInt8], open: Int, close: Int?, expectedCount: Int, baseDepth: Int, maxDepth: Int) {
    self.bytes = bytes
    self.open = open
    self.close = close
    self.expectedCount = expectedCount
    self.baseDepth = baseDepth
    self.maxDepth = maxDepth
    cursor = open + 1
  }

  /// The next element, or nil after the last. Throws `JSONParseError` where the text is
  /// not JSON or nests too deep (and the same error on every later call).
  public func next() throws -> JSONValue? {
    if let e = syntaxError ?? depthError { throw e }
    do {
      return try JanssonArena.withArena { inArena -> JSONValue? in
        guard let root = try readElement() else { return nil }
        defer { if !inArena { json_decref(root) } }
        if maxDepth >= Self.janssonMaxDepth { try checkJanssonDepth(root) }
        do {
          let value = try JSONParser.convert(root, depth: baseDepth, maxDepth: maxDepth)
          index += 1
          return value
        } catch let e as JSONParseError where e.kind == .tooDeep {
          try checkJanssonDepth(root)
          depthError = e
          throw e
        }
      }
    } catch let e as JSONParseError {
      if depthError == nil { syntaxError = e }
      throw e
    }
  }

  /// Reads what was not read yet (after the consumer stopped, or failed) and returns the
  /// error the whole text has, as a whole parse would report it first: a syntax error
  /// anywhere, else an element nesting deeper than the limit; nil when the text is valid.
  public func finish() -> JSONParseError? {
    if let e = syntaxError { return e }
    if let e = firstSyntaxError() { return e }
    return depthError
  }

  /// The first syntax error in the elements not read yet (noting the first one nesting
  /// past `maxDepth` on the way).
  func firstSyntaxError() -> JSONParseError? {
    if let e = syntaxError { return e }
    while state != .done {
      do {
        try JanssonArena.withArena { inArena in
          guard let root = try readElement() else { return }
          defer { if !inArena { json_decref(root) } }
          index += 1
          try checkJanssonDepth(root)
          if depthError == nil && Self.nesting(root, countingScalars: false) + baseDepth > maxDepth {
            depthError = JSONParseError(
              kind: .tooDeep, message: "nesting deeper than \(maxDepth) levels", line: -1, column: -1, position: -1)
          }
        }
      } catch let e as JSONParseError {
        syntaxError = e
        return e
      } catch {
        return nil
      }
    }
    return nil
  }

  /// For a text whose array never closes: its first error (before the array, or in it).
  func errorOfUnclosedText() -> JSONParseError? {
    let prefixError: JSONParseError? = bytes.withUnsafeBytes { raw in
      JanssonArena.withArena { inArena in
        do {
          let (root, _) = try JSONParser.load(UnsafeRawBufferPointer(rebasing: raw[...open]))
          if !inArena { json_decref(root) }
          return nil
        } catch let e as JSONParseError {
          return e
        } catch {
          return nil
        }
      }
    }
    // The text up to the `[` is fine when jansson ran out of it exactly there.
    if let e = prefixError, !(e.atEndOfInput && e.position == open + 1) { return e }
    return firstSyntaxError()
  }

  // MARK: - Reading

  /// The next element's jansson tree (in the caller's arena), or nil after the closing `]`.
  private func readElement() throws -> UnsafeMutablePointer<json_t>? {
    switch state {
    case .done: return nil
    case .first:
      let q = skipWhitespace(cursor)
      if q < bytes.count && bytes[q] == 0x5D { return try end(at: q) }
    case .separator:
      let q = skipWhitespace(cursor)
      guard q < bytes.count, bytes[q] == 0x2C || bytes[q] == 0x5D else {
        // jansson, after an element, wants `,` or `]`: replay that state for its message.
        throw replayedError(prefix: "[[]", from: cursor)
      }
      if bytes[q] == 0x5D { return try end(at: q) }
      cursor = q + 1
    }
    let start = cursor
    guard skipWhitespace(start) < bytes.count else {
      // The text ends where an element should be: jansson's array parser says so itself.
      throw replayedError(prefix: "[", from: start)
    }
    let flags = Int32(JSON_DISABLE_EOF_CHECK)
    let loaded: (root: UnsafeMutablePointer<json_t>, consumed: Int)
    do {
      loaded = try bytes.withUnsafeBytes { raw in try JSONParser.load(UnsafeRawBufferPointer(rebasing: raw[start...]), extraFlags: flags) }
    } catch var e as JSONParseError {
      elementStart = start
      // Past jansson's own depth limit within the element alone: inside the whole text the
      // limit is reached sooner, where the replay puts it.
      if e.kind == .tooDeep { throw replayedError(prefix: String(repeating: "[", count: baseDepth), from: start) }
      e.relocate(in: bytes, to: start + e.position)
      throw e
    }
    cursor = start + loaded.consumed
    elementStart = start
    state = .separator
    return loaded.root
  }

  /// Where the element last read started (for replaying it inside its enclosing levels).
  private var elementStart = 0

  private func end(at q: Int) throws -> UnsafeMutablePointer<json_t>? {
    state = .done
    cursor = q + 1
    // jansson and the scanner agree on valid text; a disagreement is reported by the
    // whole-text parse, which is then the only authority.
    if q != close { throw canonicalError(near: q) }
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
  /// disagree, which valid JSON never makes them do.
  private func canonicalError(near q: Int) -> JSONParseError {
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
