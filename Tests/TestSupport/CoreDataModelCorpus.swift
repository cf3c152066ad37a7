import Foundation
import XCTest

/// The real-world Core Data models beside the repository (shared/corpus/coredata-models,
/// see its MANIFEST.md), for the tests of the importer, the engine and the generators.
public enum CoreDataModelCorpus {
  public static var corpusDirectory: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // TestSupport
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // repository root
      .deletingLastPathComponent()
      .appendingPathComponent("shared/corpus/coredata-models")
  }

  /// Every `.xcdatamodeld` bundle and every `.xcdatamodel` that is not inside one, sorted.
  public static func modelUnits() throws -> [String] {
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
}
