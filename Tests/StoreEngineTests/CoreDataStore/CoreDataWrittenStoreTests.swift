import CoreDataTooling
import Foundation
import JSONCore
import SQLiteCore
import SchemaModel
import TestSupport
import XCTest

@testable import StoreEngine

/// Stores for the real-world models that have none (issue #16): for every version of every
/// model of `shared/corpus` and `Tests/Fixtures/CoreDataWild`, `CoreDataStoreWriter` writes a
/// store in Core Data's layout from the version's file alone (every other one with its keys
/// as TEXT, as a store loaded by hand has them). Imported with the whole bundle as its model,
/// the store is read with the version it was written with (or one Core Data lays out alike),
/// with high confidence unless the store cannot tell them apart, each entity's exact count
/// and each relationship's exact links; opened in place with that version, it shows the same
/// counts and links. So the store-side causes (keys stored as text, transient relationships
/// without a join table, the model version's choice, the quirks Core Data accepts) meet
/// every model, not one file. (Opening in place with the whole bundle chooses the version
/// the same way, `CoreDataModelChoice`; it is left to the import here, as reading every
/// version of a bundle for each of its stores twice would double the test's time.)
final class CoreDataWrittenStoreTests: XCTestCase {
  /// The writer writes Core Data's layout: for the corpus stores whose model version is known,
  /// the writer's tables for that version are the store's, column for column (a join column's
  /// number, which depends on the order Core Data names them in, aside).
  func testTheWrittenLayoutIsTheLayoutOfRealStores() throws {
    let stores = CoreDataCorpusTests.corpusDirectory.path
    let models = CoreDataModelCorpus.corpusDirectory.path
    guard FileManager.default.fileExists(atPath: stores) else { throw XCTSkip("no store corpus at \(stores)") }
    let pairs: [(store: String, version: String)] = [
      (
        "duckduckgo__BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V4.sqlite",
        "duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld/BookmarksModel 4.xcdatamodel"
      ),
      (
        "duckduckgo__BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V5.sqlite",
        "duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld/BookmarksModel 5.xcdatamodel"
      ),
      (
        "duckduckgo__BrowserServicesKit/Tests/DDGSyncTests/Resources/SyncMetadata_V3.sqlite",
        "duckduckgo__BrowserServicesKit/Sources/DDGSync/SyncMetadata.xcdatamodeld/SyncMetadata 3.xcdatamodel"
      ),
      (
        "artsy__energy-legacy/Resources/CoreData/oss_stubbed_data.sqlite",
        "artsy__energy-legacy/Resources/CoreData/ArtsyPartner.xcdatamodeld/ArtsyFolio v2.3.xcdatamodel"
      ),
      (
        "artsy__energy-legacy/ArtsyFolio Tests/Migrations/ArtsyPartner_1.4.sqlite",
        "artsy__energy-legacy/Resources/CoreData/ArtsyPartner.xcdatamodeld/ArtsyFolio v1.4.xcdatamodel"
      ),
      (
        "artsy__energy-legacy/ArtsyFolio Tests/Migrations/ArtsyPartner_1.6.sqlite",
        "artsy__energy-legacy/Resources/CoreData/ArtsyPartner.xcdatamodeld/ArtsyFolio v1.5.xcdatamodel"
      ),
      (
        "artsy__energy-legacy/ArtsyFolio Tests/Migrations/ArtsyPartner_2.0.sqlite",
        "artsy__energy-legacy/Resources/CoreData/ArtsyPartner.xcdatamodeld/ArtsyFolio v2.0.xcdatamodel"
      ),
      (
        "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite",
        "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"
      ),
      (
        "LoopKit__LoopKit/LoopKitHostedTests/TestCoreData/Model.sqlite.v1.original",
        "LoopKit__LoopKit/history-c69b00e/LoopKit/Persistence/Model.xcdatamodeld/Model.xcdatamodel"
      ),
    ]
    var failures: [String] = []
    for (store, version) in pairs {
      let writer = try CoreDataStoreWriter(contents: models + "/" + version + "/contents")
      // Read the way the engine reads a store it must not change (never the sqlite3 shell,
      // which checkpoints a WAL into the file and removes the -wal and -shm when it closes).
      let file = try CoreDataFile.open(stores + "/" + store)
      let real = try Connection(path: file.uri, options: .init(readOnly: true))
      defer {
        real.close()
        if let copy = file.temporaryDirectory { try? FileManager.default.removeItem(atPath: copy) }
      }
      for table in writer.layout().tables {
        let have = try Self.names(real, "SELECT name FROM pragma_table_info(?)", table.name)
        let mine = table.columns.map(\.name)
        if Self.joinAgnostic(have, table.name).sorted() != Self.joinAgnostic(mine, table.name).sorted() {
          failures.append("\(store): \(table.name): the store has \(have.sorted()), the writer \(mine.sorted())")
        }
      }
      let written = Set(writer.layout().tables.map(\.name))
      let theirs = try Self.names(real, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND ? = ?", "", "")
      let missing = theirs.filter { !written.contains($0) && !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains($0) }
      if !missing.isEmpty { failures.append("\(store): tables the writer lacks: \(missing.sorted())") }
    }
    XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
  }

  /// The first column of the rows `sql` finds.
  static func names(_ c: Connection, _ sql: String, _ values: String...) throws -> [String] {
    var out: [String] = []
    try c.prepare(sql).forEachRow(values.map { .text($0) }) { out.append($0.text(0)) }
    return out
  }

  /// A join table's columns without the number Core Data adds to a name an earlier join
  /// table took (`Z_2ARTISTS1` is `Z_2ARTISTS`).
  static func joinAgnostic(_ columns: [String], _ table: String) -> [String] {
    guard table.hasPrefix("Z_") else { return columns }
    return columns.map { String($0.reversed().drop { $0.isNumber }.reversed()) }
  }

  func testAStoreWrittenForEveryCorpusModelVersionImportsAndOpensInPlace() throws {
    let units = CoreDataModelCorpus.availableUnits()
    guard !units.isEmpty else { throw XCTSkip("no model corpus found") }
    let dir = NSTemporaryDirectory() + "written-stores-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var failures: [String] = []
    var stores = 0
    var textKeyStores = 0
    var objects = 0
    var links = 0
    var empty = 0
    var sameColumns = 0
    var confidence: [String: Int] = [:]
    var uncertain: [String] = []
    for unit in units {
      let model = try CoreDataModelImporter.importModel(at: unit)
      let versions = model.versions.filter { $0.schema != nil }
      let writers = try versions.map { try CoreDataStoreWriter(contents: $0.file) }
      let signatures = writers.map { Self.signature($0.layout()) }
      for (k, version) in versions.enumerated() {
        let writer = writers[k]
        guard writer.entities.contains(where: { !$0.abstract }) else {
          empty += 1
          continue
        }
        let name =
          unit.replacingOccurrences(of: CoreDataModelCorpus.corpusDirectory.path + "/", with: "")
          .replacingOccurrences(of: CoreDataModelCorpus.wildDirectory.path + "/", with: "CoreDataWild/") + " '\(version.name)'"
        let textKeys = stores % 2 == 1
        let path = dir + "/\(stores).sqlite"
        stores += 1
        if textKeys { textKeyStores += 1 }
        do {
          let expected = try writer.write(path, textKeys: textKeys)
          let target = try Store(path: nil)
          defer { target.close() }
          let summary = try target.importCoreData(path: path, model: unit)
          let chosen = summary.source["modelVersion"]?["name"]?.stringValue ?? "?"
          let choice = summary.source["modelVersion"]?.objectValue ?? [:]
          let sure = choice["confidence"]?.stringValue ?? "?"
          confidence[sure, default: 0] += 1
          // Another version is right only when it reads the same columns (Core Data's
          // layout of both is the same); less than high confidence only when the store
          // cannot tell the versions apart (Boolean and Integer 16 are both INTEGER).
          let twins = versions.indices.filter { signatures[$0] == signatures[k] }.map { versions[$0].name }
          if !twins.contains(chosen) {
            failures.append("\(name): read with version '\(chosen)', whose columns differ: \(choice)")
            continue
          }
          if chosen != version.name { sameColumns += 1 }
          if sure != "high" {
            if twins.count == 1 {
              failures.append("\(name): \(sure) confidence, though no other version reads the same columns: \(choice)")
            }
            uncertain.append("\(name) (\(sure)): \(choice["reason"]?.stringValue ?? "")")
          }
          let counts = Dictionary(summary.counts.map { ($0.entity, $0.count) }, uniquingKeysWith: +)
          if counts != expected.objects { failures.append("\(name): imported \(counts), written \(expected.objects)") }
          let imported = try Self.links(target, expected)
          if imported != Self.lowered(expected.links) { failures.append("\(name): imported links \(Self.difference(imported, expected))") }
          if try target.check()["ok"] != true { failures.append("\(name): store.check fails after the import") }
          let inPlace = try Store.openCoreData(path: path, model: (version.file as NSString).deletingLastPathComponent)
          defer { inPlace.close() }
          for (entity, count) in expected.objects {
            var r = FetchRequest(entity: entity)
            r.includeSubentities = false
            let n = try inPlace.count(r)
            if n != count { failures.append("\(name): \(entity) has \(n) objects in place, \(count) written") }
          }
          let read = try Self.links(inPlace, expected)
          if read != Self.lowered(expected.links) { failures.append("\(name): links in place \(Self.difference(read, expected))") }
          objects += expected.objects.values.reduce(0, +)
          links += expected.links.values.reduce(0, +)
        } catch {
          failures.append("\(name): \(error)")
        }
        try? FileManager.default.removeItem(atPath: path)
      }
    }
    print(
      "written stores: \(stores) (\(textKeyStores) with text keys), \(objects) objects, \(links) links; "
        + "\(sameColumns) read with another version of the same columns; confidence \(confidence.sorted { $0.key < $1.key }); "
        + "\(empty) versions without a concrete entity" + uncertain.map { "\n  " + $0 }.joined())
    XCTAssertGreaterThan(stores, 400)
    XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(stores) stores:\n" + failures.joined(separator: "\n"))
  }

  /// Tables and their columns, in a comparable form.
  static func signature(_ layout: CoreDataStoreWriter.Layout) -> [String] {
    layout.tables.map { t in t.name + "(" + t.columns.map { "\($0.name) \($0.type)" }.sorted().joined(separator: ",") + ")" }.sorted()
  }

  /// ModelStore's name of a Core Data relationship: the first letter lowered.
  static func lowered(_ links: [String: Int]) -> [String: Int] {
    Dictionary(
      links.map { key, n in
        let dot = key.firstIndex(of: ".")!
        let name = key[key.index(after: dot)...]
        return (key[...dot] + name.prefix(1).lowercased() + name.dropFirst(), n)
      }, uniquingKeysWith: +)
  }

  /// The links `store` reads for each relationship the writer stored, per entity.
  static func links(_ store: Store, _ expected: CoreDataStoreWriter.Expected) throws -> [String: Int] {
    var out: [String: Int] = [:]
    let wanted = lowered(expected.links)
    for entity in expected.objects.keys {
      var r = FetchRequest(entity: entity)
      r.includeSubentities = false
      r.toMany = .ids
      let fetched = try store.fetch(r)
      for key in wanted.keys where key.hasPrefix(entity + ".") {
        let name = String(key.dropFirst(entity.count + 1))
        var n = 0
        for object in fetched {
          switch object[name] {
          case .string?: n += 1
          case .array(let ids)?: n += ids.count
          case .null?: break
          default: n = -1_000_000  // the relationship is not read at all
          }
        }
        out[key] = n
      }
    }
    return out
  }

  static func difference(_ read: [String: Int], _ expected: CoreDataStoreWriter.Expected) -> String {
    let wanted = lowered(expected.links)
    return wanted.keys.sorted().filter { read[$0] != wanted[$0] }.map {
      "\($0): \(read[$0].map { $0 < 0 ? "not read" : String($0) } ?? "none") (written \(wanted[$0]!))"
    }.joined(separator: ", ")
  }
}
