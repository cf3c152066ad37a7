import Foundation
import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// `Store.openCoreData` and `Store.importCoreData` on the fixture of `CoreDataFixture`.
final class CoreDataStoreTests: XCTestCase {
  func fixture(badUUID: Bool = false, extraTasks: Int = 0) throws -> String {
    let path = temporaryDirectory() + "/Fixture.sqlite"
    try CoreDataFixture.write(path, badUUID: badUUID, extraTasks: extraTasks)
    return path
  }

  private func temporaryDirectory() -> String {
    let dir = NSTemporaryDirectory() + "coredata-test-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    return dir
  }

  private func entity(_ store: Store, _ name: String) throws -> Entity {
    try XCTUnwrap(store.schema?.entities.first { $0.name == name }, "entity \(name)")
  }

  func testInfersTheSchemaFromTheTables() throws {
    let store = try Store.openCoreData(path: try fixture())
    defer { store.close() }
    XCTAssertEqual(store.schema?.entities.map(\.name), ["Category", "Item", "Note", "Task", "List", "Tag"])
    let item = try entity(store, "Item")
    XCTAssertEqual(
      item.attributes.map { "\($0.name):\($0.type.rawValue)" },
      [
        "done:int64", "priority:int64", "parentlistPosition:int64", "due:date", "price:decimal", "body:string", "title:string",
        "taskID:uuid", "payload:data", "attachment:data",
      ])
    XCTAssertEqual(item.relationships.map { "\($0.name)->\($0.destination)" }, ["category->Category", "parentlist->List", "tags->Tag"])
    let tags = try XCTUnwrap(item.relationships.first { $0.name == "tags" })
    XCTAssertTrue(tags.toMany && tags.ordered)
    XCTAssertEqual(tags.inverse, "items")
    XCTAssertEqual(try entity(store, "Task").parent, "Item")
    XCTAssertEqual(try entity(store, "Task").uniqueness, [["taskID"]])
    XCTAssertEqual(try entity(store, "Category").uniqueness, [["name"]])
    let tag = try entity(store, "Tag")
    XCTAssertEqual(tag.relationships.map { "\($0.name)->\($0.destination)" }, ["pinned->Item", "items->Item"])
  }

