import Diagrams
import Foundation
import SchemaModel
import XCTest

/// The diagrams of one schema: what they show, that they are deterministic, that Graphviz
/// reads every DOT text (skipped without `dot`) and that the Mermaid text keeps to the
/// grammar (`MermaidClassDiagram`), hostile names included.
final class DiagramWriterTests: XCTestCase {
  func testSeedsModelAsMermaid() throws {
    let text = MermaidWriter.write(Diagram(schema: DiagramFixtures.seeds))
    XCTAssertEqual(
      text,
      """
      classDiagram
      %% schema version 1 (drawn by modelstore)
      direction TB
      class Category {
        color : string
        id : uuid «unique»
        name : string
      }
      class Task {
        createdAt : date «indexed»
        id : uuid «unique»
        isCompleted : bool
        priority : int
        title : string
      }
      Category "category 0..1 nullify" *-- "tasks 0..* cascade" Task

      """)
    let parsed = try MermaidClassDiagram(text)
    XCTAssertEqual(parsed.direction, "TB")
    XCTAssertEqual(Set(parsed.classes.keys), ["Category", "Task"])
  }

  func testSeedsModelAsDot() throws {
    let text = DotWriter.write(Diagram(schema: DiagramFixtures.seeds))
    XCTAssertTrue(text.hasPrefix("digraph ModelStore {\n"), text)
    XCTAssertTrue(text.contains("<TR><TD COLSPAN=\"3\" BGCOLOR=\"#dde7f0\"><B>Task</B></TD></TR>"), text)
    XCTAssertTrue(
      text.contains(
        "<TR><TD ALIGN=\"LEFT\">createdAt</TD><TD ALIGN=\"LEFT\"><FONT COLOR=\"#555555\">date</FONT></TD><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"9\" COLOR=\"#555555\">indexed</FONT></TD></TR>"
      ), text)
    // One line for the relationship and its inverse: the diamond at Category, whose
    // `tasks` cascade; each role at the end it points to.
    XCTAssertTrue(
      text.contains(
        "\"Category\" -> \"Task\" [dir=both, arrowtail=diamond, arrowhead=none, taillabel=<<B>category</B> 0..1 nullify>, headlabel=<<B>tasks</B> 0..* cascade>]"
      ), text)
    XCTAssertNil(try DiagramFixtures.dotFailure(text))
  }

  /// Entity, attribute and relationship order in the schema do not change the text.
  func testOutputIsSortedAndDeterministic() throws {
    var shuffled = DiagramFixtures.library
    shuffled.entities.reverse()
    for i in shuffled.entities.indices {
      shuffled.entities[i].attributes.reverse()
      shuffled.entities[i].relationships.reverse()
    }
    let d1 = Diagram(schema: DiagramFixtures.library)
    let d2 = Diagram(schema: shuffled)
    XCTAssertEqual(MermaidWriter.write(d1), MermaidWriter.write(d2))
    XCTAssertEqual(DotWriter.write(d1), DotWriter.write(d2))
    XCTAssertEqual(d1.groups[0].boxes.map(\.name), ["Book", "Item", "Shelf"])
  }

  /// Inheritance, abstract, every delete rule, counts, ordered, a one-way relationship, a
  /// loop and compound constraints.
  func testInheritanceCardinalityAndDeleteRules() throws {
    let text = MermaidWriter.write(Diagram(schema: DiagramFixtures.library))
    let m = try MermaidClassDiagram(text)
    XCTAssertEqual(m.inheritance.map { "\($0.parent) <|-- \($0.child)" }, ["Item <|-- Book"])
    XCTAssertEqual(m.classes["Item"]?.annotations, ["abstract"])
    XCTAssertEqual(m.classes["Item"]?.members, ["note : string? «transient»", "title : string", "«unique» title, shelf"])
    XCTAssertEqual(m.classes["Book"]?.members, ["isbn : string «unique»", "«index» title, isbn"])
    let lines = m.relations.map { "\($0.left) [\($0.leftText)] \($0.link) [\($0.rightText)] \($0.right)" }
    XCTAssertEqual(
      lines,
      [
        // Shelf.items: ordered, deny, 1..50; its inverse Item.shelf required (1).
        "Shelf [shelf 1 nullify] -- [items 1..50 deny ordered] Item",
        // One way, cascading: a diamond at Shelf and an arrow at Book.
        "Shelf [] *--> [featured 0..* cascade] Book",
        // A loop: next / previous.
        "Shelf [previous 0..1 nullify] -- [next 0..1 noAction] Shelf",
      ])
    let dot = DotWriter.write(Diagram(schema: DiagramFixtures.library))
    XCTAssertTrue(dot.contains("\"Item\" -> \"Book\" [dir=back, arrowtail=empty, arrowsize=1.1]"), dot)
    XCTAssertTrue(dot.contains("\"Shelf\" -> \"Book\" [dir=both, arrowtail=diamond, arrowhead=vee, taillabel=<>"), dot)
    XCTAssertTrue(dot.contains("<FONT POINT-SIZE=\"9\">«abstract»</FONT><BR/><B><I>Item</I></B>"), dot)
    XCTAssertTrue(dot.contains("label=<<B>previous</B> 0..1 nullify<BR/><B>next</B> 0..1 noAction>"), dot)
    XCTAssertNil(try DiagramFixtures.dotFailure(dot))
  }

