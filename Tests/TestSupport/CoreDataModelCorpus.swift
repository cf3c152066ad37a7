import Foundation
import XCTest

/// The real-world Core Data models beside the repository (shared/corpus/coredata-models,
/// see its MANIFEST.md) and in `Tests/Fixtures/CoreDataWild` (gathered for issue #16, with
/// its own MANIFEST), for the tests of the importer, the engine and the generators.
public enum CoreDataModelCorpus {
  public static var corpusDirectory: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // TestSupport
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // repository root
      .deletingLastPathComponent()
      .appendingPathComponent("shared/corpus/coredata-models")
  }

  /// `Tests/Fixtures/CoreDataWild`: further real-world models (and stores), links resolved.
  public static var wildDirectory: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // TestSupport
      .deletingLastPathComponent()  // Tests
      .appendingPathComponent("Fixtures/CoreDataWild").resolvingSymlinksInPath()
  }

  /// The units of the shared corpus, sorted; skips the test when the corpus is absent.
  public static func modelUnits() throws -> [String] {
    let root = corpusDirectory.path
    guard FileManager.default.fileExists(atPath: root) else {
      throw XCTSkip("Core Data model corpus not found at \(root) (it lives beside the repository in shared/corpus)")
    }
    return units(under: root)
  }

  /// The units of `Tests/Fixtures/CoreDataWild`, sorted; skips the test when there are none.
  public static func wildModelUnits() throws -> [String] {
    let root = wildDirectory.path
    guard FileManager.default.fileExists(atPath: root) else {
      throw XCTSkip("no collection of further real-world models at \(root) (Tests/Fixtures/CoreDataWild, gathered for issue #16)")
    }
    let units = units(under: root)
    guard !units.isEmpty else { throw XCTSkip("\(root) holds no .xcdatamodeld or .xcdatamodel") }
    return units
  }

  /// The units of both collections that are there (a message for each that is not).
  public static func availableUnits() -> [String] {
    var units: [String] = []
    do { units += try modelUnits() } catch { print("skipped the shared corpus: \(error)") }
    do { units += try wildModelUnits() } catch { print("skipped Tests/Fixtures/CoreDataWild: \(error)") }
    return units
  }

  /// Every `.xcdatamodeld` bundle and every `.xcdatamodel` that is not inside one under
  /// `root`, sorted.
  public static func units(under root: String) -> [String] {
    var units: [String] = []
    let walker = FileManager.default.enumerator(atPath: root)
    while let relative = walker?.nextObject() as? String {
      if relative.hasSuffix(".xcdatamodeld") || relative.hasSuffix(".xcdatamodel") {
        units.append(root + "/" + relative)
        walker?.skipDescendants()
      }
    }
    return units.sorted()
  }
}
