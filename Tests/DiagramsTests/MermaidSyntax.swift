import XCTest

/// A structural check of the Mermaid `classDiagram` subset `MermaidWriter` writes. There is
/// no Mermaid parser offline (mermaid-cli needs a browser), so this checks each line against
/// the grammar of Mermaid's `classDiagram.jison` for the statements used, and the rules the
/// writer relies on: ids are `[A-Za-z_][A-Za-z0-9_]*` and declared before a relation names
/// them; strings hold no `"` or line break; member lines hold no `{`, `}` or `"`; relation
/// labels no `:` or `;`; outside the writer's own punctuation, every character Mermaid's
/// lexer reads specially is an entity code (`#NN;`); no line but the direction statement
/// holds `direction` followed by a space (the lexer takes any such line for one); a comment
/// does not start with `{` (a directive). It returns what it read, with entity codes
/// decoded, so tests compare the diagram with the schema.
struct MermaidClassDiagram {
  struct Class {
    var id: String
    var label: String?
    var namespace: String?
    var annotations: [String] = []
    var members: [String] = []
    /// What Mermaid shows as the class name.
    var title: String { label ?? id }
  }
  struct Relation {
    var left: String
    var leftText: String
    var link: String
    var rightText: String
    var right: String
    var label: String?
  }

  var classes: [String: Class] = [:]
  var relations: [Relation] = []
  var inheritance: [(parent: String, child: String)] = []
  var notes: [String] = []
  var direction: String?

  /// Characters Mermaid's lexer reads specially, which text must carry as entity codes.
  static let special = Set("\"#`{}<>&~:;%()$*\\|".unicodeScalars)

  static let id = "[A-Za-z_][A-Za-z0-9_]*"
  static let string = "\"([^\"\\n]+)\""

  init(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard lines.last == "" else { throw Problem("the text does not end with a line break") }
    lines.removeLast()
    guard lines.first == "classDiagram" else { throw Problem("the first line is not 'classDiagram': \(lines.first ?? "")") }
    var namespace: String?
    var open: String?
    for (n, raw) in lines.enumerated().dropFirst() {
      let where_ = "line \(n + 1) '\(raw)'"
      let l = raw.trimmingCharacters(in: .whitespaces)
      if l.range(of: "direction\\s", options: .regularExpression) != nil && !l.hasPrefix("direction ") {
        throw Problem("\(where_): holds 'direction' and a space, which the lexer takes for a direction statement")
      }
      if let current = open {
        if l == "}" {
          open = nil
          continue
        }
        if l.hasPrefix("<<") && l.hasSuffix(">>") {
          let words = String(l.dropFirst(2).dropLast(2))
          try Self.checkText(words, allowing: ",", where_)
          classes[current]!.annotations.append(Self.decode(words))
          continue
        }
        if l.contains("{") || l.contains("}") || l.contains("\"") { throw Problem("\(where_): a member line holds { } or \"") }
        if let f = l.first, "+-~#".contains(f), !l.hasPrefix("#") || l.range(of: "^#[0-9]+;", options: .regularExpression) == nil {
          throw Problem("\(where_): a member line starts with a visibility mark")
        }
        if let f = l.last, "$*)".contains(f) { throw Problem("\(where_): a member line ends with a classifier or ')'") }
        // The writer's own punctuation in a member: one ' : ' between name and type.
        let body = l.replacingOccurrences(of: " : ", with: " ")
        try Self.checkText(body, allowing: "", where_)
        classes[current]!.members.append(Self.decode(l))
        continue
      }
      if l.hasPrefix("%%") {
        if l.dropFirst(2).trimmingCharacters(in: .whitespaces).hasPrefix("{") { throw Problem("\(where_): a comment that is a directive") }
        continue
      }
      if let m = Self.match(l, "^direction (TB|BT|LR|RL)$") {
        direction = m[1]
        continue
      }
      if let m = Self.match(l, "^namespace ([A-Za-z][A-Za-z0-9_]*) \\{$") {
        guard namespace == nil else { throw Problem("\(where_): a namespace inside a namespace") }
        namespace = m[1]
        continue
      }
      if l == "}" {
        guard namespace != nil else { throw Problem("\(where_): '}' closes nothing") }
        namespace = nil
        continue
      }
      if let m = Self.match(l, "^class (\(Self.id))(\\[\(Self.string)\\])? \\{$") {
        guard classes[m[1]] == nil else { throw Problem("\(where_): class \(m[1]) declared twice") }
        let label = m[3].isEmpty && !l.contains("[") ? nil : m[3]
        if let label { try Self.checkText(label, allowing: "", where_) }
        classes[m[1]] = Class(id: m[1], label: label.map(Self.decode), namespace: namespace)
        open = m[1]
        continue
      }
      guard namespace == nil else { throw Problem("\(where_): only classes belong inside a namespace") }
      if let m = Self.match(l, "^(\(Self.id)) <\\|-- (\(Self.id))$") {
        try declared(m[1], where_)
        try declared(m[2], where_)
        inheritance.append((m[1], m[2]))
        continue
      }
      if let m = Self.match(l, "^(\(Self.id)) \\.\\.> (\(Self.id)) : ([^:;]+)$") {
        try declared(m[1], where_)
        try declared(m[2], where_)
        relations.append(Relation(left: m[1], leftText: "", link: "..>", rightText: "", right: m[2], label: m[3]))
        continue
      }
      // A string is never empty (`""` does not lex as a string): an end without text has none.
      if let m = Self.match(l, "^(\(Self.id)) (\"([^\"\\n]+)\" )?(\\*?(--|\\.\\.)[*>]?) (\"([^\"\\n]+)\" )?(\(Self.id))$") {
        try declared(m[1], where_)
        try declared(m[8], where_)
        // The writer's multiplicities (`0..*`) are the only raw `*`: a string ends only at `"`.
        try Self.checkText(m[3], allowing: "*", where_)
        try Self.checkText(m[7], allowing: "*", where_)
        relations.append(Relation(left: m[1], leftText: Self.decode(m[3]), link: m[4], rightText: Self.decode(m[7]), right: m[8]))
        continue
      }
      if let m = Self.match(l, "^note \"([^\"\\n]+)\"$") {
        try Self.checkText(m[1], allowing: "", where_)
        notes.append(Self.decode(m[1]))
        continue
      }
      throw Problem("\(where_): not a statement of the subset")
    }
    if let open { throw Problem("class \(open) is not closed") }
    if namespace != nil { throw Problem("a namespace is not closed") }
  }

