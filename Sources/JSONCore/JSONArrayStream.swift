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
  /// one in what was not read.
  public static func parse(_ bytes: [UInt8], streaming path: [String], maxDepth: Int = defaultMaxDepth) throws -> StreamedJSON? {
    let found: (open: Int, close: Int?, elements: Int)? = try bytes.withUnsafeBytes { raw in
      try refuseRawNUL(raw)
      return JSONScanner(bytes: raw).array(at: path)
    }
    guard let found else { return nil }
    let reader = JSONElementReader(bytes, open: found.open, close: found.close, baseDepth: path.count + 1, maxDepth: maxDepth)
    guard let close = found.close else {
      // The array never closes: the text is cut short or broken; find where.
      guard let e = reader.errorOfUnclosedText() else { return nil }
      throw e
    }
    let stream = JSONArrayStream(reader, expectedCount: found.elements, textBytes: close - found.open)
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
      if let first = reader.firstErrors().syntax { throw first }
      if e.position >= 0 { e.relocate(in: bytes, to: e.position + (close - found.open - 1)) }
      throw e
    }
  }
}

/// The elements of one array of a JSON text, parsed by jansson one at a time as they are
/// read, with errors in the whole text's coordinates (`JSONElementReader`). A large array
/// is parsed ahead on another thread (`JSONParseAhead`).
public final class JSONArrayStream {
  private let reader: JSONElementReader
  /// The number of elements as the scanner counted them (exact for valid JSON).
  public let expectedCount: Int
  private let textBytes: Int
  private var ahead: JSONParseAhead?
  private var started = false
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

  init(_ reader: JSONElementReader, expectedCount: Int, textBytes: Int) {
    self.reader = reader
    self.expectedCount = expectedCount
    self.textBytes = textBytes
  }

  deinit { ahead?.cancel() }

  /// A stream of the same elements from the first (an import reads its records twice).
  public func rereading() -> JSONArrayStream {
    JSONArrayStream(reader.rewound(), expectedCount: expectedCount, textBytes: textBytes)
  }

  /// The next element, or nil after the last. Throws `JSONParseError` where the text is
  /// not JSON or nests too deep (and the same error on every later call).
  public func next() throws -> JSONValue? {
    if let e = syntaxError ?? depthError { throw e }
    if !started {
      started = true
      if textBytes >= Self.parseAheadMinimumBytes && Self.processors > 1 { ahead = JSONParseAhead(reader) }
    }
    switch ahead.map({ $0.take() ?? .end }) ?? reader.step(convert: true) {
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
    if let e = syntaxError { return e }
    if let ahead {
      ahead.checkOnly()
      drain: while let step = ahead.take() {
        switch step {
        case .element: continue
        case .end: break drain
        case .syntax(let e):
          syntaxError = e
          return e
        case .tooDeep(let e): depthError = depthError ?? e
        }
      }
    } else {
      let rest = reader.firstErrors()
      if let e = rest.syntax {
        syntaxError = e
        return e
      }
      depthError = depthError ?? rest.tooDeep
    }
    return depthError
  }
}
