/// The elements of an array, read one at a time: from a parsed array, or parsed from the
/// text as they are reached (`JSONArrayStream`). Consumers of a large array param read it
/// through this, whichever way the message was parsed.
public struct JSONElements {
  private let array: [JSONValue]
  private let stream: JSONArrayStream?
  private var position = 0

  public init(_ array: [JSONValue]) {
    self.array = array
    stream = nil
  }

  public init(_ stream: JSONArrayStream) {
    array = []
    self.stream = stream
  }

  /// The next element, or nil after the last; a streamed element that is not valid JSON
  /// throws `JSONParseError`.
  public mutating func next() throws -> JSONValue? {
    if let stream { return try stream.next() }
    guard position < array.count else { return nil }
    position += 1
    return array[position - 1]
  }

  /// For a stream, the error its whole text has, reading what was not read
  /// (`JSONArrayStream.finish`); nil for a parsed array.
  public func finish() -> JSONParseError? { stream?.finish() }

  /// The same elements again from the first (a request run again): a parsed array from
  /// its start; a stream is first read to its end, so that its whole text is known good
  /// (as a consumer of a streamed param must read it), then read again from the text
  /// (`JSONArrayStream.rereading`). Throws the error the rest of the text has.
  public func rewound() throws -> JSONElements {
    guard let stream else { return JSONElements(array) }
    while try stream.next() != nil {}
    return JSONElements(stream.rereading())
  }
}
