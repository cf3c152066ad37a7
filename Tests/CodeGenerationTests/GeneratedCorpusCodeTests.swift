import CoreDataTooling
import Foundation
import TestSupport
import XCTest

@testable import CodeGeneration

/// The code generated for every real-world Core Data model of the corpus
/// (shared/corpus/coredata-models) and of Tests/Fixtures/CoreDataWild is accepted by the
/// toolchains, and its SwiftData code type-checks against SwiftData's API for the deployment
/// target it implies (`SwiftDataTypeChecker`).
final class GeneratedCorpusCodeTests: XCTestCase {
  /// Code for every model without errors in every target, checked by the toolchains in one run
  /// each (swiftc -parse, tsc --noEmit, py_compile); skipped per missing tool.
  func testGeneratedCodeForEveryCorpusModelIsAccepted() throws {
    let units = CoreDataModelCorpus.availableUnits()
    guard !units.isEmpty else { throw XCTSkip("no model corpus found") }
    var byTarget: [CodeGenerator.Target: [CodeGenerator.File]] = [:]
    for unit in units {
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

  /// The SwiftData code of every model whose current version imports, type-checked unit by
  /// unit (a bundle's versioned schemas and migration plan are one unit).
  func testGeneratedSwiftDataOfEveryCorpusModelTypeChecks() throws {
    let units = CoreDataModelCorpus.availableUnits()
    guard !units.isEmpty else { throw XCTSkip("no model corpus found") }
    var checkUnits: [SwiftDataTypeChecker.Unit] = []
    for unit in units {
      let model = try CoreDataModelImporter.importModel(at: unit)
      guard model.current?.schema != nil else { continue }
      checkUnits.append(.init(name: unit, files: try model.generate(.swiftdata).files))
    }
    let result = try SwiftDataTypeChecker.check(checkUnits)
    let report = result.failures.sorted { $0.key < $1.key }.map { "\($0.key):\n  " + $0.value.prefix(5).joined(separator: "\n  ") }
    XCTAssert(result.failures.isEmpty, "\(result.failures.count) of \(result.checked) units fail:\n" + report.joined(separator: "\n"))
    print("SwiftData type check: \(result.checked - result.failures.count) of \(result.checked) units pass")
  }

  /// Code generated elsewhere (`modelstore xcdatamodel UNIT --generate swiftdata --out DIR/N`,
  /// say by another build), one unit per subdirectory of `MODELSTORE_SWIFTDATA_CHECK_DIR`:
  /// how many type-check. Skipped unless the variable is set.
  func testSwiftDataInAGivenDirectoryTypeChecks() throws {
    guard let root = ProcessInfo.processInfo.environment["MODELSTORE_SWIFTDATA_CHECK_DIR"] else {
      throw XCTSkip("set MODELSTORE_SWIFTDATA_CHECK_DIR to check the units generated into its subdirectories")
    }
    var units: [SwiftDataTypeChecker.Unit] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: root).sorted() {
      let dir = root + "/" + name
      let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".swift") }.sorted()
      units.append(
        .init(name: name, files: try files.map { .init(name: $0, text: try String(contentsOfFile: dir + "/" + $0, encoding: .utf8)) }))
    }
    let result = try SwiftDataTypeChecker.check(units)
    let compilerOnly = result.failures.filter { $0.value.contains { $0.contains(": error: ") } }
    for (unit, errors) in result.failures.sorted(by: { $0.key < $1.key }) { print("\(unit): \(errors.first ?? "")") }
    print(
      "SwiftData type check of \(root): \(result.checked - result.failures.count) of \(result.checked) units pass; "
        + "\(compilerOnly.count) fail with compiler errors")
  }
}
