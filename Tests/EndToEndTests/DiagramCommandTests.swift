import Foundation
import JSONCore
import TestSupport
import XCTest

/// `modelstore diagram` on a store, a schema file, a plan file, a Core Data model and a
/// Core Data store; pictures through Graphviz's dot (skipped without it); `model.diagram`'s
/// SVG and its error when dot is missing.
final class DiagramCommandTests: XCTestCase {
  private var dir: TemporaryDirectory!
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/CoreDataModels").path
  static let hasDot = ["/usr/bin/dot", "/usr/local/bin/dot"].contains { FileManager.default.isExecutableFile(atPath: $0) }

  override func setUpWithError() throws { dir = try TemporaryDirectory() }
  override func tearDown() { dir?.remove() }

  static let v1 = schema(
    entity(
      "Task", [attr("title", "string"), attr("done", "bool", default: false)],
      relationships: [rel("category", "Category", inverse: "tasks")]),
    entity("Category", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]), version: "1")
  static let v2 = schema(
    entity(
      "Task", [attr("title", "string"), attr("isDone", "bool", default: false, originalName: "done")],
      relationships: [rel("category", "Category", inverse: "tasks")]),
    entity(
      "Category", [attr("name", "string")], relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: "cascade")]),
    version: "2")

  /// A store that held v1 then v2.
  private func store() throws -> String {
    let path = dir.file("tasks.store")
    let input =
      [
        requestLine(1, "model.define", ["schema": Self.v1]), requestLine(2, "model.define", ["schema": Self.v2]),
      ].joined(separator: "\n") + "\n"
    let r = try runModelstore(["serve", "--store", path], input: input)
    XCTAssertEqual(r.status, 0, r.stderr)
    return path
  }

  func testAStoreItsVersionsAndAPlan() throws {
    let path = try store()
    let current = try runModelstore(["diagram", path])
    XCTAssertEqual(current.status, 0, current.stderr)
    XCTAssertTrue(current.stdout.hasPrefix("classDiagram\n%% schema version 2 (drawn by modelstore)\n"), current.stdout)
    XCTAssertTrue(current.stdout.contains("Category \"category 0..1 nullify\" *-- \"tasks 0..* cascade\" Task\n"), current.stdout)
    XCTAssertEqual(current.stderr, "")
    let first = try runModelstore(["diagram", path, "--version", "1", "--format", "dot"])
    XCTAssertEqual(first.status, 0, first.stderr)
    XCTAssertTrue(first.stdout.contains("label=<<B>schema version 1</B>>"), first.stdout)
    XCTAssertTrue(first.stdout.contains("<TD ALIGN=\"LEFT\">done</TD>"), first.stdout)
    let plan = try runModelstore(["diagram", path, "--plan", "1", "2"])
    XCTAssertEqual(plan.status, 0, plan.stderr)
    XCTAssertTrue(plan.stdout.contains("isDone : bool [#126; renamed from done]"), plan.stdout)
    XCTAssertTrue(plan.stdout.contains("[#126; delete rule nullify → cascade]"), plan.stdout)
    // Errors name the command's flags.
    let unknown = try runModelstore(["diagram", path, "--version", "7"])
    XCTAssertEqual(unknown.status, 1)
    XCTAssertEqual(unknown.stderr, "modelstore diagram: --version: '\(path)' has no version '7' (its versions: '1', '2')\n")
    let badPlan = try runModelstore(["diagram", path, "--plan", "1", "9"])
    XCTAssertEqual(badPlan.status, 1)
    XCTAssertTrue(badPlan.stderr.hasPrefix("modelstore diagram: --plan TO: '\(path)' has no version '9'"), badPlan.stderr)
  }

  func testSchemaAndPlanFilesAndStandardInput() throws {
    let schemaFile = dir.file("v2.json")
    try JSONWriter.encodeString(Self.v2).write(toFile: schemaFile, atomically: true, encoding: .utf8)
    let fromFile = try runModelstore(["diagram", schemaFile])
    XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
    let fromStdin = try runModelstore(["diagram", "-"], input: JSONWriter.encodeString(Self.v2))
    XCTAssertEqual(fromStdin.stdout, fromFile.stdout)
    let planFile = dir.file("plan.json")
    try JSONWriter.encodeString(.object(["schemas": .array([Self.v1, Self.v2])])).write(toFile: planFile, atomically: true, encoding: .utf8)
    let plan = try runModelstore(["diagram", planFile, "--plan", "1", "2", "--format", "dot"])
    XCTAssertEqual(plan.status, 0, plan.stderr)
    XCTAssertTrue(plan.stdout.contains("subgraph \"cluster_to\""), plan.stdout)
    // A schema with errors says which, in the file's terms.
    let bad = dir.file("bad.json")
    try #"{"entities":[{"name":"task"}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
    let refused = try runModelstore(["diagram", bad])
    XCTAssertEqual(refused.status, 1)
    XCTAssertTrue(
      refused.stderr.contains("version '1' of '\(bad)' has 1 problem(s); first: entity name 'task' must start with an uppercase letter"),
      refused.stderr)
  }

  func testACoreDataModelAsPictures() throws {
    try XCTSkipUnless(Self.hasDot, "Graphviz's dot is not installed (Debian: apt-get install graphviz)")
    let bundle = Self.fixtures + "/Tasks.xcdatamodeld"
    let png = dir.file("plan.png")
    let r = try runModelstore(["diagram", bundle, "--plan", "Tasks 2", "Tasks 3", "--format", "png", "--out", png])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(r.stderr, "wrote \(png) (png, Tasks 2 → Tasks 3)\n")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
    XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    // An existing file is kept unless --force.
    let again = try runModelstore(["diagram", bundle, "--format", "svg", "--out", png])
    XCTAssertEqual(again.status, 1)
    XCTAssertEqual(again.stderr, "modelstore diagram: --out: '\(png)' exists; give --force to replace it\n")
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: png)), bytes)
    let forced = try runModelstore(["diagram", bundle, "--format", "svg", "--out", png, "--force"])
    XCTAssertEqual(forced.status, 0, forced.stderr)
    let svg = try String(contentsOfFile: png, encoding: .utf8)
    XCTAssertTrue(svg.contains("<svg") && svg.contains(">CDCategory</text>"), svg)
    XCTAssertTrue(svg.contains("schema version Tasks 3"), "the bundle's version name is the title")
  }

  /// Without dot on PATH, svg and png fail saying which package to install; text works.
  func testMissingDot() throws {
    let noDot = ["PATH": "/nonexistent"]
    let bundle = Self.fixtures + "/Tasks.xcdatamodeld"
    let r = try runModelstore(["diagram", bundle, "--format", "svg"], environment: noDot)
    XCTAssertEqual(r.status, 1)
    XCTAssertEqual(
      r.stderr,
      "modelstore diagram: drawing svg needs Graphviz's 'dot', which is not on PATH; install the package 'graphviz' (apt-get install graphviz), or ask for mermaid or dot text\n"
    )
    XCTAssertEqual(try runModelstore(["diagram", bundle, "--format", "dot"], environment: noDot).status, 0)
    // The server answers -32017 graphviz, with the package in its data.
    let reply = try runModelstore(
      ["serve", "--memory"], input: requestLine(1, "model.diagram", ["format": "svg", "schema": Self.v1]) + "\n", environment: noDot)
    let error = try JSONParser.parse(reply.stdout)["error"]
    XCTAssertEqual(error?["code"], -32017)
    XCTAssertEqual(error?["data"]?["kind"], "graphviz")
    XCTAssertEqual(error?["data"]?["reason"], "notInstalled")
    XCTAssertEqual(error?["data"]?["package"], "graphviz")
  }

  func testTheServerDrawsSVG() throws {
    try XCTSkipUnless(Self.hasDot, "Graphviz's dot is not installed (Debian: apt-get install graphviz)")
    let server = try ServerProcess()
    defer {
      server.closeInput()
      _ = server.waitForExit()
    }
    let reply = try server.request("model.diagram", ["format": "svg", "schema": Self.v2])
    let text = reply["result"]?["text"]?.stringValue ?? ""
    XCTAssertTrue(text.contains("<svg") && text.contains(">isDone</text>"), text)
    XCTAssertEqual(reply["result"]?["kind"], "model")
  }

  /// `measure` runs a dry run, which writes inside the transaction it rolls back: a store
  /// opened read-only answers readOnly (not an internal error).
  func testMeasureNeedsAWritableStore() throws {
    let path = try store()
    let request = requestLine(1, "model.diagram", ["to": Self.v1, "measure": true]) + "\n"
    let readOnly = try runModelstore(["serve", "--store", path, "--read-only"], input: request)
    XCTAssertEqual(try JSONParser.parse(readOnly.stdout)["error"]?["data"]?["kind"], "readOnly", readOnly.stdout)
    let writable = try runModelstore(["serve", "--store", path], input: request)
    let result = try JSONParser.parse(writable.stdout)["result"]
    XCTAssertEqual(result?["kind"], "migration", writable.stdout)
    XCTAssertEqual(result?["dataLoss"], .array([]))
  }

  func testACoreDataStore() throws {
    let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("shared/corpus/coredata-stores/gilpa__iphone_sqlite_test/CoreDataBooks.sqlite")
      .path
    try XCTSkipUnless(FileManager.default.fileExists(atPath: corpus), "the corpus store \(corpus) is not there (shared/corpus)")
    let r = try runModelstore(["diagram", corpus, "--coredata"])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(r.stdout.contains("class Book {"), r.stdout)
    // Given as a ModelStore file, it is refused with a hint naming --coredata.
    let refused = try runModelstore(["diagram", corpus])
    XCTAssertEqual(refused.status, 1)
    XCTAssertTrue(refused.stderr.contains("`modelstore diagram --coredata \(corpus)`"), refused.stderr)
  }

  func testWrongArguments() throws {
    for args in [
      ["diagram"], ["diagram", "x.store", "--format", "gif"], ["diagram", "x.store", "--version", "1", "--plan", "1", "2"],
      ["diagram", "x.store", "--plan", "1"], ["diagram", "x.store", "--force"], ["diagram", "a", "b"], ["diagram", "x.json", "--coredata"],
    ] {
      let r = try runModelstore(args)
      XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
      XCTAssertTrue(r.stderr.hasSuffix("Try 'modelstore diagram --help'.\n"), r.stderr)
    }
    let help = try runModelstore(["diagram", "--help"])
    XCTAssertEqual(help.status, 0)
    XCTAssertTrue(help.stdout.contains("--plan FROM TO"), help.stdout)
  }
}
