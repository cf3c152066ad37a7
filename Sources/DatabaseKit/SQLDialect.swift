/// The SQL a database engine writes differently, as the engine (`StoreEngine`) asks for
/// it. Everything else the engine writes is SQL both engines read the same way; what is
/// still SQLite's alone is listed in CONTRIBUTING.md, "Database seam".
///
/// Each answer is text the engine builds a statement from once per statement shape, never
/// per row. Expressions passed in are SQL already (quoted names, placeholders); what comes
/// back is SQL too. SQLite's answers are what the engine wrote before the seam.
public protocol SQLDialect: Sendable {
  /// The engine's name, for messages and `store.info` ("sqlite").
  var name: String { get }

  // MARK: Tables and columns

  /// The longest name of a table, column or index the database keeps, in bytes of UTF-8;
  /// nil when any length is kept. A longer name is stored as `Identifier.fitted` makes
  /// it: the engine's SQL names it in full, and the connection writes its stored form.
  var identifierLimit: Int? { get }
  /// `sql` with every quoted name longer than `identifierLimit` in its stored form, as the
  /// connection sends it (for comparing the engine's SQL with what a catalog rebuilds).
  func storedNames(inSQL sql: String) -> String

  /// The declared type of a column holding values of `content`.
  func columnType(_ content: ColumnContent) -> String
  /// A column's type in `CREATE TABLE` / `ADD COLUMN`: `columnType`, and for text the
  /// collation that compares by code point, as SQLite's BINARY does (sorting, `<`,
  /// `min`/`max` of strings).
  func columnDefinition(_ content: ColumnContent) -> String
  /// What follows a table's column list when its primary key is its whole content
  /// (SQLite `WITHOUT ROWID`; empty where tables have no row ids).
  var keyOnlyTableOptions: String { get }
  /// The name of a connection's temporary table in statement text (`CREATE TEMP TABLE
  /// "x"` makes it; this names it in DROP, INSERT and SELECT).
  func temporaryTable(_ name: String) -> String
  /// `value` as a literal in statement text (a column's `DEFAULT`, which cannot be a bound
  /// parameter); nil when no literal can carry it.
  func literal(_ value: SQLValue) -> String?
  /// `value` as the `DEFAULT` of a column holding `content`: `literal(value)` typed as the
  /// column is where the engine's value class is not the column's type (a uuid's 16 bytes).
  func defaultLiteral(_ value: SQLValue, for content: ColumnContent) -> String?

  // MARK: Inserts

  /// An INSERT that skips rows whose key or unique columns are already taken: `rest` is
  /// what follows `INSERT INTO` (the table, its columns and `VALUES (...)` or a SELECT).
  func insertSkippingDuplicates(_ rest: String) -> String
  /// An INSERT of `columns` (all bound, in order) into `table` that replaces the row whose
  /// `key` columns match. Names are quoted already.
  func insertReplacing(into table: String, columns: [String], key: [String]) -> String

  /// True when a statement that fails (a uniqueness refused) leaves the whole transaction
  /// unusable until it rolls back (PostgreSQL), rather than failing alone (SQLite): the
  /// engine then runs the statements whose failure it reports with more statements (which
  /// object holds the value) inside a savepoint of their own.
  var failedStatementAbortsTransaction: Bool { get }

  // MARK: Parameters and values

  /// The most values one statement may bind (SQLite's SQLITE_MAX_VARIABLE_NUMBER; on
  /// PostgreSQL what libpq can read the parameter types of): a predicate binding more is
  /// refused before it runs.
  var maxBoundValues: Int { get }

