import Diagrams
import Foundation
import SchemaModel
import TestSupport
import XCTest

/// Two versions side by side: what SchemaDiff's changes mark, measured data loss, and that
/// both languages read the result.
final class MigrationDiagramTests: XCTestCase {
  let diagram = Diagram(migrationFrom: DiagramFixtures.migrationFrom, to: DiagramFixtures.migrationTo)

  func box(_ group: Int, _ name: String) -> Diagram.Box? { diagram.groups[group].boxes.first { $0.name == name } }
  func row(_ group: Int, _ entity: String, _ name: String) -> Diagram.Row? { box(group, entity)?.rows.first { $0.name == name } }

  /// The side of an association in `group` (a box id prefix) that declares `relationship`.
  func side(_ group: String, _ entity: String, _ relationship: String) -> Diagram.Side? {
    for case .association(let tail, let head) in diagram.lines {
      for s in [tail, head] where s.box == "\(group):\(entity)" && s.owned?.name == relationship { return s }
    }
    return nil
  }

  func testEntitiesAreMarked() {
    XCTAssertEqual(diagram.groups.map(\.title), ["from version 1.0", "to version 2.0"])
    XCTAssertEqual(diagram.groups[0].boxes.map(\.name), ["Category", "Note", "Task"])
    XCTAssertEqual(diagram.groups[1].boxes.map(\.name), ["Group", "Tag", "Task"])
    XCTAssertEqual(box(0, "Note")?.change, Diagram.Change(.removed, details: ["removed"], losesData: true))
    XCTAssertEqual(box(0, "Category")?.change, Diagram.Change(.renamed, details: ["renamed to Group"]))
    XCTAssertEqual(box(1, "Group")?.change, Diagram.Change(.renamed, details: ["renamed from Category"]))
    XCTAssertEqual(box(1, "Tag")?.change, Diagram.Change(.added, details: ["added"]))
    XCTAssertNil(box(1, "Task")?.change)
    let continuations = diagram.lines.compactMap { line -> String? in
      guard case .continuation(let from, let to, let renamed) = line else { return nil }
      return "\(from) → \(to)\(renamed ? " renamed" : "")"
    }
    XCTAssertEqual(continuations, ["from:Category → to:Group renamed", "from:Task → to:Task"])
    XCTAssertEqual(diagram.notes, ["9 changes (lightweight) — + added, − removed, ~ renamed or changed, ⚠ loses stored data"])
  }

  func testAttributesAndRelationshipsAreMarked() {
    XCTAssertEqual(row(0, "Task", "done")?.change, Diagram.Change(.renamed, details: ["renamed to isCompleted"]))
    XCTAssertEqual(row(1, "Task", "isCompleted")?.change, Diagram.Change(.renamed, details: ["renamed from done"]))
    XCTAssertEqual(row(1, "Task", "priority")?.change, Diagram.Change(.changed, details: ["int16 → int32"]))
    XCTAssertNil(row(1, "Task", "title")?.change)
    XCTAssertEqual(row(0, "Task", "notes")?.change, Diagram.Change(.removed, details: ["removed"], losesData: true))
    XCTAssertEqual(
      row(1, "Group", "color")?.change?.summary, "+ added, requires: every Group has a value for 'color'")
    XCTAssertEqual(side("from", "Task", "category")?.change, Diagram.Change(.renamed, details: ["renamed to group"]))
    XCTAssertEqual(side("to", "Task", "group")?.change, Diagram.Change(.renamed, details: ["renamed from category"]))
    XCTAssertEqual(side("to", "Group", "tasks")?.change, Diagram.Change(.changed, details: ["delete rule nullify → cascade"]))
  }

