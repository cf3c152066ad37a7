import DatabaseKit

/// PostgreSQL's answers to the engine's dialect questions. The stored values are the
/// engine's `SQLValue`s (CONTRIBUTING.md, "Database seam"); the connection converts them
/// to and from the column types chosen here by the type of each parameter and column.
public struct PostgresDialect: SQLDialect {
  public init() {}

  public var name: String { "postgresql" }
  /// `NAMEDATALEN - 1`: PostgreSQL cuts longer identifiers (the connection writes their
  /// short forms instead, `Placeholders`).
  public var identifierLimit: Int? { PostgresDialect.identifierBytes }
  public static let identifierBytes = 63

  /// `sql` with every quoted identifier longer than `identifierLimit` in its stored form, as
  /// the connection sends it (for comparing the engine's SQL with what a catalog rebuilds).
  public func storedNames(inSQL sql: String) -> String { Placeholders.rewrite(sql, parameters: false).sql }

  /// What libpq can describe: it refuses a ParameterDescription message over 30,000
  /// bytes (libpq 15's fe-protocol3.c, `VALID_LONG_MESSAGE_TYPE`), 4 bytes a parameter.
  public var maxBoundValues: Int { PostgresStatement.maxParameters }

  public func columnType(_ content: ColumnContent) -> String {
    switch content {
    case .integer: return "BIGINT"
    case .boolean: return "SMALLINT"
    case .real, .date: return "DOUBLE PRECISION"
    case .uuid: return "UUID"
    case .bytes: return "BYTEA"
    case .decimal, .text, .json: return "TEXT"
    }
  }

  public func literal(_ value: SQLValue) -> String? {
    switch value {
    case .null: return "NULL"
    case .integer(let i): return String(i)
    case .real(let d):
      guard d.isFinite else { return nil }
      return "\(d)::double precision"
    case .text(let s):
      guard !s.utf8.contains(0) else { return nil }
      return StringLiteral.quote(s)
    case .blob(let bytes):
      let hex = bytes.map { b -> String in
        let h = String(b, radix: 16)
        return h.count == 1 ? "0" + h : h
      }.joined()
      return "'\\x\(hex)'::bytea"
    }
  }

  public func insertSkippingDuplicates(_ rest: String) -> String { "INSERT INTO " + rest + " ON CONFLICT DO NOTHING" }

  public func insertReplacing(into table: String, columns: [String], key: [String]) -> String {
    let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
    let others = columns.filter { !key.contains($0) }
    let action =
      others.isEmpty
      ? "DO NOTHING" : "DO UPDATE SET " + others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
    return
      "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT (\(key.joined(separator: ", "))) \(action)"
  }
}
