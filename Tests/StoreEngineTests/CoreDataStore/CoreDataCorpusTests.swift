import Foundation
import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Every store in `shared/corpus/coredata-stores` (read in place, never copied into the
/// project): it imports with each entity's count equal to its source rows, opens in
/// place read-only and answers a fetch with a predicate and a sort, a count and an
/// aggregate; and its files (with -wal/-shm) keep their bytes and modification times.
final class CoreDataCorpusTests: XCTestCase {
  /// True when `entity` is a strict descendant of `ancestor`.
  private func isDescendant(_ entity: String, of ancestor: String, _ schema: Schema) -> Bool {
    var parent = schema.entities.first { $0.name == entity }?.parent
    while let p = parent {
      if p == ancestor { return true }
      parent = schema.entities.first { $0.name == p }?.parent
    }
    return false
  }

  static var corpusDirectory: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // CoreDataStore
      .deletingLastPathComponent()  // Tests/StoreEngineTests
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // repository root
      .deletingLastPathComponent()
      .appendingPathComponent("shared/corpus/coredata-stores")
  }

  /// Stores gathered for issue #16 beside the models of `Tests/Fixtures/CoreDataWild`
  /// (absent until that collection is merged).
  static var wildDirectory: URL { CoreDataModelCorpus.wildDirectory }

  /// Main store files: SQLite files with Z_PRIMARYKEY and Z_METADATA (any name, such as
  /// `Model.sqlite.v1.original`); side files are not stores.
  private func stores(under directory: URL = corpusDirectory) throws -> [String] {
    let root = directory.path
    guard FileManager.default.fileExists(atPath: root) else {
      throw XCTSkip("Core Data store corpus not found at \(root) (it lives beside the repository in shared/corpus)")
    }
    let all = FileManager.default.enumerator(atPath: root)!.compactMap { $0 as? String }
    return all.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") && !$0.hasSuffix("-journal") }
      .map { root + "/" + $0 }
      .filter { (try? FileManager.default.attributesOfItem(atPath: $0)[.type] as? FileAttributeType) == .typeRegular }
      .filter { path in
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        return h.readData(ofLength: 16) == Data("SQLite format 3\0".utf8)
      }
      .sorted()
  }

  /// Bytes and modification time of a store and its side files.
  private func fingerprint(_ path: String) -> [String: String] {
    var out: [String: String] = [:]
    for suffix in ["", "-wal", "-shm", "-journal"] {
      let p = path + suffix
      guard let data = FileManager.default.contents(atPath: p) else { continue }
      let date = (try? FileManager.default.attributesOfItem(atPath: p)[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
      out[suffix] = "\(data.count):\(data.hashValue):\(date)"
    }
    return out
  }

  func testEveryCorpusStoreImportsWithMatchingCountsAndOpensInPlace() throws {
    let paths = try stores()
    XCTAssertGreaterThanOrEqual(paths.count, 26, "the manifest lists 26 main store files")
    try checkStores(paths, under: Self.corpusDirectory)
  }

  func testEveryWildStoreImportsWithMatchingCountsAndOpensInPlace() throws {
    guard FileManager.default.fileExists(atPath: Self.wildDirectory.path) else {
      throw XCTSkip("no collection of further real-world stores at \(Self.wildDirectory.path) (gathered for issue #16)")
    }
    let paths = try stores(under: Self.wildDirectory)
    guard !paths.isEmpty else { throw XCTSkip("\(Self.wildDirectory.path) holds no Core Data store") }
    try checkStores(paths, under: Self.wildDirectory)
  }

  /// The source's rows per imported entity, counted without the importer: a table of one
  /// entity counts all its rows (Core Data ignores Z_ENT there).
  private func checkSourceCounts(_ path: String, _ summary: CoreDataImportSummary, _ name: String, _ failures: inout [String]) throws {
    let check = try Connection(path: CoreDataFile.open(path).uri, options: .init(readOnly: true))
    defer { check.close() }
    let entities = summary.source["entities"]?.arrayValue?.compactMap(\.objectValue) ?? []
    for (entity, count) in summary.counts {
      let info = try XCTUnwrap(entities.first { $0["name"] == .string(entity) })
      let table = info["table"]!.stringValue!
      let alone = entities.filter { $0["table"] == info["table"] }.count == 1
      guard case .int(let number)? = info["number"] else { throw XCTSkip("no entity number") }
      let n = try check.scalar(
        "SELECT count(*) FROM \(Identifier.quote(table)) WHERE ? OR Z_ENT = ?", [.integer(alone ? 1 : 0), .integer(number)])
      if n != .integer(Int64(count)) { failures.append("\(name): \(entity) imported \(count), source has \(String(describing: n))") }
    }
  }

  private func checkStores(_ paths: [String], under directory: URL) throws {
    let siblings = try FileManager.default.contentsOfDirectory(atPath: directory.path).count
    var failures: [String] = []
    var report: [String] = []
    for path in paths {
      let name = String(path.dropFirst(directory.path.count + 1))
      let before = fingerprint(path)
      do {
        let target = try Store(path: nil)
        let summary = try target.importCoreData(path: path)
        // Counts against the source, read independently of the importer.
        try checkSourceCounts(path, summary, name, &failures)
        let checked = try target.check()
        if checked["ok"] != true { failures.append("\(name): store.check after import: \(checked)") }
        target.close()

        let store = try Store.openCoreData(path: path)
        var queried = 0
        for e in store.schema!.entities where !e.abstract {
          if !e.abstract, let n = summary.counts.first(where: { $0.entity == e.name })?.count {
            let subentities = summary.counts.filter { c in isDescendant(c.entity, of: e.name, store.schema!) }.map(\.count).reduce(0, +)
            XCTAssertEqual(try store.count(FetchRequest(entity: e.name)), n + subentities, "\(name) \(e.name): count in place")
          }
          guard let a = e.attributes.first(where: { [.string, .int64, .double, .date].contains($0.type) }) else { continue }
          var r = FetchRequest(entity: e.name, predicate: try PredicateParser.parse("\(a.name) != nil"))
          r.sort = [SortKey(keyPath: a.name, ascending: false)]
          r.limit = 5
          let objects = try store.fetch(r)
          let nonNil = try store.count(FetchRequest(entity: e.name, predicate: try PredicateParser.parse("\(a.name) != nil")))
          XCTAssertEqual(objects.count, min(5, nonNil), "\(name) \(e.name)")
          var agg = AggregateRequest(entity: e.name)
          agg.aggregates = [Aggregate(.count, as: "n"), Aggregate(.max, a.name, as: "top")]
          let groups = try store.aggregate(agg)
          XCTAssertEqual(groups.first?.values["n"], .int(Int64(try store.count(FetchRequest(entity: e.name)))), "\(name) \(e.name)")
          if let first = objects.first { XCTAssertEqual(groups.first?.values["top"], first[a.name], "\(name) \(e.name).\(a.name)") }
          queried += 1
        }
        let info = try store.info()
        store.close()
        report.append(
          "\(name): \(summary.objects) objects, \(summary.links.reduce(0) { $0 + $1.count }) links, \(queried) entities queried, access \(info["coreData"]?.objectValue?["access"]?.stringValue ?? "?")"
        )
      } catch {
        failures.append("\(name): \(error)")
      }
      if fingerprint(path) != before { failures.append("\(name): the store or a side file changed") }
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).count, siblings)
    print("Core Data corpus:\n  " + report.joined(separator: "\n  "))
    XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(paths.count) stores failed:\n" + failures.joined(separator: "\n"))
  }

  /// Stores with their model in the corpus (MANIFEST.md, "matching model"): imported with
  /// the model, every entity keeps its exact name and its source count, and no property
  /// of the chosen version lacks a column.
  func testStoresWithTheirModelImportWithExactNames() throws {
    _ = try stores()
    let root = Self.corpusDirectory.deletingLastPathComponent().path
    let pairs = [
      (
        "duckduckgo__BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V1.sqlite",
        "duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld"
      ),
      (
        "duckduckgo__BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V5.sqlite",
        "duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld"
      ),
      (
        "duckduckgo__BrowserServicesKit/Tests/DDGSyncTests/Resources/SyncMetadata_V3.sqlite",
        "duckduckgo__BrowserServicesKit/Sources/DDGSync/SyncMetadata.xcdatamodeld"
      ),
      (
        "kodecocodes__cdt-materials/09-multiple-managed-object-contexts/projects/final/SurfJournal/SurfJournal/CoreDataSeed/SurfJournalModel.sqlite",
        "kodecocodes__cdt-materials/09-multiple-managed-object-contexts/projects/final/SurfJournal/SurfJournal/SurfJournalModel.xcdatamodeld"
      ),
      (
        "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite",
        "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld"
      ),
      (
        "alemar11__CoreDataPlus/Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite",
        "alemar11__CoreDataPlus/Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"
      ),
      (
        "alemar11__CoreDataPlus/Learning materials/example/BookMigration-master/BookMigration/Model1.sqlite",
        "alemar11__CoreDataPlus/Learning materials/example/BookMigration-master/BookMigration/Model.xcdatamodeld"
      ),
      (
        "LoopKit__LoopKit/LoopKitHostedTests/TestCoreData/Model.sqlite.v1.original",
        "LoopKit__LoopKit/history-c69b00e/LoopKit/Persistence/Model.xcdatamodeld"
      ),
      (
        "artsy__energy-legacy/Resources/CoreData/oss_stubbed_data.sqlite",
        "artsy__energy-legacy/Resources/CoreData/ArtsyPartner.xcdatamodeld"
      ),
    ]
    // The artsy migration fixtures, written by old app versions, against the bundle whose
    // app was renamed (ArtsyPartner → ArtsyFolio): the version each was written with is
    // found among 19 (issue #16, cause 6).
    let artsy = "artsy__energy-legacy/ArtsyFolio Tests/Migrations/"
    let migrations: [(String, String?)] = [
      ("ArtsyPartner_1.3.sqlite", nil), ("ArtsyPartner_1.3.5.sqlite", nil), ("ArtsyPartner_1.4.sqlite", "ArtsyFolio v1.4"),
      ("ArtsyPartner_1.6.sqlite", nil), ("ArtsyPartner_2.0.sqlite", "ArtsyFolio v2.0"),
    ]
    var failures: [String] = []
    var report: [String] = []
    let all =
      pairs.map { ($0.0, $0.1, nil as String?) }
      + migrations.map { (artsy + $0.0, "artsy__energy-legacy/Resources/CoreData/ArtsyPartner.xcdatamodeld", $0.1) }
    for (storePath, modelPath, expected) in all {
      let path = root + "/coredata-stores/" + storePath
      let model = root + "/coredata-models/" + modelPath
      do {
        let target = try Store(path: nil)
        let summary = try target.importCoreData(path: path, model: model)
        try checkSourceCounts(path, summary, storePath, &failures)
        let inferred = try Store(path: nil).importCoreData(path: path)
        XCTAssertEqual(summary.counts.map(\.count).reduce(0, +), inferred.objects, storePath)
        XCTAssertEqual(Set(summary.counts.map(\.entity)), Set(inferred.counts.map(\.entity)), storePath)
        let chosen = try XCTUnwrap(summary.source["modelVersion"]?.objectValue, storePath)
        let confidence = chosen["confidence"]?.stringValue ?? "?"
        report.append("\(storePath): '\(chosen["name"]?.stringValue ?? "?")' (\(confidence)): \(chosen["reason"]?.stringValue ?? "")")
        if let expected, chosen["name"] != .string(expected) { failures.append("\(storePath): chose \(chosen), expected '\(expected)'") }
        if confidence == "low" { failures.append("\(storePath): low confidence: \(chosen)") }
        let missing = summary.warnings.compactMap { $0.objectValue?["message"]?.stringValue }.filter { $0.contains("has no column") }
        if !missing.isEmpty { failures.append("\(storePath): \(missing)") }
        if try target.check()["ok"] != true { failures.append("\(storePath): store.check failed") }
        target.close()
        // In place with the model: the same version, the same objects.
        let inPlace = try Store.openCoreData(path: path, model: model)
        XCTAssertEqual(try inPlace.info()["coreData"]?["modelVersion"]?["name"], chosen["name"], storePath)
        for (entity, count) in summary.counts {
          var r = FetchRequest(entity: entity)
          r.includeSubentities = false
          XCTAssertEqual(try inPlace.count(r), count, "\(storePath) \(entity) in place")
        }
        inPlace.close()
      } catch {
        failures.append("\(storePath): \(error)")
      }
    }
    print("Core Data stores with their model:\n  " + report.joined(separator: "\n  "))
    XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n"))
  }
}
