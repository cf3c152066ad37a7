/// Writes a diagram as Graphviz DOT: each entity a table (name; attributes with type and
/// marks), inheritance as a hollow triangle at the parent, each relationship and its
/// inverse one line with the role, multiplicity, delete rule and `ordered` at the end it
/// points to, a filled diamond at the entity whose delete rule cascades, and an open arrow
/// where only one side declares the relationship. A migration diagram has the two versions
/// as clusters side by side, additions green, removals red and struck through, renames and
/// changes orange, and `⚠` where stored data is lost.
///
/// Node ids are quoted: a name of letters, digits and `_` (any script) is its own id (so
/// `Node`, `Graph` or `Edge`, keywords of DOT, are harmless); any other name gets
/// `~` and its UTF-8 bytes in hex (DOT's quoted strings cannot end in a backslash). Every
/// text is an HTML-like label with `& < > "` written as entities and control characters as
/// their visible Unicode pictures (U+2400...).
public enum DotWriter {
  static let font = "Helvetica"
  static let colors: [Diagram.Change.Kind: (line: String, fill: String)] = [
    .added: ("#2e7d32", "#e3f4e4"), .removed: ("#c62828", "#fbe3e3"), .renamed: ("#e65100", "#fff1e0"),
    .changed: ("#e65100", "#fff1e0"),
  ]

  public static func write(_ d: Diagram) -> String {
    var out = "digraph ModelStore {\n"
    out += "  graph [fontname=\"\(font)\", fontsize=13, labelloc=t, label=<<B>\(html(d.title))</B>>, nodesep=0.7, ranksep=1.0]\n"
    out += "  node [shape=plain, fontname=\"\(font)\", fontsize=11]\n"
    out +=
      "  edge [fontname=\"\(font)\", fontsize=9, color=\"#555555\", arrowsize=0.8, labelfontsize=9, labeldistance=2.2, labelangle=35, minlen=2]\n"
    let migration = d.groups.count > 1
    for g in d.groups {
      var indent = "  "
      if migration {
        out += "  subgraph \"cluster_\(g.id)\" {\n"
        out += "    graph [label=<<B>\(html(g.title ?? g.id))</B>>, style=rounded, color=\"#9e9e9e\"]\n"
        indent = "    "
      }
      for b in g.boxes { out += indent + id(b.id, g.id) + " [label=<" + table(b) + ">]\n" }
      if migration { out += "  }\n" }
    }
    for line in d.lines { out += "  " + self.line(line, d) + "\n" }
    if !d.notes.isEmpty {
      let text = d.notes.map(html).joined(separator: "<BR ALIGN=\"LEFT\"/>") + "<BR ALIGN=\"LEFT\"/>"
      out += "  \":notes\" [shape=note, fontsize=10, margin=\"0.15,0.08\", color=\"#9e9e9e\", label=<\(text)>]\n"
    }
    return out + "}\n"
  }

  /// The quoted node id of box `boxID` (`prefix:name`, or the name alone) of group `group`.
  static func id(_ boxID: String, _ group: String) -> String {
    let name = group.isEmpty ? boxID : String(boxID.dropFirst(group.count + 1))
    let plain =
      !name.isEmpty && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" }
    let key = plain ? name : "~" + name.utf8.map { String($0, radix: 16, uppercase: false).leftPadded(2) }.joined()
    return "\"" + (group.isEmpty ? key : group + ":" + key) + "\""
  }

  static func id(_ boxID: String, in d: Diagram) -> String {
    let group = d.groups.first { g in g.boxes.contains { $0.id == boxID } }?.id ?? ""
    return id(boxID, group)
  }

  static func table(_ b: Diagram.Box) -> String {
    let (line, fill) = b.change.map { colors[$0.kind]! } ?? ("#455a64", "#dde7f0")
    var out = "<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" COLOR=\"\(line)\">"
    var header = b.abstract ? "<I>\(html(b.name))</I>" : html(b.name)
    if b.change?.kind == .removed { header = "<S>\(header)</S>" }
    header = "<B>\(header)</B>"
    if b.abstract { header = "<FONT POINT-SIZE=\"9\">«abstract»</FONT><BR/>" + header }
    out += "<TR><TD COLSPAN=\"3\" BGCOLOR=\"\(fill)\">\(header)</TD></TR>"
    if let c = b.change, c.details.contains(where: { $0 != c.kind.rawValue }) || c.losesData {
      out += "<TR><TD COLSPAN=\"3\" BGCOLOR=\"\(fill)\"><FONT POINT-SIZE=\"9\" COLOR=\"\(line)\">\(html(c.summary))</FONT></TD></TR>"
    }
    if !b.rows.isEmpty { out += "<HR/>" }
    for r in b.rows { out += row(r) }
    return out + "</TABLE>"
  }

