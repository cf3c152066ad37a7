import JSONCore

/// CSV as RFC 4180 writes it: fields separated by commas, records by a line break (LF or
/// CRLF); a field holding a comma, a quote or a line break is quoted, with its quotes
/// doubled. An unquoted empty field and a quoted one (`""`) are told apart, as
/// PostgreSQL's `COPY ... CSV` does: the first is no value, the second the empty string.
public enum CSVText {
  public struct Field: Equatable {
    public var text: String
    public var quoted: Bool
  }

  /// One record and the line it starts on (a quoted field may span lines).
  public struct Record {
    public var fields: [Field]
    public var line: Int
  }

  /// Calls `body` with each record of `input` in order. Blank lines are skipped (but
  /// counted); a UTF-8 byte order mark at the start is ignored. Errors name the line and
  /// the column (the field's 1-based position).
  static func forEachRecord(_ input: ImportInput, _ body: (Record) throws -> Void) throws {
    var reader = Reader()
    try input.forEachLine { number, line in
      try reader.feed(number == 1 ? dropBOM(line) : line, number: number, body)
      return true
    }
    try reader.end()
  }

  /// One record as a line (with its `\n`): a nil field is written empty and unquoted.
  public static func line(_ fields: [String?]) -> String {
    var out = ""
    for (i, f) in fields.enumerated() {
      if i > 0 { out += "," }
      guard let f else { continue }
      out += field(f)
    }
    return out + "\n"
  }

  /// A field's text, quoted when it must be (or when it is empty, so it reads back as
  /// the empty string rather than no value).
  public static func field(_ text: String) -> String {
    let needsQuotes = text.isEmpty || text.utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    guard needsQuotes else { return text }
    var out = "\""
    for c in text {
      if c == "\"" { out += "\"\"" } else { out.append(c) }
    }
    return out + "\""
  }

  /// A field for a wire value: nil (written empty) for null or absent, the text of a
  /// string, `true`/`false`, a number as JSON writes it, an array or object as JSON text.
  public static func text(_ value: JSONValue?) -> String? {
    switch value {
    case nil, .null?: return nil
    case .string(let s)?: return s
    case .bool(let b)?: return b ? "true" : "false"
    case .int(let i)?: return String(i)
    case let v?: return JSONWriter.encodeString(v)
    }
  }

  private static func dropBOM(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    line.starts(with: [0xEF, 0xBB, 0xBF]) ? line.dropFirst(3) : line
  }

  static func error(_ line: Int, _ column: Int, _ message: String) -> StoreError {
    StoreError(.invalidArgument, "line \(line), column \(column): \(message)", ["line": .int(Int64(line)), "column": .int(Int64(column))])
  }

  /// The parser's state between lines: the record so far, and whether a quoted field is open.
  private struct Reader {
    var fields: [Field] = []
    var current: [UInt8] = []
    var quoted = false
    var inQuotes = false
    /// A quoted field was closed: only a comma or the end of the line may follow.
    var closed = false
    var start = 0
    var line = 0

    mutating func feed(_ bytes: ArraySlice<UInt8>, number: Int, _ body: (Record) throws -> Void) throws {
      line = number
      if !inQuotes {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        start = number
      } else {
        current.append(0x0A)  // the line break inside the quoted field
      }
      var i = bytes.startIndex
      while i < bytes.endIndex {
        let b = bytes[i]
        if inQuotes {
          if b == 0x22 {
            if i + 1 < bytes.endIndex && bytes[i + 1] == 0x22 {
              current.append(0x22)
              i += 1
            } else {
              inQuotes = false
              closed = true
            }
          } else {
            current.append(b)
          }
        } else if b == 0x2C {
          try endField()
        } else if closed {
          throw CSVText.error(line, fields.count + 1, "unexpected text after the closing quote of a quoted field")
        } else if b == 0x22 {
          guard current.isEmpty else {
            throw CSVText.error(line, fields.count + 1, "a quote inside an unquoted field (quote the whole field and double the quote)")
          }
          inQuotes = true
          quoted = true
        } else {
          current.append(b)
        }
        i += 1
      }
      if inQuotes { return }
      try endField()
      let record = Record(fields: fields, line: start)
      fields = []
      try body(record)
    }

    mutating func endField() throws {
      guard let text = String(validating: current, as: UTF8.self) else {
        throw CSVText.error(line, fields.count + 1, "the field is not valid UTF-8")
      }
      fields.append(Field(text: text, quoted: quoted))
      current.removeAll(keepingCapacity: true)
      quoted = false
      closed = false
    }

    func end() throws {
      if inQuotes { throw CSVText.error(start, fields.count + 1, "a quoted field is not closed before the end of the input") }
    }
  }
}
