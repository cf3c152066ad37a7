/// SQLite's answers to the engine's dialect questions: the SQL the engine wrote before the
/// seam, byte for byte. The functions named `ms_…` are Swift functions the store registers
/// on its connection.
public struct SQLiteDialect: SQLDialect {
  public init() {}

  public var name: String { "sqlite" }

  // MARK: Tables and columns

  /// The column's affinity: the storage class SQLite keeps for such values.
  public func columnType(_ content: ColumnContent) -> String {
    switch content {
    case .integer, .boolean: return "INTEGER"
    case .real, .date: return "REAL"
    case .uuid, .bytes: return "BLOB"
    case .decimal, .text, .json: return "TEXT"
    }
  }

  /// Text compares by bytes (BINARY, the default collation), which is code point order.
  public func columnDefinition(_ content: ColumnContent) -> String { columnType(content) }

  public var keyOnlyTableOptions: String { " WITHOUT ROWID" }

  public func temporaryTable(_ name: String) -> String { "temp." + Identifier.quote(name) }

  public func literal(_ value: SQLValue) -> String? { value.sqlLiteral }

  public func defaultLiteral(_ value: SQLValue, for content: ColumnContent) -> String? { value.sqlLiteral }

  // MARK: Inserts

  public func insertSkippingDuplicates(_ rest: String) -> String { "INSERT OR IGNORE INTO " + rest }

  public func insertReplacing(into table: String, columns: [String], key: [String]) -> String {
    "INSERT OR REPLACE INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
  }

  public var failedStatementAbortsTransaction: Bool { false }

  /// SQLITE_MAX_VARIABLE_NUMBER of the SQLite the engine links (the default since 3.32).
  public var maxBoundValues: Int { 32766 }

  // MARK: Parameters and values

  /// SQLite compares by storage class, whatever the context: a parameter needs no type.
  public func parameter(_ placeholder: String, _ value: SQLValue) -> String { placeholder }

  public func boolean(_ value: Bool) -> String { value ? "1" : "0" }

  public func falseWhenUnknown(_ condition: String) -> String { "ifnull(\(condition), 0)" }

  public func isNotDistinct(_ a: String, _ b: String) -> String { "\(a) IS \(b)" }

  public func isDistinct(_ a: String, _ b: String) -> String { "\(a) IS NOT \(b)" }

  public func castToReal(_ expression: String) -> String { "CAST(\(expression) AS REAL)" }

  public func textToReal(_ expression: String) -> String { castToReal(expression) }

  /// SQLite compares an integer with a real exactly itself.
  public func exactComparison(integer: String, _ op: String, real: String) -> String? { nil }

  public func castToText(_ expression: String) -> String { "CAST(\(expression) AS TEXT)" }

  public func textByCodePoint(_ expression: String) -> String { expression }

  /// SQLite's division by zero is NULL.
  public func divide(_ a: String, _ b: String) -> String { "\(castToReal(a)) / \(b)" }

  public func greatest(_ a: String, _ b: String) -> String { "max(\(a), \(b))" }

  // MARK: Strings

  public func stringTest(_ test: StringTest, _ text: String, _ part: String) -> String {
    switch test {
    case .beginsWith: return "(length(\(part)) > 0 AND substr(\(text), 1, length(\(part))) = \(part))"
    case .endsWith: return "(length(\(part)) > 0 AND substr(\(text), -length(\(part))) = \(part))"
    case .contains: return "(length(\(part)) > 0 AND instr(\(text), \(part)) > 0)"
    }
  }

  /// GLOB has NSPredicate's `*` and `?`; its `[` starts a class, so it is escaped as `[[]`.
  public func wildcardMatch(_ text: String, _ pattern: String) -> String { "(\(text) GLOB \(pattern))" }

  /// By code point: a `[` followed by a combining mark is one Character, and still opens a
  /// GLOB set.
  public func wildcardPattern(_ pattern: String) -> String {
    var out = String.UnicodeScalarView()
    for u in pattern.unicodeScalars {
      if u == "[" { out.append(contentsOf: "[[]".unicodeScalars) } else { out.append(u) }
    }
    return String(out)
  }

