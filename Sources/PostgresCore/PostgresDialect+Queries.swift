import DatabaseKit

/// PostgreSQL's answers to the dialect questions of the engine's queries, objects,
/// migrations and history: the same answers as SQLite's forms give (protocol.md,
/// "PostgreSQL engine: what differs", lists where they cannot). The store's own functions
/// (`ms_fold`, `ms_regexp`, `ms_bucket`) are SQL functions `storeSetupStatements`
/// installs (PostgresDialect+Functions.swift).
extension PostgresDialect {
  // MARK: Tables and columns

  /// Text columns compare by code point, as SQLite's BINARY does, whatever the database's
  /// default collation: `COLLATE "C"`.
  public func columnDefinition(_ content: ColumnContent) -> String {
    switch content {
    case .decimal, .text, .json: return columnType(content) + " COLLATE \"C\""
    default: return columnType(content)
    }
  }

  public var keyOnlyTableOptions: String { "" }

  public func temporaryTable(_ name: String) -> String { "pg_temp." + Identifier.quote(name) }

  /// A uuid column's default is its text typed as `uuid` (the value is its 16 bytes).
  public func defaultLiteral(_ value: SQLValue, for content: ColumnContent) -> String? {
    if content == .uuid, case .blob(let bytes) = value, bytes.count == 16 {
      return "'\(Self.uuidText(bytes))'::uuid"
    }
    return literal(value)
  }

  /// After an error, PostgreSQL refuses every statement of the transaction but ROLLBACK
  /// (to a savepoint).
  public var failedStatementAbortsTransaction: Bool { true }

  // MARK: Parameters and values

  /// Typed by the value's class: PostgreSQL infers an untyped parameter's type from its
  /// context (the column it meets), which would refuse 2.5 for an integer column; a blob
  /// stays untyped and takes the column's (`uuid` or `bytea`).
  public func parameter(_ placeholder: String, _ value: SQLValue) -> String {
    switch value {
    case .integer: return "CAST(\(placeholder) AS bigint)"
    case .real: return "CAST(\(placeholder) AS double precision)"
    case .text: return "CAST(\(placeholder) AS text)"
    case .blob, .null: return placeholder
    }
  }

