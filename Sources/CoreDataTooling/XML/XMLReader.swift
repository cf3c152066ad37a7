/// A small, strict reader of XML 1.0 documents into an `XMLElement` tree (no Foundation on
/// Linux, and the model files are small). It handles the XML declaration and processing
/// instructions, comments, `<!DOCTYPE ...>` (skipped, internal subset included), CDATA
/// sections, the five predefined entities and character references (`&#38;`, `&#x26;`),
/// and attribute-value normalization. Namespaces are not interpreted: a prefixed name is
/// kept as written. Every error carries the line and column where reading stopped.
public struct XMLReader {
  /// Deepest element nesting accepted; model files nest about five levels.
  public static let maxDepth = 256

  private let b: [UInt8]
  private var i = 0
  private let lineStarts: [Int]

  public static func parse(_ text: String) throws -> XMLElement { try parse(Array(text.utf8)) }

  public static func parse(_ bytes: [UInt8]) throws -> XMLElement {
    var reader = XMLReader(bytes)
    return try reader.document()
  }

  private init(_ bytes: [UInt8]) {
    b = bytes
    var starts = [0]
    for (k, c) in bytes.enumerated() where c == 0x0A { starts.append(k + 1) }
    lineStarts = starts
  }

  // MARK: Positions and errors

