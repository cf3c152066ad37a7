import CoreDataTooling
import TestSupport
import XCTest

@testable import CodeGeneration

/// The code generated for every real-world Core Data model of the corpus
/// (shared/corpus/coredata-models) is accepted by the toolchains.
final class GeneratedCorpusCodeTests: XCTestCase {
  /// Code for every corpus model without errors in every target, checked by the toolchains
  /// in one run each (swiftc -parse, tsc --noEmit, py_compile); skipped per missing tool.
  func testGeneratedCodeForEveryCorpusModelIsAccepted() throws {
    var byTarget: [CodeGenerator.Target: [CodeGenerator.File]] = [:]
    for unit in try CoreDataModelCorpus.modelUnits() {
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
}
