import Foundation
import SchemaModel
import XCTest

@testable import StoreEngine

/// Every real-world Core Data model of the corpus (shared/corpus/coredata-models, see its
/// MANIFEST.md): each bundle and standalone model imports without a crash, at least 95% of
/// the versions import without errors, and every version that does installs in a fresh
/// in-memory store.
final class CoreDataModelCorpusTests: XCTestCase {
  static var corpusDirectory: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // CoreDataModel
      .deletingLastPathComponent()  // StoreEngineTests
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // repository root
      .deletingLastPathComponent()
      .appendingPathComponent("shared/corpus/coredata-models")
  }

  /// Every `.xcdatamodeld` bundle and every `.xcdatamodel` that is not inside one, sorted.
  static func modelUnits() throws -> [String] {
    let root = corpusDirectory.path
    guard FileManager.default.fileExists(atPath: root) else {
      throw XCTSkip("Core Data model corpus not found at \(root) (it lives beside the repository in shared/corpus)")
    }
    var units: [String] = []
    let walker = FileManager.default.enumerator(atPath: root)
    while let relative = walker?.nextObject() as? String {
      if relative.hasSuffix(".xcdatamodeld") {
        units.append(root + "/" + relative)
        walker?.skipDescendants()
      } else if relative.hasSuffix(".xcdatamodel") {
        units.append(root + "/" + relative)
        walker?.skipDescendants()
      }
    }
    return units.sorted()
  }

  func testEveryCorpusModelImportsAndInstalls() throws {
    let units = try Self.modelUnits()
    XCTAssertGreaterThan(units.count, 100)
    var versions = 0
    var clean = 0
    var failures: [String] = []
    var installFailures: [String] = []
    var warnings = 0
    let started = DispatchTime.now().uptimeNanoseconds
    var imported: [ImportedModel] = []
    for unit in units {
      imported.append(try CoreDataModelImporter.importModel(at: unit))
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
    for model in imported {
      for issue in model.issues where issue.severity == .error { failures.append("  \(issue)") }
      for version in model.versions {
        versions += 1
        warnings += version.warnings.count
        guard let schema = version.schema else {
          let reasons = version.errors.map { "    \($0)" }.joined(separator: "\n")
          failures.append("  \(version.file):\n\(reasons)")
          continue
        }
        clean += 1
        let store = try Store(path: nil)
        do {
          _ = try store.define(schema.json)
        } catch {
          installFailures.append("  \(version.file): \(error)")
        }
      }
    }
    let rate = Double(clean) / Double(versions)
    print(
      "Core Data corpus: \(units.count) models, \(versions) versions, \(clean) without errors (\(Int(rate * 1000) / 10)%), "
        + "\(warnings) warnings; import of the whole corpus took \(Int(elapsed)) ms")
    if !failures.isEmpty { print("Versions with errors:\n" + failures.joined(separator: "\n")) }
    XCTAssertGreaterThanOrEqual(rate, 0.95, "fewer than 95% of the corpus versions import without errors")
    XCTAssertEqual(installFailures, [], "imported schemas that a fresh store refused:\n" + installFailures.joined(separator: "\n"))
    XCTAssertGreaterThan(versions, 280)
  }

  /// Code for every corpus model without errors in every target, checked by the toolchains
  /// in one run each (swiftc -parse, tsc --noEmit, py_compile); skipped per missing tool.
  func testGeneratedCodeForEveryCorpusModelIsAccepted() throws {
    var byTarget: [CodeGenerator.Target: [CodeGenerator.File]] = [:]
    for unit in try Self.modelUnits() {
      let model = try CoreDataModelImporter.importModel(at: unit)
      guard model.current?.schema != nil else { continue }
      for target in CodeGenerator.Target.allCases {
        byTarget[target, default: []] += try model.generate(target).files
      }
    }
    XCTAssertGreaterThan(byTarget[.swiftdata]?.count ?? 0, 300)
    var checked: [String] = []
    if let swiftc = CodeGeneratorTests.swiftc {
      // One file: a swiftc job per file takes minutes, one parse of everything a second
      // (Swift allows imports anywhere at file scope; -parse does not resolve names).
      let files = byTarget[.swiftdata]! + byTarget[.coredata]!
      let joined = CodeGenerator.File(name: "Corpus.swift", text: files.map(\.text).joined(separator: "\n"))
      if let failure = try CodeGeneratorTests.check([joined], [swiftc, "-parse"]) { XCTFail(String(failure.prefix(4000))) }
      checked.append("\(files.count) Swift files")
    }
    if let tsc = CodeGeneratorTests.tsc {
      let files = byTarget[.typescript]!
      if let failure = try CodeGeneratorTests.check(files, [tsc, "--noEmit", "--strict"], numbered: true) {
        XCTFail(String(failure.prefix(4000)))
      }
      checked.append("\(files.count) TypeScript files")
    }
    if let python = CodeGeneratorTests.python {
      let files = byTarget[.python]!
      if let failure = try CodeGeneratorTests.check(files, [python, "-m", "py_compile"], numbered: true) {
        XCTFail(String(failure.prefix(4000)))
      }
      checked.append("\(files.count) Python files")
    }
    print("generated code accepted: " + checked.joined(separator: ", "))
  }

  /// Every multi-version bundle gives a chain (its error-free versions in natural name
  /// order) whose every step `SchemaDiff` classifies as lightweight or custom.
  func testEveryMultiVersionBundleGivesAClassifiedMigrationChain() throws {
    var bundles = 0
    var lightweight = 0
    var custom = 0
    var changes = 0
    for unit in try Self.modelUnits() where unit.hasSuffix(".xcdatamodeld") {
      let chain = try CoreDataModelImporter.importModel(at: unit).versions.compactMap(\.schema)
      guard chain.count > 1 else { continue }
      bundles += 1
      for k in 1..<chain.count {
        let diff = SchemaDiff(from: chain[k - 1], to: chain[k])
        XCTAssertTrue(diff.changes.allSatisfy { !$0.message.isEmpty }, unit)
        changes += diff.changes.count
        if diff.changes.allSatisfy({ $0.lightweight && $0.condition == nil }) { lightweight += 1 } else { custom += 1 }
      }
    }
    print(
      "migration chains: \(bundles) bundles, \(lightweight + custom) steps (\(lightweight) lightweight, \(custom) custom), \(changes) changes"
    )
    XCTAssertGreaterThanOrEqual(bundles, 20)
    XCTAssertGreaterThan(lightweight, 0)
  }
}
