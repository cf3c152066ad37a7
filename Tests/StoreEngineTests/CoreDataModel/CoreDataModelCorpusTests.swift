import CoreDataTooling
import Foundation
import SchemaModel
import XCTest

@testable import StoreEngine

/// Every real-world Core Data model of the corpus (shared/corpus/coredata-models, see its
/// MANIFEST.md): each bundle and standalone model imports without a crash, at least 95% of
/// the versions import without errors, and every version that does installs in a fresh
/// in-memory store; every multi-version bundle gives a migration chain the engine classifies.
/// (The code generated for the corpus is checked in CodeGenerationTests.)
final class CoreDataModelCorpusTests: XCTestCase {
  func testEveryCorpusModelImportsAndInstalls() throws {
    let units = try CoreDataModelCorpus.modelUnits()
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
