#if canImport(Glibc)
  import Glibc
#endif

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
  /// one in what was not read. A large array's elements are parsed ahead on another thread
  /// from the moment its `[` is found, while this one scans for its end.
  public static func parse(_ bytes: [UInt8], streaming path: [String], maxDepth: Int = defaultMaxDepth) throws -> StreamedJSON? {
    let open: Int? = try bytes.withUnsafeBytes { raw in
      try refuseRawNUL(raw)
      return JSONScanner(bytes: raw).arrayStart(at: path)
    }
    guard let open else { return nil }
    let reader = JSONElementReader(bytes, open: open, baseDepth: path.count + 1, maxDepth: maxDepth)
    // A large array is parsed ahead from now on, while the scan for its end runs here.
    let ahead = JSONArrayStream.parseAhead(reader, bytes: bytes.count - open)
    let end = bytes.withUnsafeBytes { JSONScanner(bytes: $0).valueEnd(open) }
    let stream = JSONArrayStream(reader, close: end.map { $0.end - 1 }, expectedCount: end?.elements ?? 0, ahead: ahead)
    guard let close = stream.close else {
      // The array never closes: the text is cut short or broken; find where.
      if let e = reader.prefixError() { throw e }
      guard let e = stream.firstSyntaxError() else { return nil }
      throw e
    }
    var skeletonBytes: [UInt8] = []
    skeletonBytes.reserveCapacity(bytes.count - (close - open - 1))
    skeletonBytes.append(contentsOf: bytes[...open])
    skeletonBytes.append(contentsOf: bytes[close...])
    do {
      return StreamedJSON(skeleton: try parse(skeletonBytes, maxDepth: maxDepth), elements: stream)
    } catch var e as JSONParseError {
      if e.position >= 0 && e.position <= open + 1 { throw e }  // before the array: the same bytes
      // After the array (or the nesting limit, which a syntax error anywhere overrides):
      // an error among the elements comes first.
      if let first = stream.firstSyntaxError() { throw first }
      if e.position >= 0 { e.relocate(in: bytes, to: e.position + (close - open - 1)) }
      throw e
    }
  }
}

/// The elements of one array of a JSON text, parsed by jansson one at a time as they are
/// read, with errors in the whole text's coordinates (`JSONElementReader`). A large array
/// is parsed ahead on another thread (`JSONParseAhead`).
public final class JSONArrayStream {
  private let reader: JSONElementReader
  /// Where the scanner found the closing `]`: the reader must end there (nil: the text
  /// ends inside the array, so any end the reader finds is a disagreement).
  let close: Int?
  /// The number of elements as the scanner counted them (exact for valid JSON).
  public let expectedCount: Int
  private var ahead: JSONParseAhead?
  /// True once the closing `]` was read.
  public private(set) var isAtEnd = false
  /// The first error that makes the text not JSON: it wins over everything, as when a
  /// message is parsed whole.
  private var syntaxError: JSONParseError?
  /// The first element nesting deeper than the limit (checked after parsing).
  private var depthError: JSONParseError?

  /// Arrays of fewer bytes are parsed on the reading thread: a thread costs more than it saves.
  nonisolated(unsafe) static var parseAheadMinimumBytes = 1 << 16
  private static let processors = sysconf(Int32(_SC_NPROCESSORS_ONLN))

  /// `ahead`: the thread parsing `reader`'s elements (then `reader` is that thread's).
  init(_ reader: JSONElementReader, close: Int?, expectedCount: Int, ahead: JSONParseAhead?) {
    self.reader = reader
    self.close = close
    self.expectedCount = expectedCount
    self.ahead = ahead
  }

  deinit { ahead?.cancel() }

  /// A thread parsing `reader`'s elements ahead, for an array of `bytes` or more.
  static func parseAhead(_ reader: JSONElementReader, bytes: Int) -> JSONParseAhead? {
    bytes >= parseAheadMinimumBytes && processors > 1 ? JSONParseAhead(reader) : nil
  }

  /// A stream of the same elements from the first (an import reads its records twice).
  public func rereading() -> JSONArrayStream {
    let again = reader.rewound()
    let bytes = (close ?? reader.bytes.count) - reader.open
    return JSONArrayStream(again, close: close, expectedCount: expectedCount, ahead: Self.parseAhead(again, bytes: bytes))
  }

  /// The next step, from the thread parsing ahead or read here; an end elsewhere than the
  /// scanner found is the whole text's error.
  private func step(convert: Bool) -> JSONElementReader.Step {
    let step = ahead.map { $0.take() ?? .end(at: close ?? -1) } ?? reader.step(convert: convert)
    if case .end(let q) = step, q != close { return .syntax(reader.canonicalError(near: q)) }
    return step
  }

  /// The next element, or nil after the last. Throws `JSONParseError` where the text is
  /// not JSON or nests too deep (and the same error on every later call).
  public func next() throws -> JSONValue? {
    if let e = syntaxError ?? depthError { throw e }
    switch step(convert: true) {
    case .element(let value):
      return value
    case .end:
      isAtEnd = true
      return nil
    case .syntax(let e):
      syntaxError = e
      throw e
    case .tooDeep(let e):
      depthError = e
      throw e
    }
  }

  /// Reads what was not read yet (after the consumer stopped, or failed) and returns the
  /// error the whole text has, as a whole parse would report it first: a syntax error
  /// anywhere, else an element nesting deeper than the limit; nil when the text is valid.
  public func finish() -> JSONParseError? {
    if let e = firstSyntaxError() { return e }
    return depthError
  }

  /// The first syntax error in what was not read yet (noting the first element nesting
  /// past the limit on the way).
  func firstSyntaxError() -> JSONParseError? {
    if let e = syntaxError { return e }
    ahead?.checkOnly()
    while !isAtEnd {
      switch step(convert: false) {
      case .element: continue
      case .end: isAtEnd = true
      case .syntax(let e):
        syntaxError = e
        return e
      case .tooDeep(let e): depthError = depthError ?? e
      }
    }
    return nil
  }
}