  func testBothLanguagesReadIt() throws {
    let m = try MermaidClassDiagram(MermaidWriter.write(diagram))
    XCTAssertEqual(m.class(named: "Note", in: "From")?.annotations, ["removed"])
    XCTAssertEqual(m.class(named: "Note", in: "From")?.members.last, "[− removed, ⚠ loses stored data]")
    XCTAssertEqual(m.class(named: "Tag", in: "To")?.annotations, ["added"])
    XCTAssertTrue(m.class(named: "Task", in: "To")?.members.contains("priority : int32 [~ int16 → int32]") ?? false)
    XCTAssertTrue(m.relations.contains { $0.link == "..>" && $0.label == "renamed" })
    XCTAssertEqual(m.notes.first, "from version 1.0 → to version 2.0")
    let dot = DotWriter.write(diagram)
    XCTAssertTrue(dot.contains("subgraph \"cluster_from\" {"), dot)
    XCTAssertTrue(dot.contains("\"from:Category\" -> \"to:Group\" [style=dashed"), dot)
    XCTAssertTrue(dot.contains("<S>notes</S>"), "a removed attribute is struck through: \(dot)")
    XCTAssertTrue(dot.contains("<S><B>Note</B></S>") || dot.contains("<B><S>Note</S></B>"), "a removed entity is struck through: \(dot)")
    XCTAssertNil(try DiagramFixtures.dotFailure(dot))
  }

  /// Losses measured on a store go to the element they name, or to a note.
  func testMeasuredLossAndBlockers() throws {
    let from = DiagramFixtures.decode(
      schema(
        entity("Task", [attr("title", "string")], relationships: [rel("category", "Category", inverse: "tasks")]),
        entity("Category", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
        version: "1"))
    let to = DiagramFixtures.decode(
      schema(entity("Task", [attr("title", "string")]), entity("Category", [attr("name", "string")]), version: "2"))
    let d = Diagram(
      migrationFrom: from, to: to,
      measured: [
        .init(entity: "Task", property: "category", message: "relationship 'Task.category' is removed with its 2 links"),
        .init(entity: "Gone", property: nil, message: "3 objects of Gone are deleted"),
      ], blockers: ["relationship 'Task.category' is removed with its 2 links (accepted with allowDataLoss)"])
    var found: Diagram.Side?
    for case .association(let tail, let head) in d.lines {
      found = found ?? [tail, head].first { $0.box == "from:Task" && $0.owned?.name == "category" }
    }
    XCTAssertEqual(
      found?.change,
      Diagram.Change(.removed, details: ["removed", "relationship 'Task.category' is removed with its 2 links"], losesData: true))
    XCTAssertEqual(
      d.notes,
      [
        "2 changes (lightweight) — + added, − removed, ~ renamed or changed, ⚠ loses stored data", "⚠ 3 objects of Gone are deleted",
        "blocked: relationship 'Task.category' is removed with its 2 links (accepted with allowDataLoss)",
      ])
    XCTAssertNil(try DiagramFixtures.dotFailure(DotWriter.write(d)))
    _ = try MermaidClassDiagram(MermaidWriter.write(d))
  }

  /// A change no lightweight stage makes says so, where it is and in the summary.
  func testCustomStage() throws {
    let from = DiagramFixtures.decode(
      schema(
        entity("A", [], relationships: [rel("link", "B")]), entity("B", [attr("x", "string")]), entity("C", [attr("y", "string")]),
        version: "1"))
    let to = DiagramFixtures.decode(
      schema(
        entity("A", [], relationships: [rel("link", "C")]), entity("B", [attr("x", "string")]), entity("C", [attr("y", "string")]),
        version: "2"))
    let d = Diagram(migrationFrom: from, to: to)
    XCTAssertTrue(d.notes[0].hasPrefix("1 change (needs a custom stage)"), d.notes[0])
    var found: Diagram.Side?
    for case .association(let tail, _) in d.lines where tail.box == "to:A" { found = tail }
    XCTAssertEqual(
      found?.change, Diagram.Change(.changed, details: ["destination B → C", "needs a custom stage"], losesData: true))
  }
}