  /// 1-based line and column (in characters) of a byte offset.
  func position(_ offset: Int) -> (line: Int, column: Int) {
    var lo = 0
    var hi = lineStarts.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
    }
    var column = 1
    var k = lineStarts[lo]
    while k < min(offset, b.count) {
      if b[k] & 0xC0 != 0x80 { column += 1 }
      k += 1
    }
    return (lo + 1, column)
  }

  func error(_ message: String, at offset: Int? = nil) -> XMLError {
    let p = position(offset ?? i)
    return XMLError(message, line: p.line, column: p.column)
  }

  // MARK: Document structure

  private mutating func document() throws -> XMLElement {
    if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    var sawDoctype = false
    while true {
      skipWhitespace()
      if starts("<?") {
        try processingInstruction()
      } else if starts("<!--") {
        try comment()
      } else if starts("<!DOCTYPE") {
        if sawDoctype { throw error("a second <!DOCTYPE> declaration") }
        sawDoctype = true
        try doctype()
      } else {
        break
      }
    }
    guard i < b.count else { throw error("the document has no root element") }
    guard b[i] == UInt8(ascii: "<") else { throw error("expected the root element, found text") }
    let root = try element()
    while true {
      skipWhitespace()
      if i >= b.count { return root }
      if starts("<?") {
        try processingInstruction()
      } else if starts("<!--") {
        try comment()
      } else {
        throw error("content after the root element <\(root.name)> ended")
      }
    }
  }

  /// Reads one element and everything inside it, without recursion.
  private mutating func element() throws -> XMLElement {
    let (first, firstClosed) = try startTag()
    if firstClosed { return first }
    var stack = [first]
    var texts: [[UInt8]] = [[]]
    while true {
      guard i < b.count else {
        let open = stack[stack.count - 1]
        throw error("the document ends inside <\(open.name)> (opened at \(open.line):\(open.column))")
      }
      let c = b[i]
      if c == UInt8(ascii: "<") {
        if starts("</") {
          let tagStart = i
          i += 2
          guard let name = readName() else { throw error("expected an element name after '</'") }
          skipWhitespace()
          guard i < b.count, b[i] == UInt8(ascii: ">") else { throw error("expected '>' to close the end tag </\(name)") }
          i += 1
          var done = stack.removeLast()
          guard done.name == name else {
            throw error("end tag </\(name)> does not match <\(done.name)> opened at \(done.line):\(done.column)", at: tagStart)
          }
          done.text = Self.string(texts.removeLast())
          if stack.isEmpty { return done }
          stack[stack.count - 1].children.append(done)
        } else if starts("<!--") {
          try comment()
        } else if starts("<![CDATA[") {
          let start = i
          i += 9
          guard let end = find("]]>") else { throw error("CDATA section is not closed", at: start) }
          appendText(b[i..<end], to: &texts[texts.count - 1])
          i = end + 3
        } else if starts("<?") {
          try processingInstruction()
        } else if starts("<!") {
          throw error("markup declarations are not allowed inside an element")
        } else {
          let (child, closed) = try startTag()
          if closed {
            stack[stack.count - 1].children.append(child)
          } else {
            guard stack.count < Self.maxDepth else { throw error("elements nest deeper than \(Self.maxDepth) levels", at: i - 1) }
            stack.append(child)
            texts.append([])
          }
        }
      } else if c == UInt8(ascii: "&") {
        texts[texts.count - 1].append(contentsOf: try reference())
      } else {
        let start = i
        while i < b.count, b[i] != UInt8(ascii: "<"), b[i] != UInt8(ascii: "&") { i += 1 }
        appendText(b[start..<i], to: &texts[texts.count - 1])
      }
    }
  }

  /// `<name attr="value" ...>` or `<name .../>`; returns the element and whether it was empty.
  private mutating func startTag() throws -> (XMLElement, Bool) {
    let start = i
    i += 1
    guard let name = readName() else { throw error("expected an element name after '<'") }
    let p = position(start)
    var element = XMLElement(name: name, line: p.line, column: p.column)
    while true {
      let hadSpace = skipWhitespace()
      guard i < b.count else { throw error("the document ends inside the start tag <\(name)>") }
      if b[i] == UInt8(ascii: ">") {
        i += 1
        return (element, false)
      }
      if starts("/>") {
        i += 2
        return (element, true)
      }
      guard hadSpace else { throw error("expected whitespace, '>' or '/>' in the start tag <\(name)>") }
      let attrStart = i
      guard let attrName = readName() else { throw error("expected an attribute name, '>' or '/>' in <\(name)>") }
      skipWhitespace()
      guard i < b.count, b[i] == UInt8(ascii: "=") else { throw error("expected '=' after attribute '\(attrName)'") }
      i += 1
      skipWhitespace()
      guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else {
        throw error("the value of attribute '\(attrName)' must be quoted")
      }
      let value = try attributeValue(quote: b[i], attribute: attrName)
      if element.attributes.contains(where: { $0.name == attrName }) {
        throw error("attribute '\(attrName)' appears twice in <\(name)>", at: attrStart)
      }
      element.attributes.append(.init(name: attrName, value: value))
    }
  }

  private mutating func attributeValue(quote: UInt8, attribute: String) throws -> String {
    let start = i
    i += 1
    var out: [UInt8] = []
    while true {
      guard i < b.count else { throw error("the value of attribute '\(attribute)' is not closed", at: start) }
      let c = b[i]
      if c == quote {
        i += 1
        return Self.string(out)
      }
      switch c {
      case UInt8(ascii: "<"): throw error("'<' is not allowed in the value of attribute '\(attribute)'")
      case UInt8(ascii: "&"): out.append(contentsOf: try reference())
      case 0x09, 0x0A:
        out.append(0x20)
        i += 1
      case 0x0D:
        out.append(0x20)
        i += (i + 1 < b.count && b[i + 1] == 0x0A) ? 2 : 1
      default:
        out.append(c)
        i += 1
      }
    }
  }

  /// `&name;`, `&#NNN;` or `&#xHHH;` at `i`: the UTF-8 bytes it stands for.
  private mutating func reference() throws -> [UInt8] {
    let start = i
    i += 1
    guard let semi = b[i...].prefix(32).firstIndex(of: UInt8(ascii: ";")) else {
      throw error("'&' must start an entity or character reference ending in ';'", at: start)
    }
    let body = b[i..<semi]
    i = semi + 1
    let text = Self.string(Array(body))
    var scalarValue: UInt32?
    if body.first == UInt8(ascii: "#") {
      let digits = body.dropFirst()
      if digits.first == UInt8(ascii: "x") {
        scalarValue = UInt32(Self.string(Array(digits.dropFirst())), radix: 16)
      } else {
        scalarValue = UInt32(Self.string(Array(digits)), radix: 10)
      }
      guard let v = scalarValue, v != 0, let scalar = Unicode.Scalar(v), !Self.string(Array(digits)).hasPrefix("+") else {
        throw error("'&\(text);' is not a valid character reference", at: start)
      }
      return Array(String(Character(scalar)).utf8)
    }
    switch text {
    case "lt": return [UInt8(ascii: "<")]
    case "gt": return [UInt8(ascii: ">")]
    case "amp": return [UInt8(ascii: "&")]
    case "quot": return [UInt8(ascii: "\"")]
    case "apos": return [UInt8(ascii: "'")]
    default: throw error("unknown entity '&\(text);' (only lt, gt, amp, quot, apos and character references are defined)", at: start)
    }
  }

  // MARK: Things that are skipped

  private mutating func comment() throws {
    let start = i
    i += 4
    guard let end = find("-->") else { throw error("comment is not closed", at: start) }
    i = end + 3
  }

  private mutating func processingInstruction() throws {
    let start = i
    i += 2
    guard readName() != nil else { throw error("expected a target name after '<?'", at: start) }
    guard let end = find("?>") else { throw error("processing instruction is not closed", at: start) }
    i = end + 2
  }

  /// `<!DOCTYPE name ... [internal subset] >`: skipped, minding quoted strings and brackets.
  private mutating func doctype() throws {
    let start = i
    i += 9
    var depth = 0
    while i < b.count {
      let c = b[i]
      if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
        guard let close = b[(i + 1)...].firstIndex(of: c) else { break }
        i = close + 1
        continue
      }
      if starts("<!--") {
        try comment()
        continue
      }
      if c == UInt8(ascii: "[") { depth += 1 }
      if c == UInt8(ascii: "]") { depth -= 1 }
      i += 1
      if c == UInt8(ascii: ">") && depth <= 0 { return }
    }
    throw error("<!DOCTYPE> declaration is not closed", at: start)
  }

  // MARK: Lexical helpers

  private func starts(_ s: StaticString) -> Bool {
    let n = s.utf8CodeUnitCount
    guard i + n <= b.count else { return false }
    return s.withUTF8Buffer { p in
      for k in 0..<n where b[i + k] != p[k] { return false }
      return true
    }
  }

  private func find(_ s: StaticString) -> Int? {
    let n = s.utf8CodeUnitCount
    return s.withUTF8Buffer { p -> Int? in
      var k = i
      while k + n <= b.count {
        if b[k] == p[0] {
          var match = true
          for m in 1..<n where b[k + m] != p[m] {
            match = false
            break
          }
          if match { return k }
        }
        k += 1
      }
      return nil
    }
  }

  @discardableResult
  private mutating func skipWhitespace() -> Bool {
    let start = i
    while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    return i > start
  }

  private mutating func readName() -> String? {
    let start = i
    guard i < b.count, Self.isNameStart(b[i]) else { return nil }
    i += 1
    while i < b.count, Self.isNameStart(b[i]) || Self.isNameRest(b[i]) { i += 1 }
    return Self.string(Array(b[start..<i]))
  }

  private static func isNameStart(_ c: UInt8) -> Bool {
    (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c >= 0x80
  }

  private static func isNameRest(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") }

  /// Character data with line ends normalized (CR LF and a lone CR become LF).
  private func appendText(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
    var k = bytes.startIndex
    while k < bytes.endIndex {
      let c = bytes[k]
      if c == 0x0D {
        out.append(0x0A)
        if k + 1 < bytes.endIndex, bytes[k + 1] == 0x0A { k += 1 }
      } else {
        out.append(c)
      }
      k += 1
    }
  }

  private static func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
