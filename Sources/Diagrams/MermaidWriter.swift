/// Writes a diagram as a Mermaid `classDiagram`.
///
/// Why a class diagram and not `erDiagram`: Mermaid's ER diagrams have no inheritance and no
/// abstract entities, and their crow's feet cannot say `min..max`; a class diagram has UML
/// generalization (`Parent <|-- Child`), `<<abstract>>`, multiplicities as free text at each
/// end of one line (so a relationship and its inverse are one line with both role names,
/// `1..5` as well as `0..*`), composition (`*--`, the diamond at the entity whose delete
/// rule cascades) and a place for the delete rule and `ordered` beside each role.
///
/// Identifiers: an entity whose name is a plain identifier starting with an uppercase
/// letter (every valid entity name) is written as it is; any other name gets a generated
/// id (`_1`, `_2`, ... in name order) and the name as the class label. In a migration
/// diagram every id has its version's prefix (`from_`, `to_`) and a label. Text (names,
/// roles, notes) goes inside strings or member lines with every character Mermaid reads
/// there written as an entity code (`#34;` for `"`, `#35;` for `#`, ...), which Mermaid
/// decodes when it draws; `direction` in text is broken up so the lexer never takes a line
/// holding it for a direction statement.
public enum MermaidWriter {
  public static func write(_ d: Diagram) -> String {
    let ids = Self.ids(d)
    var out = "classDiagram\n"
    out += "%% " + text(d.title) + " (drawn by modelstore)\n"
    out += "direction TB\n"
    let migration = d.groups.count > 1
    for g in d.groups {
      var indent = ""
      if migration {
        out += "namespace \(g.id == "from" ? "From" : "To") {\n"
        indent = "  "
      }
      for b in g.boxes { out += box(b, id: ids[b.id]!, labelled: migration || ids[b.id] != b.name, indent: indent) }
      if migration { out += "}\n" }
    }
    for line in d.lines { out += self.line(line, ids) }
    for n in (d.groups.compactMap(\.title).isEmpty ? [] : [d.groups.compactMap(\.title).joined(separator: " → ")]) + d.notes {
      out += "note \"\(text(n))\"\n"
    }
    return out
  }

  /// Each box's Mermaid id.
  static func ids(_ d: Diagram) -> [String: String] {
    var ids: [String: String] = [:]
    for g in d.groups {
      let prefix = g.id == "" ? "" : (g.id + "_")
      for (k, b) in g.boxes.enumerated() {
        let plain = isPlain(b.name) && (prefix != "" || b.name.first!.isUppercase)
        ids[b.id] = plain ? prefix + b.name : prefix + "_\(k + 1)"
      }
    }
    return ids
  }

  /// ASCII letter, then ASCII letters, digits and `_`.
  static func isPlain(_ name: String) -> Bool {
    guard let f = name.unicodeScalars.first, f.isASCII, f.properties.isAlphabetic else { return false }
    return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
  }

  static func box(_ b: Diagram.Box, id: String, labelled: Bool, indent: String) -> String {
    // A label is never empty (`""` does not lex as a string).
    var out = indent + "class \(id)" + (labelled ? "[\"\(b.name.isEmpty ? "#32;" : text(b.name))\"]" : "") + " {\n"
    var annotations = b.abstract ? ["abstract"] : []
    if let c = b.change { annotations.append(c.kind.rawValue) }
    if !annotations.isEmpty { out += indent + "  <<\(annotations.joined(separator: ", "))>>\n" }
    for r in b.rows { out += indent + "  " + member(r) + "\n" }
    if let c = b.change, c.details.contains(where: { $0 != c.kind.rawValue }) || c.losesData {
      out += indent + "  " + "[" + changeText(c) + "]\n"
    }
    return out + indent + "}\n"
  }

  /// `name : type «tags» [change]`; a constraint row is `«unique» a, b`.
  static func member(_ r: Diagram.Row) -> String {
    var s =
      r.isConstraint
      ? "«\(r.tags.joined(separator: ", "))» " + text(r.name)
      : text(r.name) + " : " + r.type + (r.tags.isEmpty ? "" : " «\(r.tags.joined(separator: ", "))»")
    if let c = r.change { s += " [" + changeText(c) + "]" }
    // A leading + - ~ would be read as UML visibility.
    if let f = s.first, "+-~".contains(f) { s = "#\(f.unicodeScalars.first!.value);" + s.dropFirst() }
    return s
  }

  static func changeText(_ c: Diagram.Change) -> String { text(c.summary) }

  static func line(_ line: Diagram.Line, _ ids: [String: String]) -> String {
    switch line {
    case .inheritance(let child, let parent):
      return "\(ids[parent]!) <|-- \(ids[child]!)\n"
    case .continuation(let from, let to, let renamed):
      return "\(ids[from]!) ..> \(ids[to]!) : \(renamed ? "renamed" : "continues")\n"
    case .association(let tail, let head):
      let left = tail.owned?.deleteRule == .cascade ? "*" : ""
      let right = head.owned == nil ? ">" : (head.owned?.deleteRule == .cascade ? "*" : "")
      let removed = [tail.change, head.change].contains { $0?.kind == .removed }
      let link = left + (removed ? ".." : "--") + right
      // An empty string does not lex as one: an end without a role has no string.
      let near = [end(head), end(tail)].map { $0.isEmpty ? "" : "\"\($0)\" " }
      return "\(ids[tail.box]!) \(near[0])\(link) \(near[1])\(ids[head.box]!)\n"
    }
  }

  /// The text at an end: the role pointing to this end's entity (the other side's
  /// relationship) with its multiplicity, delete rule, `ordered` and change.
  static func end(_ other: Diagram.Side) -> String {
    guard let r = other.owned else { return "" }
    var s = text(r.name) + " " + r.multiplicity + " " + r.diagramTags.joined(separator: " ")
    if let c = other.change { s += " [" + changeText(c) + "]" }
    return s
  }

  /// Free text for a string, label or member line.
  static func text(_ s: String) -> String {
    var out = ""
    for u in s.unicodeScalars {
      if u.value < 0x20 || u.value == 0x7F || "\"#`{}<>&~:;%()$*\\|".unicodeScalars.contains(u) {
        out += "#\(u.value);"
      } else {
        out.unicodeScalars.append(u)
      }
    }
    return out.replacing("direction", with: "#100;irection")
  }
}
