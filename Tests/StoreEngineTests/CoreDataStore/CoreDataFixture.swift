import Foundation
import SQLiteCore
import XCTest

@testable import StoreEngine

/// A small store in Core Data's SQLite layout, written with SQL: entities Category (1),
/// Item (2) with sub-entities Note (3) and Task (4) sharing ZITEM, List (5), Tag (6);
/// a to-one with an index (Item.category), an ordered one-to-many (Z_FOK_PARENTLIST), a
/// to-one to a hierarchy (Tag.pinned + Z2_PINNED), an ordered many-to-many (Z_2TAGS),
/// dates, 16-byte UUIDs, a decimal, a transformable blob and external binary data.
enum CoreDataFixture {
  static let storeUUID = "0B5C7D2E-9A41-4C3B-8E6F-112233445566"
  static let externalName = "6F1C3A52-0D7E-4B8A-9C21-5E4F3D2B1A09"
  static let missingName = "11111111-2222-3333-4444-555555555555"
  static let transformable: [UInt8] = Array("bplist00-transformed-value".utf8)

  /// Creates the store at `path` (and its external data file); `badUUID` writes a
  /// 15-byte UUID into Task Z_PK 3.
  static func write(_ path: String, badUUID: Bool = false, extraTasks: Int = 0) throws {
    let c = try Connection(path: path)
    try c.execute(
      """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZCATEGORY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZCOLOR VARCHAR );
      CREATE UNIQUE INDEX Z_Category_UNIQUE_name ON ZCATEGORY (ZNAME COLLATE BINARY ASC);
      CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDONE INTEGER, ZPRIORITY INTEGER,
        ZCATEGORY INTEGER, ZPARENTLIST INTEGER, Z_FOK_PARENTLIST INTEGER, ZDUE TIMESTAMP, ZPRICE DECIMAL, ZBODY VARCHAR,
        ZTITLE VARCHAR, ZTASKID BLOB, ZPAYLOAD BLOB, ZATTACHMENT BLOB );
      CREATE INDEX ZITEM_ZCATEGORY_INDEX ON ZITEM (ZCATEGORY);
      CREATE INDEX ZITEM_ZPARENTLIST_INDEX ON ZITEM (ZPARENTLIST);
      CREATE INDEX ZITEM_Z_ENT_INDEX ON ZITEM (Z_ENT);
      CREATE INDEX ZITEM_ZTITLE_INDEX ON ZITEM (ZTITLE);
      CREATE UNIQUE INDEX Z_Task_UNIQUE_taskID ON ZITEM (ZTASKID COLLATE BINARY ASC);
      CREATE TABLE ZLIST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
      CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPINNED INTEGER, Z2_PINNED INTEGER, ZLABEL VARCHAR );
      CREATE INDEX ZTAG_ZPINNED_INDEX ON ZTAG (ZPINNED);
      CREATE TABLE Z_2TAGS ( Z_2ITEMS INTEGER, Z_6TAGS INTEGER, Z_FOK_6TAGS INTEGER, PRIMARY KEY (Z_2ITEMS, Z_6TAGS) );
      INSERT INTO Z_PRIMARYKEY VALUES (1, 'Category', 0, 2), (2, 'Item', 0, \(4 + extraTasks)), (3, 'Note', 2, 0), (4, 'Task', 2, 0),
        (5, 'List', 0, 1), (6, 'Tag', 0, 2);
      INSERT INTO ZCATEGORY VALUES (1, 1, 1, 'Home', 'green'), (2, 1, 3, 'Work', NULL);
      INSERT INTO ZLIST VALUES (1, 5, 1, 'Today');
      INSERT INTO ZTAG VALUES (1, 6, 1, 2, 4, 'urgent'), (2, 6, 1, NULL, NULL, 'later');
      INSERT INTO Z_2TAGS VALUES (2, 1, 1), (2, 2, 2), (3, 2, 1);
      """)
    let uuid = Array(repeating: UInt8(0xAB), count: 16)
    var bad = uuid
    if badUUID { bad.removeLast() }
    let rows: [[SQLValue]] = [
      [1, 3, 1, .null, .null, 1, .null, .null, .real(700_000_000), .null, .text("shopping list"), .text("Groceries"), .null, .null, .null],
      [
        2, 4, 2, 0, 2, 2, 1, 1024, .real(700_086_400.5), .real(12.5), .null, .text("Write report"),
        .blob([0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]),
        .blob(transformable), .blob([2] + Array(externalName.utf8) + [0]),
      ],
      [3, 4, 1, 1, 1, 1, 1, 2048, .null, .text("NaN"), .null, .text("Call Bob"), .blob(bad), .null, .blob([1, 0xCA, 0xFE])],
      [
        4, 4, 1, 0, 3, .null, .null, .null, .null, .integer(7), .null, .text("Archive"), .null, .null,
        .blob([2] + Array(missingName.utf8) + [0]),
      ],
    ]
    try c.execute("BEGIN")
    let insert = try c.prepare("INSERT INTO ZITEM VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    for row in rows { try insert.execute(row.map { $0 }) }
    for i in 0..<extraTasks {
      try insert.execute([
        .integer(Int64(5 + i)), 4, 1, .integer(Int64(i % 2)), .integer(Int64(i % 5)), .integer(Int64(1 + i % 2)), .null, .null,
        .real(700_000_000 + Double(i)), .null, .null, .text("Task \(i)"), .null, .null, .null,
      ])
    }
    try c.execute("COMMIT")
    let hashes: [(String, PlistWriter.Value)] = ["Category", "Item", "List", "Note", "Tag", "Task"].map {
      ($0, .data(Array(repeating: UInt8($0.utf8.count), count: 32)))
    }
    let plist = PlistWriter.encode(
      .dict([
        ("NSStoreType", .string("SQLite")), ("NSStoreModelVersionHashes", .dict(hashes)),
        ("NSStoreModelVersionIdentifiers", .array([.string("")])), ("NSPersistenceFrameworkVersion", .int(1044)),
        ("NSStoreModelVersionHashesVersion", .int(3)),
      ]))
    try c.run("INSERT INTO Z_METADATA VALUES (1, ?, ?)", [.text(storeUUID), .blob(plist)])
    c.close()
    let directory = (path as NSString).deletingLastPathComponent
    let external = "\(directory)/.\((path as NSString).lastPathComponent)_SUPPORT/_EXTERNAL_DATA"
    try FileManager.default.createDirectory(atPath: external, withIntermediateDirectories: true)
    try Data("external bytes".utf8).write(to: URL(fileURLWithPath: "\(external)/\(externalName)"))
  }
}

extension SQLValue: ExpressibleByIntegerLiteral {
  public init(integerLiteral value: Int64) { self = .integer(value) }
}
