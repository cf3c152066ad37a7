import CoreDataTooling
import Diagrams
import Foundation
import SchemaModel
import TestSupport
import XCTest

/// Every model of the Core Data corpus (shared/corpus, skipped when absent) drawn: each
/// version that imports as a schema, and each pair of consecutive versions of a bundle as a
/// migration. Graphviz's `dot -Tsvg` reads every DOT text (skipped without `dot`), and every
/// Mermaid text passes the structural check and shows every entity, attribute and
/// relationship of its schema.
final class CorpusDiagramTests: XCTestCase {
  struct Drawn {
    var name: String
    var diagram: Diagram
    var schemas: [Schema]
  }

  static func corpusDiagrams() throws -> [Drawn] {
    var out: [Drawn] = []
    for unit in try CoreDataModelCorpus.modelUnits() {
      let model = try CoreDataModelImporter.importModel(at: unit)
      let readable = model.versions.compactMap { v in v.schema.map { (v.name, $0) } }
      for (name, schema) in readable {
        out.append(Drawn(name: "\(unit) [\(name)]", diagram: Diagram(schema: schema), schemas: [schema]))
      }
      for (a, b) in zip(readable, readable.dropFirst()) {
        out.append(
          Drawn(name: "\(unit) [\(a.0) → \(b.0)]", diagram: Diagram(migrationFrom: a.1, to: b.1), schemas: [a.1, b.1]))
      }
    }
    return out
  }

  func testDotParsesForEveryCorpusModel() throws {
    let drawn = try Self.corpusDiagrams()
    XCTAssertGreaterThan(drawn.count, 200)
    let texts = drawn.map { DotWriter.write($0.diagram) }
    // One dot process reads them all (one graph after another); when it fails, each is
    // read alone to name the ones at fault.
    guard try DiagramFixtures.dotFailure(texts.joined()) != nil else { return }
    for (d, text) in zip(drawn, texts) {
      if let failure = try DiagramFixtures.dotFailure(text) { XCTFail("\(d.name): \(failure)") }
    }
  }

  func testMermaidIsWellFormedForEveryCorpusModel() throws {
    for d in try Self.corpusDiagrams() {
      let text = MermaidWriter.write(d.diagram)
      let m: MermaidClassDiagram
      do { m = try MermaidClassDiagram(text) } catch {
        XCTFail("\(d.name): \(error)")
        continue
      }
      let namespaces: [String?] = d.schemas.count == 1 ? [nil] : ["From", "To"]
      for (schema, namespace) in zip(d.schemas, namespaces) {
        for e in schema.entities {
          guard let c = m.class(named: e.name, in: namespace) else {
            XCTFail("\(d.name): no class for \(e.name)")
            continue
          }
          for a in e.attributes where !c.members.contains(where: { $0.hasPrefix(a.name + " : ") }) {
            XCTFail("\(d.name): \(e.name).\(a.name) is not a member")
          }
          for r in e.relationships {
            let role = "\(r.name) \(r.multiplicity) \(r.diagramTags.joined(separator: " "))"
            if !m.relations.contains(where: { $0.leftText.hasPrefix(role) || $0.rightText.hasPrefix(role) }) {
              XCTFail("\(d.name): \(e.name).\(r.name) is on no line")
            }
          }
          if let parent = e.parent,
            !m.inheritance.contains(where: { m.classes[$0.child]?.title == e.name && m.classes[$0.parent]?.title == parent })
          {
            XCTFail("\(d.name): \(e.name) does not inherit from \(parent)")
          }
        }
      }
    }
  }
}