  /// `name | type | marks`: a constraint row is `unique | (a, b)`.
  static func row(_ r: Diagram.Row) -> String {
    var cells =
      r.isConstraint
      ? ["<I>" + html(r.tags.joined(separator: ", ")) + "</I>", "(" + html(r.name) + ")", ""]
      : [html(r.name), html(r.type), html(r.tags.joined(separator: ", "))]
    var colour = "#555555"
    if let c = r.change {
      colour = colors[c.kind]!.line
      if c.kind == .removed { cells[0] = "<S>" + cells[0] + "</S>" }
      cells[2] = (cells[2].isEmpty ? "" : cells[2] + " ") + html(c.summary)
    }
    let name = r.change.map { "<FONT COLOR=\"\(colors[$0.kind]!.line)\">\(cells[0])</FONT>" } ?? cells[0]
    let type = cells[1].isEmpty ? "" : "<FONT COLOR=\"#555555\">\(cells[1])</FONT>"
    let marks = cells[2].isEmpty ? "" : "<FONT POINT-SIZE=\"9\" COLOR=\"\(colour)\">\(cells[2])</FONT>"
    return "<TR><TD ALIGN=\"LEFT\">\(name)</TD><TD ALIGN=\"LEFT\">\(type)</TD><TD ALIGN=\"LEFT\">\(marks)</TD></TR>"
  }

  static func line(_ line: Diagram.Line, _ d: Diagram) -> String {
    switch line {
    case .inheritance(let child, let parent):
      return "\(id(parent, in: d)) -> \(id(child, in: d)) [dir=back, arrowtail=empty, arrowsize=1.1]"
    case .continuation(let from, let to, let renamed):
      return "\(id(from, in: d)) -> \(id(to, in: d)) [style=dashed, color=\"#9e9e9e\", arrowhead=vee, constraint=false"
        + (renamed ? ", label=<renamed>, fontcolor=\"\(colors[.renamed]!.line)\"]" : "]")
    case .association(let tail, let head):
      let tailArrow = tail.owned?.deleteRule == .cascade ? "diamond" : "none"
      let headArrow = head.owned == nil ? "vee" : (head.owned?.deleteRule == .cascade ? "diamond" : "none")
      var attributes = ["dir=both", "arrowtail=\(tailArrow)", "arrowhead=\(headArrow)"]
      if tail.box == head.box {
        // A loop: both ends are at one box, so both roles go in the middle.
        attributes.append("label=<\([end(head), end(tail)].filter { !$0.isEmpty }.joined(separator: "<BR/>"))>")
      } else {
        attributes += ["taillabel=<\(end(head))>", "headlabel=<\(end(tail))>"]
      }
      let kinds = [tail.change?.kind, head.change?.kind].compactMap { $0 }
      if let kind = [Diagram.Change.Kind.removed, .added, .renamed, .changed].first(where: kinds.contains) {
        attributes.append("color=\"\(colors[kind]!.line)\"")
        if kind == .removed { attributes.append("style=dashed") }
      }
      return "\(id(tail.box, in: d)) -> \(id(head.box, in: d)) [\(attributes.joined(separator: ", "))]"
    }
  }

  /// The label at an end: the role pointing to this end's entity, its multiplicity, then
  /// the delete rule, `ordered` and any change on a second line.
  static func end(_ other: Diagram.Side) -> String {
    guard let r = other.owned else { return "" }
    var s = "<B>\(html(r.name))</B> \(r.multiplicity) " + html(r.diagramTags.joined(separator: ", "))
    if let c = other.change { s += "<BR/><FONT COLOR=\"\(colors[c.kind]!.line)\">\(html(c.summary))</FONT>" }
    return s
  }

  /// Text for an HTML-like label.
  static func html(_ s: String) -> String {
    var out = ""
    for u in s.unicodeScalars {
      switch u {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case _ where u.value < 0x20: out.unicodeScalars.append(Unicode.Scalar(0x2400 + u.value)!)
      case _ where u.value == 0x7F: out += "\u{2421}"
      default: out.unicodeScalars.append(u)
      }
    }
    return out
  }
}

extension String {
  func leftPadded(_ width: Int) -> String { String(repeating: "0", count: Swift.max(0, width - count)) + self }
}
