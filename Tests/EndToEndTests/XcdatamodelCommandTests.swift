import Foundation
import JSONCore
import TestSupport
import XCTest

/// `modelstore xcdatamodel`: the schema, report, audit and generated files on stdout or in
/// a directory, findings on stderr, and the exit status.
final class XcdatamodelCommandTests: XCTestCase {
  static let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // EndToEndTests
    .deletingLastPathComponent()  // Tests
    .appendingPathComponent("Fixtures/CoreDataModels").path

  override func setUpWithError() throws { try TestEngine.storeIndependent("model files in, schemas and code out") }

  func testPrintsTheCurrentSchemaAndFindings() throws {
    let r = try runModelstore(["xcdatamodel", Self.fixtures + "/Features.xcdatamodel"])
    XCTAssertEqual(r.status, 0, r.stderr)
    let schema = try JSONParser.parse(r.stdout)
    XCTAssertEqual(schema["version"], "7")
    XCTAssertEqual(schema["entities"]?.arrayValue?.count, 4)
    XCTAssertTrue(
      r.stderr.contains("Features.xcdatamodel/contents:21:9: warning: derived attribute 'Document.titleUpper'"), r.stderr)
    XCTAssertTrue(r.stderr.hasSuffix("modelstore xcdatamodel: 1 version; current 'Features': 0 errors, 14 warnings\n"), r.stderr)
  }

  /// A bundle whose old version has an error and whose current version has none: the
  /// schema is printed and the command succeeds (`> schema.json` works in CI); the summary
  /// names the version with the error; `--model-version` prints (and answers for) another
  /// version; `--version-order` gives the order (issue #16, causes 6 and 8).
  func testTheStatusIsThePrintedVersionsAndErrorsAreAttributedToTheirVersion() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let bundle = dir.file("Notes.xcdatamodeld")
    for (name, body) in [
      ("Notes", "<entity name=\"Note\"><attribute name=\"text\" attributeType=\"Quaternion\"/></entity>"),
      ("Notes 2", "<entity name=\"Note\"><attribute name=\"text\" optional=\"YES\" attributeType=\"String\"/></entity>"),
    ] {
      try FileManager.default.createDirectory(atPath: bundle + "/\(name).xcdatamodel", withIntermediateDirectories: true)
      try "<model>\(body)</model>".write(toFile: bundle + "/\(name).xcdatamodel/contents", atomically: true, encoding: .utf8)
    }
    try "<plist><dict><key>_XCCurrentVersionName</key><string>Notes 2.xcdatamodel</string></dict></plist>".write(
      toFile: bundle + "/.xccurrentversion", atomically: true, encoding: .utf8)
    let r = try runModelstore(["xcdatamodel", bundle])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(try JSONParser.parse(r.stdout)["version"], "Notes 2")
    XCTAssertTrue(
      r.stderr.contains("Notes.xcdatamodel/contents:1:28: error: attribute 'Note.text' has unknown attributeType 'Quaternion'"), r.stderr)
    XCTAssertTrue(
      r.stderr.hasSuffix(
        "modelstore xcdatamodel: 2 versions (order by names, high confidence); current 'Notes 2': 0 errors, 0 warnings; "
          + "other versions with errors: 'Notes' 1\n"), r.stderr)
    let old = try runModelstore(["xcdatamodel", bundle, "--model-version", "Notes"])
    XCTAssertEqual(old.status, 1)
    XCTAssertEqual(old.stdout, "")
    XCTAssertTrue(old.stderr.hasSuffix("printed 'Notes': 1 error, 0 warnings; other versions: no errors\n"), old.stderr)
    let given = try runModelstore(["xcdatamodel", bundle, "--report", "--version-order", "Notes 2,Notes"])
    XCTAssertEqual(given.status, 0, given.stderr)
    XCTAssertEqual(
      try JSONParser.parse(given.stdout)["versions"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["Notes 2", "Notes"])
    let wrong = try runModelstore(["xcdatamodel", bundle, "--version-order", "Notes"])
    XCTAssertEqual(wrong.status, 1)
    XCTAssertTrue(wrong.stderr.contains("--version-order: the version order leaves out 'Notes 2'"), wrong.stderr)
    let unknown = try runModelstore(["xcdatamodel", bundle, "--model-version", "Notes 9"])
    XCTAssertTrue(
      unknown.stderr.contains("--model-version: '\(bundle)' has no version 'Notes 9' (its versions: 'Notes', 'Notes 2')"), unknown.stderr)
  }

  func testReportAuditAndErrors() throws {
    let report = try runModelstore(["xcdatamodel", Self.fixtures + "/Tasks.xcdatamodeld", "--report"])
    XCTAssertEqual(report.status, 0)
    let json = try JSONParser.parse(report.stdout)
    XCTAssertEqual(json["current"], "Tasks 3")
    XCTAssertEqual(json["versions"]?.arrayValue?.count, 3)
    let audit = try runModelstore([
      "xcdatamodel", Self.fixtures + "/Tasks.xcdatamodeld", "--audit", "--cloudkit", "--compare",
      Self.fixtures + "/Tasks.xcdatamodeld/Tasks 2.xcdatamodel",
    ])
    XCTAssertEqual(audit.status, 0, audit.stderr)
    let auditJSON = try JSONParser.parse(audit.stdout)
    XCTAssertEqual(auditJSON["cloudKit"], true)
    XCTAssertEqual(auditJSON["coexistence"]?["compatible"], false)
    let legacy = try runModelstore(["xcdatamodel", Self.fixtures + "/Legacy.xcdatamodeld"])
    XCTAssertEqual(legacy.status, 1)
    XCTAssertEqual(legacy.stdout, "")
    XCTAssertTrue(legacy.stderr.contains("error: an Xcode 3 model"), legacy.stderr)
    let missing = try runModelstore(["xcdatamodel", "/no/such/Model.xcdatamodeld"])
    XCTAssertEqual(missing.status, 1)
    XCTAssertTrue(missing.stderr.contains("no file or directory at '/no/such/Model.xcdatamodeld'"), missing.stderr)
    for args in [
      ["xcdatamodel"], ["xcdatamodel", "x", "--generate", "java"], ["xcdatamodel", "x", "--out", "d"], ["xcdatamodel", "x", "--cloudkit"],
    ] {
      XCTAssertEqual(try runModelstore(args).status, 2, "\(args)")
    }
  }

  func testGeneratesIntoADirectoryOrToStdout() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let out = dir.file("gen")
    let r = try runModelstore(["xcdatamodel", Self.fixtures + "/Tasks.xcdatamodeld", "--generate", "swiftdata", "--out", out])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: out).sorted(),
      ["TasksMigrationPlan.swift", "TasksSchemaV1.swift", "TasksSchemaV2.swift", "TasksSchemaV3.swift"])
    let printed = try runModelstore(["xcdatamodel", Self.fixtures + "/Features.xcdatamodel", "--generate", "python"])
    XCTAssertEqual(printed.status, 0)
    XCTAssertTrue(printed.stdout.hasPrefix("==> models.py <==\n\"\"\"Generated by modelstore"), printed.stdout)
  }
}
