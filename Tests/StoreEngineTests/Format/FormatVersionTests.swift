import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

/// `_ms_meta.formatVersion`: 2 in every new store; a format-1 store is refused at open,
/// untouched, with an error saying what will upgrade it.
final class FormatVersionTests: XCTestCase {
  /// A file with format 1's bookkeeping, as the previous version wrote it.
  private func formatOneFile(_ version: String = "1") throws -> String {
    let path = temporaryPath(self, "old.modelstore")
    let c = try Connection(file: path)
    try c.execute(
      """
      PRAGMA application_id = \(Store.applicationID);
      CREATE TABLE "_ms_meta" ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL);
      INSERT INTO "_ms_meta" VALUES ('format', 'modelstore'), ('formatVersion', '\(version)');
      CREATE TABLE "Note" ("_pk" INTEGER PRIMARY KEY AUTOINCREMENT, "_ent" TEXT NOT NULL, "_opt" INTEGER NOT NULL DEFAULT 1, "text" TEXT);
      INSERT INTO "Note" ("_ent", "text") VALUES ('Note', 'old');
      """)
    c.close()
    return path
  }

  private func bytes(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { return [] }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = fread(&buffer, 1, buffer.count, f)
      if n == 0 { break }
      out += buffer[0..<n]
    }
    return out
  }

  func testNewStoresAreFormatTwo() throws {
    let store = try Store(path: nil)
    XCTAssertEqual(try store.meta("formatVersion"), "2")
    XCTAssertEqual(Store.formatVersion, 2)
    for table in ["_ms_entities", "_ms_keys"] {
      XCTAssertNotNil(try store.connection.scalar("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)]), table)
    }
  }

  func testAFormatOneStoreOpenedReadOnlyIsRefusedAndLeftAsItWas() throws {
    let path = try formatOneFile()
    let before = bytes(path)
    let e = expectStoreError(.formatTooOld) { try Store(path: path, options: Store.OpenOptions(readOnly: true)) }
    XCTAssertEqual(
      e?.message,
      "'\(path)' is a ModelStore store of formatVersion 1; this version reads formatVersion 2 and upgrades a file when it opens it for writing: run `modelstore upgrade --store PATH` (or open it once without read-only); it was not changed"
    )
    XCTAssertEqual(e?.details["path"], .string(path))
    XCTAssertEqual(e?.details["formatVersion"], 1)
    XCTAssertEqual(bytes(path), before)
    XCTAssertFalse(fileExists(path + "-wal"))
    XCTAssertFalse(fileExists(Store.format1BackupPath(path)))
  }

  func testUnknownFormatVersionIsNotAStore() throws {
    let path = try formatOneFile("3")
    let e = expectStoreError(.notAStore) { try Store(path: path) }
    XCTAssertTrue(e?.message.contains("formatVersion '3'") ?? false, e?.message ?? "")
  }
}
