import DatabaseKit

/// Numbers as SQLite gives them, on PostgreSQL: text read as a number the way SQLite's
/// `CAST(x AS REAL)` reads it (`CAST(x, 'NSNumber')` of a string), and an integer sum that
/// fails beyond 64 bits with an error the engine tells apart from PostgreSQL's other
/// "out of range" errors (arithmetic in a predicate beyond 64 bits or beyond the doubles,
/// which protocol.md lists as failing the statement).
extension PostgresDialect {
  /// SQLite's CAST to REAL of text: leading white space (space, tab, line feed, vertical
  /// tab, form feed, carriage return) skipped, then the longest prefix that is a decimal
  /// number (sign, digits with a point, exponent), 0 when there is none (`'abc'`, `''`,
  /// `'0x1A'` is 0, `'  12abc'` 12); beyond the largest double ±infinity, below half the
  /// smallest 0. PostgreSQL's own cast refuses all of these but the plain numbers.
  public func textToReal(_ expression: String) -> String { "ms_number(\(expression))" }

  /// The DETAIL of the error `ms_integer_sum` raises (SQLSTATE 22003, as PostgreSQL's
  /// own "bigint out of range"): the engine's own text, in no language of the server's.
  public static let integerSumOverflowDetail = "ms_integer_sum"

  /// An integer against a double, exactly (SQLite's `sqlite3IntFloatCompare`): PostgreSQL
  /// compares a bigint and a double precision as two doubles. `ms_int_real_cmp(i, r)` is
  /// -1, 0 or 1 as i is below, at or above r (NULL when either is): a double beyond the
  /// integers is above or below every one; within them the integer part decides, then the
  /// fraction.
  public func exactComparison(integer: String, _ op: String, real: String) -> String? {
    "(ms_int_real_cmp(\(integer), \(real)) \(op) 0)"
  }

  static let integerRealComparisonFunction = """
    CREATE OR REPLACE FUNCTION ms_int_real_cmp(i bigint, r double precision) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $ms$
    SELECT CASE WHEN i IS NULL OR r IS NULL THEN NULL
      WHEN r < CAST(-9223372036854775808 AS double precision) THEN 1
      WHEN r >= CAST(9223372036854775808 AS double precision) THEN -1
      WHEN i < CAST(trunc(r) AS bigint) THEN -1
      WHEN i > CAST(trunc(r) AS bigint) THEN 1
      WHEN r > trunc(r) THEN -1
      WHEN r < trunc(r) THEN 1
      ELSE 0 END
    $ms$
    """

  static let numberFunction = """
    CREATE OR REPLACE FUNCTION ms_number(s text) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $ms$
    SELECT CASE WHEN s IS NULL THEN NULL WHEN m IS NULL THEN 0
      WHEN abs(n) >= 1.797693134862315807937289714053e308 THEN CAST(CASE WHEN n > 0 THEN 'Infinity' ELSE '-Infinity' END AS double precision)
      WHEN abs(n) <= 2.4703282292062327208828439643e-324 THEN 0
      ELSE CAST(n AS double precision) END
    FROM (SELECT m, CAST(m AS numeric) AS n
      FROM (SELECT substring(s COLLATE "C" FROM '^[ \\t\\n\\v\\f\\r]*([-+]?(?:[0-9]+[.]?[0-9]*|[.][0-9]+)(?:[eE][-+]?[0-9]+)?)') AS m) a) b
    $ms$
    """

  /// `ms_integer_sum(total)`: an exact `sum` of bigints (a numeric) as a bigint, or the
  /// error `isIntegerOverflow` recognizes when it is beyond 64 bits.
  static let integerSumFunction = """
    CREATE OR REPLACE FUNCTION ms_integer_sum(total numeric) RETURNS bigint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $ms$
    BEGIN
      IF total < -9223372036854775808 OR total > 9223372036854775807 THEN
        RAISE EXCEPTION 'integer overflow' USING ERRCODE = 'numeric_value_out_of_range', DETAIL = '\(integerSumOverflowDetail)';
      END IF;
      RETURN total;
    END
    $ms$
    """
}