  public func wildcardPatternSQL(_ expression: String) -> String { "replace(\(expression), '[', '[[]')" }

  public func fold(_ text: String, flags: Int) -> String { "ms_fold(\(text), \(flags))" }

  public func regexMatch(pattern: String, text: String, flags: Int, place: String) -> String {
    "ms_regexp(\(pattern), \(text), \(flags), \(place))"
  }

  /// A 16-byte blob as hex in 8-4-4-4-12 groups; another stored class passes through.
  public func uuidText(_ column: String) -> String {
    let h = "hex(\(column))"
    return
      "CASE WHEN typeof(\(column)) = 'blob' AND length(\(column)) = 16 THEN substr(\(h), 1, 8) || '-' || substr(\(h), 9, 4) || '-' || substr(\(h), 13, 4) || '-' || substr(\(h), 17, 4) || '-' || substr(\(h), 21, 12) ELSE \(column) END"
  }

  /// SQLite 3.40 has no unhex(): `ms_uuid_bytes` is a Swift function.
  public func uuidFromText(_ expression: String) -> String { "ms_uuid_bytes(\(expression))" }

  public func dateBucket(_ seconds: String, unit: String, zone: String) -> String { "ms_bucket(\(seconds), \(unit), \(zone))" }

  // MARK: Lists

  public func jsonArrayElements(_ parameter: String) -> String { "json_each(\(parameter))" }

  /// `json_each` gives each element in its own class already.
  public func jsonArrayValue(_ element: ListElement) -> String { "value" }

  /// `group_concat` over an ordered subquery keeps its order.
  public func orderedList(_ select: String) -> String { "(SELECT group_concat(x) FROM (\(select)))" }

  public func groupConcat(_ expression: String, separator: String) -> String {
    "group_concat(\(expression), \(SQLValue.text(separator).sqlLiteral!))"
  }

  // MARK: Aggregates

  public func total(_ argument: String, integers: Bool) -> String {
    "CASE WHEN count(\(argument)) = 0 THEN 0 ELSE sum(\(argument)) END"
  }

  public var totalOfNoRealsIsNull: Bool { false }

  public func average(_ argument: String, integers: Bool) -> String { "avg(\(argument))" }

  // MARK: Queries

  /// SQLite sorts NULL first ascending and last descending by itself.
  public func orderTerm(_ expression: String, _ order: SortOrder) -> String {
    switch order {
    case .ascending: return expression + " ASC"
    case .descending: return expression + " DESC"
    case .unstated: return expression
    }
  }

  public func limitClause(limit: Int?, offset: Int?) -> String {
    var s = ""
    if let limit { s += " LIMIT \(limit)" } else if offset != nil { s += " LIMIT -1" }
    if let offset { s += " OFFSET \(offset)" }
    return s
  }

  public func derivedTable(_ select: String) -> String { "(\(select))" }

  // MARK: Introspection

  public var tablesSQL: String {
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_ms\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
  }

  public var columnsSQL: String { "SELECT name, type FROM pragma_table_info(?)" }

  /// `sqlite_schema.sql` keeps each CREATE statement as written, rewritten by renames.
  public var managedIndexesSQL: String {
    "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND (name LIKE '\\_ix\\_%' ESCAPE '\\' OR name LIKE '\\_ux\\_%' ESCAPE '\\' OR name LIKE '\\_fk\\_%' ESCAPE '\\')"
  }

  public var indexDefinitionSQL: String { "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?" }

  public var nameTakenSQL: String { "SELECT 1 FROM sqlite_schema WHERE name = ?" }

  public var indexesOnColumnSQL: String {
    "SELECT DISTINCT il.name FROM pragma_index_list(?) il, pragma_index_info(il.name) ii WHERE ii.name = ? AND il.origin = 'c'"
  }

  // MARK: The store's own functions

  public func storeSetupStatements(folding: TextFoldingTable) -> [String] { [] }
}
