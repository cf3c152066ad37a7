import CoreDataTooling
import Foundation
import SchemaModel
import XCTest

@testable import StoreEngine

/// Every real-world Core Data model of the corpus (shared/corpus/coredata-models, see its
/// MANIFEST.md) and, when present, of `Tests/Fixtures/CoreDataWild` (collected by another
/// part of issue #16, with its own MANIFEST): each bundle and standalone model imports
/// without a crash, at least 99% of the versions import without errors (the rest are
/// listed with their reason), and every version that does installs in a fresh in-memory
/// store; every multi-version bundle gives a migration chain the engine classifies.
/// (The code generated for the corpus is checked in CodeGenerationTests.)
final class CoreDataModelCorpusTests: XCTestCase {
  /// Imports `units`, installs every clean version, and asserts the rate; returns the
  /// number of versions.
  @discardableResult
  private func checkImportRate(_ units: [String], corpus: String) throws -> Int {
    var versions = 0
    var clean = 0
    var failures: [String] = []
    var installFailures: [String] = []
    var warnings = 0
    let started = DispatchTime.now().uptimeNanoseconds
    var imported: [ImportedModel] = []
    for unit in units { imported.append(try CoreDataModelImporter.importModel(at: unit)) }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
    var bundleErrors: [String] = []
    for model in imported {
      for issue in model.issues where issue.severity == .error { bundleErrors.append("  \(issue)") }
      for version in model.versions {
        versions += 1
        warnings += version.warnings.count
        guard let schema = version.schema else {
          let reason =
            version.unsupportedReason.map { "unsupported: \($0)" } ?? version.errors.map(\.description).joined(separator: "\n    ")
          failures.append("  \(version.file):\n    \(reason)")
          continue
        }
        clean += 1
        let store = try Store(path: nil)
        do {
          _ = try store.define(schema.json)
        } catch {
          installFailures.append("  \(version.file): \(error)")
        }
        store.close()
      }
    }
    let rate = versions == 0 ? 1 : Double(clean) / Double(versions)
    print(
      "\(corpus): \(units.count) models, \(versions) versions, \(clean) without errors (\(Int(rate * 1000) / 10)%), "
        + "\(warnings) warnings; import of the whole corpus took \(Int(elapsed)) ms")
    if !failures.isEmpty { print("Versions with errors (\(failures.count)):\n" + failures.joined(separator: "\n")) }
    if !bundleErrors.isEmpty { print("Bundles without a usable version (no version counted):\n" + bundleErrors.joined(separator: "\n")) }
    XCTAssertGreaterThanOrEqual(
      rate, 0.99, "\(corpus): fewer than 99% of the versions import without errors:\n" + failures.joined(separator: "\n"))
    XCTAssertEqual(installFailures, [], "imported schemas that a fresh store refused:\n" + installFailures.joined(separator: "\n"))
    return versions
  }

  func testEveryCorpusModelImportsAndInstalls() throws {
    let units = try CoreDataModelCorpus.modelUnits()
    XCTAssertGreaterThan(units.count, 100)
    XCTAssertGreaterThan(try checkImportRate(units, corpus: "Core Data corpus"), 280)
  }

  func testEveryWildModelImportsAndInstalls() throws {
    try checkImportRate(try CoreDataModelCorpus.wildModelUnits(), corpus: "Core Data models in Tests/Fixtures/CoreDataWild")
  }

  /// Every multi-version bundle gives a chain (its error-free versions in natural name
  /// order) whose every step `SchemaDiff` classifies as lightweight or custom.
  func testEveryMultiVersionBundleGivesAClassifiedMigrationChain() throws {
    var bundles = 0
    var lightweight = 0
    var custom = 0
    var changes = 0
    for unit in try CoreDataModelCorpus.modelUnits() where unit.hasSuffix(".xcdatamodeld") {
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
