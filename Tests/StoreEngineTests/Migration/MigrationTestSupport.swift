import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

extension Store {
  /// Migrates along `schemas` (oldest first) with the stages given in JSON form.
  @discardableResult
  func migrate(
    _ schemas: [JSONValue], stages: JSONValue = .array([]), allowDataLoss: Bool = false, dryRun: Bool = false,
    hooks: MigrationHooks = MigrationHooks()
  ) throws -> MigrationResult {
    try migrate(
      chain: try decodeChain(schemas, path: ErrorPlace(.schemas)),
      stages: try MigrationStageDecoder.decode(stages, path: ErrorPlace(.stages)),
      options: MigrationOptions(allowDataLoss: allowDataLoss, dryRun: dryRun), hooks: hooks)
  }

  /// The declared columns of a table, in order.
  func columnNames(_ table: String) throws -> [String] {
    var out: [String] = []
    try connection.prepare("SELECT name FROM pragma_table_info(?)").forEachRow([.text(table)]) { out.append($0.text(0)) }
    return out
  }

  func tableNames() throws -> Set<String> {
    var out: Set<String> = []
    try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").forEachRow { out.insert($0.text(0)) }
    return out
  }

  func indexColumns() throws -> [[String]] {
    var out: [[String]] = []
    try connection.prepare(
      "SELECT group_concat(ii.name, ',') FROM sqlite_schema s, pragma_index_info(s.name) ii WHERE s.type = 'index' GROUP BY s.name ORDER BY s.name"
    ).forEachRow { out.append($0.text(0).split(separator: ",").map(String.init)) }
    return out
  }

  func all(_ entity: String, sortedBy key: String? = nil) throws -> [JSONObject] {
    var r = FetchRequest(entity: entity)
    if let key { r.sort = [SortKey(keyPath: key)] }
    return try fetch(r)
  }
}

func lightweight(_ from: String, _ to: String) -> JSONValue {
  .object(["lightweight": .object(["from": .string(from), "to": .string(to)])])
}

func custom(_ from: String, _ to: String, transforms: [JSONValue] = [], willMigrate: Bool = false, didMigrate: Bool = false) -> JSONValue {
  .object([
    "custom": .object([
      "from": .string(from), "to": .string(to), "transforms": .array(transforms), "willMigrate": .bool(willMigrate),
      "didMigrate": .bool(didMigrate),
    ])
  ])
}