  func testMultiplicities() {
    XCTAssertEqual(Relationship(name: "a", destination: "X").multiplicity, "0..1")
    XCTAssertEqual(Relationship(name: "a", destination: "X", optional: false).multiplicity, "1")
    XCTAssertEqual(Relationship(name: "a", destination: "X", toMany: true).multiplicity, "0..*")
    XCTAssertEqual(Relationship(name: "a", destination: "X", toMany: true, minCount: 2).multiplicity, "2..*")
    XCTAssertEqual(Relationship(name: "a", destination: "X", toMany: true, minCount: 1, maxCount: 5).multiplicity, "1..5")
    // max 0 means no maximum.
    XCTAssertEqual(Relationship(name: "a", destination: "X", toMany: true, maxCount: 0).multiplicity, "0..*")
  }

  func testEmptySchema() throws {
    let d = Diagram(schema: Schema(version: "0", entities: []))
    let m = try MermaidClassDiagram(MermaidWriter.write(d))
    XCTAssertEqual(m.notes, ["no entities"])
    XCTAssertNil(try DiagramFixtures.dotFailure(DotWriter.write(d)))
  }

  /// Names no valid schema has (the validator allows ASCII identifiers only), drawn
  /// anyway: quotes, spaces, Unicode, line breaks, backslashes (a DOT string cannot end in
  /// one), markup, Mermaid's entity codes and comments, and keywords of both languages.
  static let hostileNames = [
    "Task \"quoted\"", "with space", "Ünïcødé 名前", "Node", "graph", "Edge", "subgraph", "strict", "class", "end",
    "direction TB", "trailing\\", "<b>&amp;</b>", "%%{init: {}}%%", "#35;", "line\nbreak", "tab\there", "`tick`", "}{", "o",
    "note for", "a: b; c", "(x)*", "~T~", "-minus", "+plus", "[*]", "\u{7F}del", "emoji 🧪",
  ]

  static var hostileSchema: Schema {
    let names = hostileNames
    var entities: [Entity] = []
    for (i, name) in names.enumerated() {
      let next = names[(i + 1) % names.count]
      entities.append(
        Entity(
          name: name, parent: i % 5 == 4 ? names[i - 1] : nil, abstract: i % 7 == 0,
          attributes: [
            Attribute(name: next, type: .string, optional: true, unique: i % 2 == 0),
            Attribute(name: "plain", type: .int, indexed: true),
          ],
          relationships: [
            Relationship(name: "to " + next, destination: next, inverse: "from " + name, deleteRule: .cascade),
            Relationship(
              name: "from " + names[(i + names.count - 1) % names.count], destination: names[(i + names.count - 1) % names.count],
              inverse: "to " + name, toMany: true),
          ],
          uniqueness: [[next, "plain"]]))
    }
    return Schema(version: "v\"1\" <&> \\", entities: entities)
  }

  func testHostileNamesInDot() throws {
    let text = DotWriter.write(Diagram(schema: Self.hostileSchema))
    guard DiagramFixtures.dot != nil else { throw XCTSkip("Graphviz's dot is not on PATH (Debian: apt-get install graphviz)") }
    let svg = String(decoding: try Graphviz.render(text, as: .svg), as: UTF8.self)
    // One node per entity, one edge per relationship pair and per parent: nothing merged
    // or split by a badly quoted id.
    XCTAssertEqual(svg.components(separatedBy: "class=\"node\"").count - 1, Self.hostileNames.count)
    let parents = Self.hostileSchema.entities.filter { $0.parent != nil }.count
    XCTAssertEqual(svg.components(separatedBy: "class=\"edge\"").count - 1, Self.hostileNames.count + parents)
    // Each name is drawn as written: the SVG's text, its entities decoded, is the name
    // with control characters shown as their pictures (U+2400 + code, U+2421 for DEL).
    var drawn = svg
    for (entity, character) in [("&#160;", " "), ("&#45;", "-"), ("&quot;", "\""), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")] {
      drawn = drawn.replacingOccurrences(of: entity, with: character)
    }
    for name in Self.hostileNames {
      let pictures = String(
        String.UnicodeScalarView(
          name.unicodeScalars.map { $0.value < 0x20 ? Unicode.Scalar(0x2400 + $0.value)! : $0.value == 0x7F ? "\u{2421}" : $0 }))
      XCTAssertTrue(drawn.contains(">" + pictures + "</text>"), "\(name) is not drawn as '\(pictures)'")
    }
  }

  func testHostileNamesInMermaid() throws {
    let schema = Self.hostileSchema
    let text = MermaidWriter.write(Diagram(schema: schema))
    let m: MermaidClassDiagram
    do { m = try MermaidClassDiagram(text) } catch { return XCTFail("\(error)\n\(text)") }
    XCTAssertEqual(m.classes.count, schema.entities.count)
    for e in schema.entities {
      guard let c = m.class(named: e.name) else {
        XCTFail("no class shows '\(e.name)'")
        continue
      }
      // Only valid entity names (an uppercase ASCII letter, then letters, digits and _)
      // are their own id; every other name is a label.
      XCTAssertEqual(c.label == nil, e.name == "Node" || e.name == "Edge", e.name)
      for a in e.attributes {
        XCTAssertTrue(c.members.contains { $0.hasPrefix(a.name + " : ") }, "\(e.name).\(a.name) in \(c.members)")
      }
      for r in e.relationships {
        let end = "\(r.name) \(r.multiplicity) \(r.diagramTags.joined(separator: " "))"
        XCTAssertTrue(m.relations.contains { $0.leftText == end || $0.rightText == end }, "\(e.name).\(r.name)")
      }
    }
    XCTAssertTrue(text.hasPrefix("classDiagram\n%% schema version v#34;1#34; #60;#38;#62; #92; (drawn by modelstore)\n"), text)
  }
}