  private func declared(_ id: String, _ where_: String) throws {
    guard classes[id] != nil else { throw Problem("\(where_): \(id) is not a declared class") }
  }

  /// Text outside the writer's punctuation: every special character an entity code.
  static func checkText(_ s: String, allowing: String, _ where_: String) throws {
    let stripped = s.replacingOccurrences(of: "#[0-9]+;", with: "", options: .regularExpression)
    if let bad = stripped.unicodeScalars.first(where: { special.contains($0) && !allowing.unicodeScalars.contains($0) }) {
      throw Problem("\(where_): '\(bad)' is not written as an entity code")
    }
    if let bad = stripped.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      throw Problem("\(where_): control character U+\(String(bad.value, radix: 16)) is not written as an entity code")
    }
  }

  /// Entity codes (`#34;`) decoded, as Mermaid shows them.
  static func decode(_ s: String) -> String {
    var out = ""
    var rest = Substring(s)
    while let r = rest.range(of: "#[0-9]+;", options: .regularExpression) {
      out += rest[..<r.lowerBound]
      out.unicodeScalars.append(Unicode.Scalar(UInt32(rest[r].dropFirst().dropLast())!)!)
      rest = rest[r.upperBound...]
    }
    return out + rest
  }

  static func match(_ s: String, _ pattern: String) -> [String]? {
    guard let re = try? NSRegularExpression(pattern: pattern),
      let m = re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s))
    else { return nil }
    return (0..<m.numberOfRanges).map { i in Range(m.range(at: i), in: s).map { String(s[$0]) } ?? "" }
  }

  struct Problem: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
  }

  /// The class Mermaid shows as `name` (decoded), in `namespace` when given.
  func `class`(named name: String, in namespace: String? = nil) -> Class? {
    classes.values.first { $0.title == name && (namespace == nil || $0.namespace == namespace) }
  }
}
