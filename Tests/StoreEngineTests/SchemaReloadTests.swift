import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// A schema that cannot be read again (another process left one that does not validate)
/// is an error naming why, never a store that silently has no schema; and the store reads
/// it again at the next request, so a repaired file is followed.
final class SchemaReloadTests: XCTestCase {
  func testAFailedReloadIsReportedAndTriedAgain() throws {
    let path = temporaryPath(self)
    let store = try Store(path: path)
    _ = try store.define(schema(entity("Counter", [attr("value", "int64", default: 0)])))
    _ = try store.add("Counter")
    let other = try Connection(file: path)
    let good = try other.scalar("SELECT \"value\" FROM \"_ms_meta\" WHERE \"key\" = 'schema'")
    try other.run("UPDATE \"_ms_meta\" SET \"value\" = '{}' WHERE \"key\" = 'schema'")
    // A version recorded moves the schema cookie (the number of versions recorded).
    try other.run(
      "INSERT INTO \"_ms_schema_versions\" (\"version\", \"hash\", \"schema\", \"appliedAt\") VALUES ('2', '', '{}', 0)")

    // (Each request reads the schema again in its own snapshot.)
    for _ in 0..<2 {
      let e = expectStoreError(.schemaMismatch) { try store.count(FetchRequest(entity: "Counter")) }
      XCTAssertTrue(
        e?.message.hasPrefix("the store's schema could not be read again: the schema stored in this file does not validate") ?? false,
        e?.message ?? "")
    }

    // Repaired without another schema change: the next request reads it again.
    try other.run("UPDATE \"_ms_meta\" SET \"value\" = ? WHERE \"key\" = 'schema'", [good ?? .null])
    XCTAssertEqual(try store.count(FetchRequest(entity: "Counter")), 1)
    XCTAssertEqual(store.schema?.entities.map(\.name), ["Counter"])
  }
}
