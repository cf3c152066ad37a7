import JSONCore
import XCTest

@testable import SchemaModel

final class ModelGraphTests: XCTestCase {
  private func graph() -> ModelGraph {
    let (s, issues) = SchemaValidator.check(
      schema(
        entity("Vehicle", abstract: true, [attr("wheels", "int")], relationships: [rel("owner", "Person", inverse: "vehicles")]),
        entity("Car", parent: "Vehicle", [attr("seats", "int")], uniqueness: [["seats", "wheels"]]),
        entity("SportsCar", parent: "Car", [attr("topSpeed", "int", unique: true)]),
        entity("Truck", parent: "Vehicle", [attr("load", "double")]),
        entity("Person", [attr("name", "string")], relationships: [rel("vehicles", "Vehicle", inverse: "owner", toMany: true)]),
        entity("Note", relationships: [rel("about", "Vehicle")])))
    assertNoErrors(issues)
    return ModelGraph(s)
  }

  func testInheritanceChains() throws {
    let g = graph()
    let sports = try XCTUnwrap(g["SportsCar"])
    XCTAssertEqual(sports.ancestors.map(\.name), ["Car", "Vehicle"], "nearest first")
    XCTAssertEqual(sports.root.name, "Vehicle")
    XCTAssertFalse(sports.isRoot)
    XCTAssertEqual(sports.attributes.map(\.name), ["wheels", "seats", "topSpeed"], "inherited first")
    XCTAssertEqual(sports.relationships.map(\.name), ["owner"])
    XCTAssertEqual(sports.uniqueness, [["seats", "wheels"], ["topSpeed"]])
    let vehicle = try XCTUnwrap(g["Vehicle"])
    XCTAssertTrue(vehicle.isRoot)
    XCTAssertEqual(vehicle.descendants.map(\.name), ["Car", "SportsCar", "Truck"])
    XCTAssertEqual(vehicle.concreteNames, ["Car", "SportsCar", "Truck"], "abstract excluded")
    XCTAssertEqual(g["Car"]?.concreteNames, ["Car", "SportsCar"])
    XCTAssertEqual(vehicle.hierarchy.map(\.name), ["Vehicle", "Car", "SportsCar", "Truck"])
    XCTAssertEqual(g["Truck"]?.hierarchy.first?.name, "Vehicle", "a sub-entity's hierarchy starts at its root")
    XCTAssertEqual(Set(g["Truck"]?.hierarchy.map(\.name) ?? []), ["Vehicle", "Car", "SportsCar", "Truck"])
    XCTAssertTrue(vehicle.includes(sports))
    XCTAssertFalse(sports.includes(vehicle))
    XCTAssertFalse(g["Truck"]!.includes(sports))
    XCTAssertEqual(g.ordered.map(\.name), ["Vehicle", "Car", "SportsCar", "Truck", "Person", "Note"])
  }

  func testHierarchyOrderIsDeterministicForEveryMember() {
    // `hierarchy` drives the column order of a hierarchy's table and the names of its
    // indexes, so it must not depend on dictionary iteration order: root first, then the
    // root's descendants by name, the same seen from every member.
    var wrong: [String] = []
    for k in 0..<12 {
      let children = ["Kid\(k)a", "Kid\(k)m", "Kid\(k)c", "Kid\(k)x", "Kid\(k)b"]
      var ents = [entity("Root\(k)", [attr("r", "int")])]
      for c in children { ents.append(entity(c, parent: "Root\(k)")) }
      ents.append(entity("Grand\(k)", parent: children[3]))
      let g = ModelGraph(SchemaValidator.check(.object(["entities": .array(ents)])).0)
      let expected = ["Root\(k)"] + (children + ["Grand\(k)"]).sorted()
      for m in g.ordered {
        let seen = m.hierarchy.map(\.name)
        if seen != expected { wrong.append("\(m.name): \(seen)") }
        XCTAssertEqual(m.descendants.map(\.name), m.descendants.map(\.name).sorted())
      }
    }
    XCTAssertEqual(wrong, [], "expected root first, then the root's descendants by name, from every member")
  }

  func testInverseLookups() throws {
    let g = graph()
    let owner = try XCTUnwrap(g["Car"]?.relationship("owner"))
    XCTAssertEqual(g.inverse(of: owner)?.name, "vehicles")
    XCTAssertEqual(g.inverse(of: g["Person"]!.relationship("vehicles")!)?.name, "owner")
    XCTAssertNil(g.inverse(of: g["Note"]!.relationship("about")!))
    let incoming = g.incomingWithoutInverse(to: g["Truck"]!)
    XCTAssertEqual(incoming.map { "\($0.0.name).\($0.1.name)" }, ["Note.about"], "points at an ancestor of Truck")
    XCTAssertTrue(g.incomingWithoutInverse(to: g["Person"]!).isEmpty)
  }

  func testNamesRules() {
    XCTAssertTrue(Names.isIdentifier("a1_b"))
    XCTAssertFalse(Names.isIdentifier("1a"))
    XCTAssertFalse(Names.isIdentifier("é"))
    XCTAssertFalse(Names.isIdentifier(""))
    XCTAssertNil(Names.entityNameProblem("Task"))
    XCTAssertNotNil(Names.entityNameProblem("sqlite_x"))
    XCTAssertNil(Names.propertyNameProblem("isDone"))
    XCTAssertNotNil(Names.propertyNameProblem("hashValue"))
  }
}