  /// A bound parameter (`placeholder`, `?` or `?N`) holding `value`'s class, typed where
  /// the engine cannot infer a type from the context or would infer the column's type for
  /// a value of another class (an integer column compared with 2.5).
  func parameter(_ placeholder: String, _ value: SQLValue) -> String
  /// A condition that is always true (false), as a condition and as a value.
  func boolean(_ value: Bool) -> String
  /// `condition`, false where it is unknown (NULL).
  func falseWhenUnknown(_ condition: String) -> String
  /// Null-safe equality: true when `a` and `b` are equal or both NULL.
  func isNotDistinct(_ a: String, _ b: String) -> String
  /// Null-safe inequality: the negation of `isNotDistinct`.
  func isDistinct(_ a: String, _ b: String) -> String
  /// `expression` as a double (decimals stored as text, real division).
  func castToReal(_ expression: String) -> String
  /// Text `expression` as a double, read as SQLite's `CAST(x AS REAL)` reads it (the
  /// longest prefix that is a number after leading white space, 0 when none is):
  /// `CAST(x, 'NSNumber')` of a string.
  func textToReal(_ expression: String) -> String
  /// `integer op real` (op one of `= <> < <= > >=`, NULL when either side is), compared
  /// exactly as SQLite compares an integer with a real; nil when the engine's own
  /// comparison is exact (SQLite).
  func exactComparison(integer: String, _ op: String, real: String) -> String?
  /// `expression` as text (`CAST(x, 'NSString')`).
  func castToText(_ expression: String) -> String
  /// A text `expression` the engine builds (not a column's) that sorts by code point, as
  /// the columns do (`columnDefinition`).
  func textByCodePoint(_ expression: String) -> String
  /// `a / b` as doubles (`a` converted), NULL when `b` is 0.
  func divide(_ a: String, _ b: String) -> String
  /// The larger of two values, neither of them NULL (SQLite's two-argument `max`).
  func greatest(_ a: String, _ b: String) -> String

  // MARK: Strings

  /// `text` begins with, ends with or contains `part` (a non-empty `part`; an empty one
  /// matches nothing, and a NULL side makes the test unknown).
  func stringTest(_ test: StringTest, _ text: String, _ part: String) -> String
  /// `text` matches `pattern`, an NSPredicate LIKE pattern (`*` any run, `?` one
  /// character, everything else literal) made ready by `wildcardPattern` or
  /// `wildcardPatternSQL`.
  func wildcardMatch(_ text: String, _ pattern: String) -> String
  /// A constant LIKE pattern made ready for `wildcardMatch` (its literal characters escaped).
  func wildcardPattern(_ pattern: String) -> String
  /// The same as `wildcardPattern` in SQL, for a pattern read from a column.
  func wildcardPatternSQL(_ expression: String) -> String
  /// `text` folded for `[c]` (flags 1), `[d]` (2) or `[cd]` (3): the store's `ms_fold`.
  func fold(_ text: String, flags: Int) -> String
  /// MATCHES: the whole of `text` against the regular expression `pattern` with flags
  /// `[c]` 1 and `[d]` 2; `place` is three bound values (the offset, the encoded error
  /// place, whether it is a JSON node) naming the comparison in errors.
  func regexMatch(pattern: String, text: String, flags: Int, place: String) -> String
  /// The canonical uppercase text of a uuid column.
  func uuidText(_ column: String) -> String
  /// The stored form of a uuid column from the UUID text `expression`.
  func uuidFromText(_ expression: String) -> String
  /// The key of the calendar period (`unit`: day, week, month, year) holding the date
  /// `seconds` on the wall clock of `zone` (`UTC`, `±HH:MM`, an IANA name): the store's
  /// `ms_bucket`, NULL for a date without a calendar date.
  func dateBucket(_ seconds: String, unit: String, zone: String) -> String

  // MARK: Lists

  /// A table of the elements of the JSON array bound at `parameter`, in one column named
  /// `value` (read it through `jsonArrayValue`): long IN lists and key lists travel as one
  /// bound value.
  func jsonArrayElements(_ parameter: String) -> String
  /// The `value` column of `jsonArrayElements` as `element`s.
  func jsonArrayValue(_ element: ListElement) -> String
  /// The values of `select`'s one column (named `x`), in its order, joined by commas;
  /// NULL when there are none.
  func orderedList(_ select: String) -> String
  /// The aggregate joining a group's `expression` values with `separator`.
  func groupConcat(_ expression: String, separator: String) -> String

  // MARK: Aggregates

  /// The sum of `argument` (a column, `DISTINCT` and a column) as an integer when
  /// `integers`, 0 when there are no values; beyond 64 bits an error that
  /// `DatabaseError.isIntegerOverflow` recognizes.
  func total(_ argument: String, integers: Bool) -> String
  /// True when `total` of non-integers gives NULL for no values, which the engine reads as
  /// the integer 0 (SQLite gives 0 itself, and NULL only for +inf and -inf together).
  var totalOfNoRealsIsNull: Bool { get }
  /// The average of `argument` (of integers when `integers`) as a double.
  func average(_ argument: String, integers: Bool) -> String