  func testOpensInPlaceAndQueriesThroughTheEngine() throws {
    let path = try fixture()
    let store = try Store.openCoreData(path: path)
    defer { store.close() }
    let task = try store.get(id: "Task/2", toMany: .ids)
    XCTAssertEqual(task["_entity"], "Task")
    XCTAssertEqual(task["title"], "Write report")
    XCTAssertEqual(task["due"], .string(ISODate.format(700_086_400.5 + 978_307_200)))
    XCTAssertEqual(task["taskID"], "12345678-9ABC-DEF0-0123-456789ABCDEF")
    XCTAssertEqual(task["price"], "12.5")
    XCTAssertEqual(task["payload"], .string(Base64.encode(CoreDataFixture.transformable)))
    XCTAssertEqual(task["attachment"], .string(Base64.encode(Array("external bytes".utf8))))
    XCTAssertEqual(task["category"], "Category/2")
    XCTAssertEqual(task["tags"], ids("Tag/1", "Tag/2"))
    XCTAssertEqual(try store.get(id: "Task/3")["attachment"], .string(Base64.encode([0xCA, 0xFE])))
    XCTAssertEqual(try store.get(id: "Task/3")["price"], .null, "NaN has no decimal text")
    XCTAssertEqual(try store.get(id: "Tag/1")["pinned"], "Task/2", "Z2_PINNED holds the destination's entity, ZPINNED its key")
    XCTAssertEqual(try store.idsWhere("Item", "priority >= 1", sort: [SortKey(keyPath: "title")]), ["Task/4", "Task/3", "Task/2"])
    XCTAssertEqual(try store.idsWhere("Item", "category.name == 'Home'", sort: [SortKey(keyPath: "title")]), ["Task/3", "Note/1"])
    XCTAssertEqual(try store.idsWhere("Task", "ANY tags.label == 'later'", sort: [SortKey(keyPath: "title")]), ["Task/3", "Task/2"])
    // The views show `_ent` as Core Data's Z_ENT (the in-place store's entity codes) and a
    // UUID as its 16 bytes, as ModelStore's own tables do.
    var rows: [String] = []
    try store.connection.prepare(
      "SELECT \"_pk\" || ' ' || \"_ent\" || ' ' || ifnull(typeof(\"taskID\"), '') FROM \"Item\" ORDER BY \"_pk\""
    )
    .forEachRow { rows.append($0.text(0)) }
    XCTAssertEqual(rows.prefix(2), ["1 3 null", "2 4 blob"])
    XCTAssertEqual(store.entityCodes.name(4), "Task")
    XCTAssertEqual(try store.idsWhere("Task", "taskID == %@", ["12345678-9abc-def0-0123-456789abcdef"]), ["Task/2"])
    XCTAssertEqual(try store.idsWhere("Task", "taskID BEGINSWITH '12345678-'"), ["Task/2"])
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 3)
    XCTAssertEqual(try store.count(FetchRequest(entity: "Item")), 4)
    var agg = AggregateRequest(entity: "Task")
    agg.aggregates = [Aggregate(.sum, "priority", as: "total"), Aggregate(.count, as: "n")]
    XCTAssertEqual(try store.aggregate(agg).first?.values, ["total": 6, "n": 3])
    let info = try store.info()
    XCTAssertEqual(info["format"], "coredata")
    XCTAssertEqual(info["readOnly"], true)
    XCTAssertEqual(info["path"], .string(path))
    XCTAssertEqual(info["counts"]?.objectValue?["Task"], 3)
    XCTAssertEqual(info["coreData"]?.objectValue?["storeUUID"], .string(CoreDataFixture.storeUUID))
    XCTAssertEqual(info["coreData"]?.objectValue?["modelVersionHashes"], ["Category", "Item", "List", "Note", "Tag", "Task"])
    XCTAssertEqual(info["coreData"]?.objectValue?["access"], "immutable")
  }

  func testRefusesWritesWhenOpenInPlace() throws {
    let store = try Store.openCoreData(path: try fixture())
    defer { store.close() }
    expectStoreError(.readOnly) { try store.insert(entity: "Category", values: ["name": "New"]) }
    expectStoreError(.readOnly) { try store.update(id: "Category/1", values: ["name": "Renamed"]) }
    expectStoreError(.readOnly) { try store.define(store.schema!.json) }
  }

  func testAnEqualityOnAnIndexedColumnUsesTheCoreDataIndexThroughTheView() throws {
    let store = try Store.openCoreData(path: try fixture())
    defer { store.close() }
    var plan: [String] = []
    try store.connection.prepare("EXPLAIN QUERY PLAN SELECT t.\"_pk\" FROM \"Item\" t WHERE t.\"title\" = ?").forEachRow([.text("Archive")])
    {
      plan.append($0.text(3))
    }
    XCTAssertTrue(plan.contains { $0.contains("INDEX ZITEM_ZTITLE_INDEX (ZTITLE=?)") }, "\(plan)")
  }

  func testImportCopiesEveryObjectWithTheSameValuesAsTheInPlaceView() throws {
    let path = try fixture()
    let source = try Store.openCoreData(path: path)
    defer { source.close() }
    let target = try Store(path: nil)
    var phases: [Int] = []
    let summary = try target.importCoreData(path: path) { _, done, _ in phases.append(done) }
    XCTAssertTrue(summary.schemaDefined)
    XCTAssertEqual(summary.counts.map { "\($0.entity)=\($0.count)" }, ["Category=2", "Item=0", "Note=1", "Task=3", "List=1", "Tag=2"])
    XCTAssertEqual(summary.objects, 9)
    XCTAssertEqual(summary.links.map(\.count), [3])
    XCTAssertEqual(phases.last, 9)
    XCTAssertEqual(target.schema?.versionHash, source.schema?.versionHash)
    let warnings = summary.warnings.compactMap { $0.objectValue?["message"]?.stringValue }
    XCTAssertTrue(warnings.contains { $0.contains("ZPRICE: 1 decimal values") && $0.contains("Z_PK 3") }, "\(warnings)")
    XCTAssertTrue(
      warnings.contains { $0.contains("ZATTACHMENT: 1 external data files that are missing") && $0.contains("Z_PK 4") }, "\(warnings)")
    for name in ["Category", "Item", "List", "Tag"] {
      let r = FetchRequest(entity: name)
      XCTAssertEqual(try target.fetch(r), try source.fetch(r), name)
    }
    XCTAssertEqual(try target.check()["ok"], true)
    // The copy holds the target's own codes and the UUIDs' bytes.
    let copied = try target.connection.prepare("SELECT \"_ent\", typeof(\"taskID\") FROM \"Item\" WHERE \"_pk\" = 2").first([]) {
      [target.entityCodes.name($0, 0), $0.text(1)]
    }
    XCTAssertEqual(copied, ["Task", "blob"])
    XCTAssertEqual(try target.idsWhere("Task", "taskID == %@", ["12345678-9ABC-DEF0-0123-456789ABCDEF"]), ["Task/2"])
    // New objects continue after Core Data's keys.
    XCTAssertEqual(try target.add("Category", ["name": "Errands"]), "Category/3")
    XCTAssertEqual(try target.add("Task", ["title": "new", "done": 0, "priority": 0]), "Task/5")
  }

  func testImportIsAllOrNothingAndNamesTheBadRow() throws {
    let path = try fixture(badUUID: true)
    let target = try Store(path: nil)
    func tables() throws -> [String] {
      var out: [String] = []
      try target.connection.prepare(
        "SELECT type || ' ' || name FROM sqlite_schema UNION ALL SELECT name FROM pragma_database_list ORDER BY 1"
      )
      .forEachRow { out.append($0.text(0)) }
      return out
    }
    let before = try tables()
    let e = expectStoreError(.validation) { try target.importCoreData(path: path) }
    XCTAssertEqual(e?.details["entity"], "Task")
    XCTAssertEqual(e?.details["zpk"], 3)
    XCTAssertEqual(e?.details["column"], "ZTASKID")
    XCTAssertTrue(e?.message.contains("Task Z_PK 3, column ZTASKID") ?? false, e?.message ?? "")
    XCTAssertNil(target.schema)
    XCTAssertEqual(try tables(), before, "no table was created and the source is detached")
  }

  func testImportRefusesAStoreThatAlreadyHoldsTheEntities() throws {
    let path = try fixture()
    let target = try Store(path: nil)
    _ = try target.importCoreData(path: path)
    let e = expectStoreError(.conflict) { try target.importCoreData(path: path) }
    XCTAssertEqual(e?.details["entity"], "Category")
    XCTAssertEqual(try target.count(FetchRequest(entity: "Item")), 4, "the failed import changed nothing")
  }

  func testImportRefusesAStoreWithAnotherSchema() throws {
    let target = try makeStore(taskCategorySchema)
    expectStoreError(.schemaMismatch) { try target.importCoreData(path: try fixture()) }
  }

  func testRefusesFilesThatAreNotCoreDataStores() throws {
    let dir = temporaryDirectory()
    let plain = dir + "/plain.sqlite"
    let c = try Connection(path: plain)
    try c.execute("CREATE TABLE t (x)")
    c.close()
    let e = expectStoreError(.notAStore) { try Store.openCoreData(path: plain) }
    XCTAssertTrue(e?.message.contains("no Z_PRIMARYKEY") ?? false)
    _ = FileManager.default.createFile(atPath: dir + "/text.sqlite", contents: Data("hello, this is not a database at all".utf8))
    expectStoreError(.notAStore) { try Store.openCoreData(path: dir + "/text.sqlite") }
    expectStoreError(.notFound) { try Store.openCoreData(path: dir + "/missing.sqlite") }
  }

  func testReadsAWalWithoutShmFromAPrivateCopy() throws {
    let dir = temporaryDirectory()
    let path = dir + "/Wal.sqlite"
    try CoreDataFixture.write(path)
    let writer = try Connection(path: path)
    try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; INSERT INTO ZLIST VALUES (2, 5, 1, 'Later')")
    // Keep the WAL: copy the three files aside while the writer is open, then drop -shm.
    for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: dir + "/Copy.sqlite" + suffix) }
    writer.close()
    let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    let store = try Store.openCoreData(path: dir + "/Copy.sqlite")
    XCTAssertEqual(try store.count(FetchRequest(entity: "List")), 2, "the row in the WAL is read")
    XCTAssertEqual(try store.info()["coreData"]?.objectValue?["access"], "copy")
    store.close()
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), before, "nothing written beside the store")
  }
}