  public func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }

  public func falseWhenUnknown(_ condition: String) -> String { "coalesce(\(condition), FALSE)" }

  public func isNotDistinct(_ a: String, _ b: String) -> String { "\(a) IS NOT DISTINCT FROM \(b)" }

  public func isDistinct(_ a: String, _ b: String) -> String { "\(a) IS DISTINCT FROM \(b)" }

  public func castToReal(_ expression: String) -> String { "CAST(\(expression) AS double precision)" }

  public func castToText(_ expression: String) -> String { "CAST(\(expression) AS text)" }

  /// Text built in SQL has the database's default collation, which need not be `C`.
  public func textByCodePoint(_ expression: String) -> String { "(\(expression) COLLATE \"C\")" }

  /// PostgreSQL raises "division by zero" where SQLite gives NULL.
  public func divide(_ a: String, _ b: String) -> String { "\(castToReal(a)) / NULLIF(\(b), 0)" }

  public func greatest(_ a: String, _ b: String) -> String { "GREATEST(\(a), \(b))" }

  // MARK: Strings

  public func stringTest(_ test: StringTest, _ text: String, _ part: String) -> String {
    switch test {
    case .beginsWith: return "(length(\(part)) > 0 AND left(\(text), length(\(part))) = \(part))"
    case .endsWith: return "(length(\(part)) > 0 AND right(\(text), length(\(part))) = \(part))"
    case .contains: return "(length(\(part)) > 0 AND strpos(\(text), \(part)) > 0)"
    }
  }

  /// LIKE, with NSPredicate's `*` and `?` as `%` and `_`, and its own `%`, `_` and the
  /// escape character `\` escaped.
  public func wildcardMatch(_ text: String, _ pattern: String) -> String { "(\(text) LIKE \(pattern))" }

  /// By code point: a `*` followed by a combining mark is one Character, and a wildcard.
  public func wildcardPattern(_ pattern: String) -> String {
    var out = String.UnicodeScalarView()
    for u in pattern.unicodeScalars {
      switch u {
      case "\\", "%", "_":
        out.append("\\")
        out.append(u)
      case "*": out.append("%")
      case "?": out.append("_")
      default: out.append(u)
      }
    }
    return String(out)
  }

  public func wildcardPatternSQL(_ expression: String) -> String {
    var e = expression
    for (from, to) in [("E'\\\\'", "E'\\\\\\\\'"), ("'%'", "E'\\\\%'"), ("'_'", "E'\\\\_'"), ("'*'", "'%'"), ("'?'", "'_'")] {
      e = "replace(\(e), \(from), \(to))"
    }
    return e
  }

  public func fold(_ text: String, flags: Int) -> String { "ms_fold(\(text), \(flags))" }

  public func regexMatch(pattern: String, text: String, flags: Int, place: String) -> String {
    "ms_regexp(\(pattern), \(text), \(flags), \(place))"
  }

  /// `uuid`'s text is lowercase; the wire's is uppercase.
  public func uuidText(_ column: String) -> String { textByCodePoint("upper(CAST(\(column) AS text))") }

  public func uuidFromText(_ expression: String) -> String { "CAST(\(expression) AS uuid)" }

  public func dateBucket(_ seconds: String, unit: String, zone: String) -> String {
    textByCodePoint("ms_bucket(\(seconds), \(unit), \(zone))")
  }

  // MARK: Lists

  public func jsonArrayElements(_ parameter: String) -> String {
    "jsonb_array_elements_text(CAST(\(parameter) AS jsonb)) AS \"_e\"(value)"
  }

  /// The elements come as text; integers and doubles together compare as `numeric`, which
  /// is exact for both.
  public func jsonArrayValue(_ element: ListElement) -> String {
    switch element {
    case .integer: return "CAST(value AS bigint)"
    case .real: return "CAST(value AS double precision)"
    case .number: return "CAST(value AS numeric)"
    case .text: return "value"
    }
  }

  /// `ARRAY(subquery)` keeps the subquery's order (an aggregate over it need not).
  public func orderedList(_ select: String) -> String { "NULLIF(array_to_string(ARRAY(\(select)), ','), '')" }

  public func groupConcat(_ expression: String, separator: String) -> String {
    "string_agg(CAST(\(expression) AS text), \(literal(.text(separator))!))"
  }

  // MARK: Aggregates

  /// `sum` of `bigint` is `numeric` (exact, never overflowing); back as a bigint through
  /// `ms_integer_sum`, whose error beyond 64 bits `isIntegerOverflow` recognizes. A `CASE`
  /// has one type, so the sum of no doubles is NULL rather than the integer 0
  /// (`totalOfNoRealsIsNull`).
  public func total(_ argument: String, integers: Bool) -> String {
    integers ? "CASE WHEN count(\(argument)) = 0 THEN 0 ELSE ms_integer_sum(sum(\(argument))) END" : "sum(\(argument))"
  }

  public var totalOfNoRealsIsNull: Bool { true }

  /// `avg` of integers is `numeric` (exact, rounded once). Of doubles it is the sum over the
  /// count, as SQLite's: PostgreSQL's `avg(double precision)` also sums the squares (for
  /// the variance it shares the code of), which fails beyond about 1.3e154 ("value out of
  /// range: overflow": the average of -1e300 and 0).
  public func average(_ argument: String, integers: Bool) -> String {
    integers ? "CAST(avg(\(argument)) AS double precision)" : "(sum(\(argument)) / NULLIF(count(\(argument)), 0))"
  }

  // MARK: Queries

  /// PostgreSQL sorts NULL last ascending, first descending, unless told.
  public func orderTerm(_ expression: String, _ order: SortOrder) -> String {
    switch order {
    case .ascending: return expression + " ASC NULLS FIRST"
    case .descending: return expression + " DESC NULLS LAST"
    case .unstated: return expression + " NULLS FIRST"
    }
  }

  public func limitClause(limit: Int?, offset: Int?) -> String {
    var s = ""
    if let limit { s += " LIMIT \(limit)" }
    if let offset { s += " OFFSET \(offset)" }
    return s
  }

  /// PostgreSQL 15 wants an alias for every subquery in FROM.
  public func derivedTable(_ select: String) -> String { "(\(select)) AS \"_d\"" }

  // MARK: Introspection

  /// The relations of the connection's schema (`search_path` is the store's schema).
  private static let inSchema =
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"

  public var tablesSQL: String {
    "SELECT CAST(c.relname AS text) FROM pg_catalog.pg_class c \(Self.inSchema) AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE E'\\\\_ms\\\\_%' ORDER BY c.relname COLLATE \"C\""
  }

  /// `format_type` names the types as `columnType` does, in lowercase.
  public var columnsSQL: String {
    "SELECT CAST(a.attname AS text), upper(format_type(a.atttypid, NULL)) FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid \(Self.inSchema) AND c.relname = CAST(? AS text) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"
  }

  /// The engine's text of an index, rebuilt from the catalog: its columns in order, and
  /// the entity codes of a partial index (`WHERE "_ent" IN (…)`, the only filter the
  /// engine writes) read from its predicate's text in order. Renames follow, as SQLite's
  /// rewritten `sqlite_schema.sql` does.
  private static let indexDefinition = """
    'CREATE ' || CASE WHEN x.indisunique THEN 'UNIQUE ' ELSE '' END || 'INDEX "' || replace(c.relname, '"', '""') || '" ON "' \
    || replace(t.relname, '"', '""') || '" (' || (SELECT string_agg('"' || replace(a.attname, '"', '""') || '"', ', ' ORDER BY k.i) \
    FROM unnest(CAST(x.indkey AS int2[])) WITH ORDINALITY AS k(attnum, i) JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid \
    AND a.attnum = k.attnum) || ')' || coalesce(' WHERE "_ent" IN (' || (SELECT string_agg(m.d[1], ', ' ORDER BY m.i) \
    FROM regexp_matches(pg_get_expr(x.indpred, x.indrelid), E'\\\\d+', 'g') WITH ORDINALITY AS m(d, i)) || ')', '')
    """

  private static let indexes =
    "FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class c ON c.oid = x.indexrelid JOIN pg_catalog.pg_class t ON t.oid = x.indrelid \(inSchema)"

  public var managedIndexesSQL: String {
    "SELECT CAST(c.relname AS text), \(Self.indexDefinition) \(Self.indexes) AND (c.relname LIKE E'\\\\_ix\\\\_%' OR c.relname LIKE E'\\\\_ux\\\\_%' OR c.relname LIKE E'\\\\_fk\\\\_%')"
  }

  public var indexDefinitionSQL: String { "SELECT \(Self.indexDefinition) \(Self.indexes) AND c.relname = CAST(? AS text)" }

  public var nameTakenSQL: String { "SELECT 1 FROM pg_catalog.pg_class c \(Self.inSchema) AND c.relname = CAST(? AS text)" }

  /// Indexes backing a constraint (the primary key) are not CREATE INDEX's.
  public var indexesOnColumnSQL: String {
    "SELECT DISTINCT CAST(c.relname AS text) \(Self.indexes) AND t.relname = CAST(? AS text) AND EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.oid AND a.attname = CAST(? AS text) AND a.attnum = ANY (CAST(x.indkey AS int2[]))) AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = x.indexrelid)"
  }

  // MARK: Helpers

  /// The canonical text of 16 bytes, lowercase (`uuid` reads either case).
  static func uuidText(_ b: [UInt8]) -> String {
    let hex = b.map { v -> String in
      let h = String(v, radix: 16)
      return h.count == 1 ? "0" + h : h
    }
    let groups = [0..<4, 4..<6, 6..<8, 8..<10, 10..<16]
    return groups.map { hex[$0].joined() }.joined(separator: "-")
  }
}