  // MARK: Queries

  /// `expression` as an ORDER BY term that places NULL as SQLite does: first ascending,
  /// last descending.
  func orderTerm(_ expression: String, _ order: SortOrder) -> String
  /// ` LIMIT … OFFSET …` for the limit and offset given (nil: none).
  func limitClause(limit: Int?, offset: Int?) -> String
  /// `select` as a table in a FROM clause.
  func derivedTable(_ select: String) -> String

  // MARK: Introspection (statements the engine reads)

  /// The names of the store's tables, by name, leaving out the engine's bookkeeping
  /// (`_ms_…`) and the database's own.
  var tablesSQL: String { get }
  /// A table's columns (bound: the table name): name, then declared type as `columnType`
  /// writes it.
  var columnsSQL: String { get }
  /// The engine-managed indexes (`_ix_`, `_ux_`, `_fk_`): name, then the definition in
  /// the engine's own form (`CREATE [UNIQUE] INDEX "name" ON "T" ("a", …)[ WHERE …]`),
  /// following renames of tables and columns.
  var managedIndexesSQL: String { get }
  /// The definition of the index named by the bound value, in the same form.
  var indexDefinitionSQL: String { get }
  /// A row when a table or index is named by the bound value.
  var nameTakenSQL: String { get }
  /// The names of the indexes made by CREATE INDEX on the table (first bound value) that
  /// cover the column (second).
  var indexesOnColumnSQL: String { get }

  // MARK: The store's own functions

  /// Statements that install what the engine's SQL calls but the database does not
  /// have (`ms_fold`, `ms_regexp`, `ms_bucket`) in the store, for an engine that cannot
  /// call Swift from SQL; run once a store is opened for writing. Empty for SQLite, whose
  /// connection registers them as Swift functions.
  func storeSetupStatements(folding: TextFoldingTable) -> [String]
}

/// What a column holds, in the engine's terms: a dialect picks the column type of each.
/// The stored values are `SQLValue`s of one class each (integer, boolean 0/1: integer;
/// real, date in seconds since 1970: real; decimal as canonical text, text, json text:
/// text; uuid as 16 bytes, bytes: blob).
public enum ColumnContent: Sendable, CaseIterable {
  case integer, boolean, real, date, decimal, text, uuid, bytes, json
}

/// The string tests of `SQLDialect.stringTest`.
public enum StringTest: Sendable, CaseIterable {
  case beginsWith, endsWith, contains
}

/// What the elements of a bound JSON array are read as (`SQLDialect.jsonArrayValue`).
public enum ListElement: Sendable, CaseIterable {
  /// Integers only.
  case integer
  /// Doubles only.
  case real
  /// Integers and doubles together, compared exactly.
  case number
  case text
}

/// The direction of an ORDER BY term; `unstated` is ascending written without a keyword.
public enum SortOrder: Sendable, CaseIterable {
  case ascending, descending, unstated
}

/// The diacritic folding of `ms_fold` (`[d]`), as data, for an engine that defines the
/// function in SQL: each precomposed letter and its base letter, and the combining marks
/// dropped.
public struct TextFoldingTable: Sendable {
  public var baseLetters: [(letter: Unicode.Scalar, base: Unicode.Scalar)]
  public var droppedMarks: ClosedRange<UInt32>

  public init(baseLetters: [(letter: Unicode.Scalar, base: Unicode.Scalar)], droppedMarks: ClosedRange<UInt32>) {
    self.baseLetters = baseLetters
    self.droppedMarks = droppedMarks
  }
}

extension SQLDialect {
  public var identifierLimit: Int? { nil }
  public func storedNames(inSQL sql: String) -> String { sql }

  /// The name the database keeps for the table, column or index `name`: `name` itself, or
  /// its short form when it is longer than `identifierLimit`. For comparing the engine's
  /// names with the names a catalog lists.
  public func storedName(_ name: String) -> String {
    identifierLimit.map { Identifier.fitted(name, limit: $0) } ?? name
  }
}