extension CoreDataStoreTests {
  func testAStoreWithAHostileMetadataPlistOpensAndNamesTheProblem() throws {
    let path = temporaryPath(self, "Laughs.sqlite")
    try CoreDataFixture.write(path)
    let c = try Connection(path: path)
    try c.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(HostilePlist.laughs(levels: 12, width: 14))])
    c.close()
    let store = try Store.openCoreData(path: path)
    defer { store.close() }
    let problem = try store.info()["coreData"]?.objectValue?["metadataProblem"]?.stringValue
    XCTAssertEqual(
      problem?.hasPrefix("binary plist: expands to more than 100000 values (each use of a shared object counts)"), true, problem ?? "none")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 3, "the plist is not needed to read the store")
    let imported = try Store(path: nil).importCoreData(path: path)
    XCTAssertEqual(imported.source["metadataProblem"], .string(problem ?? ""))
  }

  func testExportsInPlaceButDoesNotBackUp() throws {
    let store = try Store.openCoreData(path: try fixture())
    defer { store.close() }
    expectStoreError(.invalidArgument) { try store.backup(to: NSTemporaryDirectory() + "never-" + UUID().uuidString) }
    let sink = MemorySink(limit: 1 << 20)
    let summary = try store.export(ExportOptions(entities: nil, layout: .ndjson), to: sink)
    XCTAssertEqual(summary.objects, 9)
    let target = try Store(path: nil)
    let imported = try target.importObjects(.bytes(sink.bytes), mode: .replace)
    XCTAssertEqual(imported.inserted, 9)
    XCTAssertEqual(try target.get(id: "Task/2"), try store.get(id: "Task/2"))
  }
}

extension CoreDataStoreTests {
  func testALargeTableIsCopiedInChunksWithProgressBetween() throws {
    let path = try fixture(extraTasks: 60_000)
    let target = try Store(path: nil)
    var reports: [(Int, Int?)] = []
    let summary = try target.importCoreData(path: path) { _, done, total in reports.append((done, total)) }
    XCTAssertEqual(summary.counts.first { $0.entity == "Task" }?.count, 60_003)
    XCTAssertEqual(reports.first?.0, 0)
    XCTAssertEqual(reports.last?.0, summary.objects)
    XCTAssertTrue(reports.allSatisfy { $0.1 == summary.objects })
    XCTAssertEqual(zip(reports, reports.dropFirst()).filter { $1.0 - $0.0 == Int(Store.coreDataChunkKeys) }.count, 1, "\(reports.map(\.0))")
    XCTAssertEqual(try target.count(FetchRequest(entity: "Task", predicate: try PredicateParser.parse("category.name == 'Work'"))), 30_001)
  }
}
