import Diagrams
import Foundation
import JSONCore
import SchemaModel
import TestSupport
import XCTest

/// Schemas the diagram tests draw, and `dot` for checking that Graphviz reads the DOT.
enum DiagramFixtures {
  /// The seeds' model (seed 000's SwiftData `Task` and `Category`): the picture in the README.
  static var seedsSchemaJSON: JSONValue {
    schema(
      entity(
        "Category",
        [
          attr("id", "uuid", default: ["generate": "uuid"], unique: true), attr("name", "string"), attr("color", "string", default: "blue"),
        ],
        relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: "cascade")]),
      entity(
        "Task",
        [
          attr("id", "uuid", default: ["generate": "uuid"], unique: true), attr("title", "string", default: ""),
          attr("isCompleted", "bool", default: false), attr("createdAt", "date", default: ["generate": "now"], indexed: true),
          attr("priority", "int", default: 0),
        ],
        relationships: [rel("category", "Category", inverse: "tasks")]),
      version: "1")
  }

  static func decode(_ json: JSONValue) -> Schema {
    let (schema, issues) = SchemaValidator.check(json)
    let errors = issues.filter { $0.severity == .error }
    precondition(errors.isEmpty, "fixture schema has errors: \(errors.map(\.message))")
    return schema
  }

  static var seeds: Schema { decode(seedsSchemaJSON) }

  /// Inheritance, an abstract root, every delete rule, counts, ordered, a one-way
  /// relationship, a self-relationship and compound constraints.
  static var library: Schema {
    decode(
      schema(
        entity(
          "Item", abstract: true, [attr("title", "string"), attr("note", "string", optional: true, transient: true)],
          relationships: [rel("shelf", "Shelf", inverse: "items", optional: false)], uniqueness: [["title", "shelf"]]),
        entity("Book", parent: "Item", [attr("isbn", "string", unique: true)], indexes: [["title", "isbn"]]),
        entity(
          "Shelf", [attr("label", "string")],
          relationships: [
            rel("items", "Item", inverse: "shelf", toMany: true, ordered: true, deleteRule: "deny", min: 1, max: 50),
            rel("next", "Shelf", inverse: "previous", deleteRule: "noAction"), rel("previous", "Shelf", inverse: "next"),
            rel("featured", "Book", toMany: true, deleteRule: "cascade"),
          ]),
        version: "2.1"))
  }

  static let dot: String? = Graphviz.locate()

  /// Runs `dot -Tsvg` on `text`; the failure (status and stderr) or nil. Skips without dot.
  static func dotFailure(_ text: String) throws -> String? {
    guard dot != nil else { throw XCTSkip("Graphviz's dot is not on PATH (Debian: apt-get install graphviz)") }
    do {
      _ = try Graphviz.render(text, as: .svg)
      return nil
    } catch let f as Graphviz.Failure {
      return f.message
    }
  }
}

extension DiagramFixtures {
  /// Version 1 of a migration: Task, Category and Note.
  static var migrationFrom: Schema {
    decode(
      schema(
        entity(
          "Task",
          [
            attr("title", "string"), attr("done", "bool", default: false), attr("priority", "int16", default: 0),
            attr("notes", "string", optional: true),
          ],
          relationships: [rel("category", "Category", inverse: "tasks")]),
        entity(
          "Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
        entity("Note", [attr("text", "string")]),
        version: "1.0"))
  }

  /// Version 2: `done` renamed to `isCompleted`, `priority` widened to int32, `notes` removed, `Category`
  /// renamed to `Group` (its `tasks` now cascade), `Note` removed, `Tag` added, a
  /// required `color` without a default.
  static var migrationTo: Schema {
    decode(
      schema(
        entity(
          "Task",
          [
            attr("title", "string"), attr("isCompleted", "bool", default: false, originalName: "done"),
            attr("priority", "int32", default: 0),
          ],
          relationships: [rel("group", "Group", inverse: "tasks", originalName: "category")]),
        entity(
          "Group", [attr("name", "string", unique: true), attr("color", "string")],
          relationships: [rel("tasks", "Task", inverse: "group", toMany: true, deleteRule: "cascade")], originalName: "Category"),
        entity("Tag", [attr("label", "string")]),
        version: "2.0"))
  }
}
