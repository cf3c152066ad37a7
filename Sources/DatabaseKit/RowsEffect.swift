/// What a statement may do to rows a transaction has already read: the rule each engine's
/// connection applies to move its `rowsEpoch` (`DatabaseConnection.rowsEpoch`).
public enum RowsEffect {
  /// True when a statement that writes may delete or replace rows or change the schema:
  /// everything but a plain INSERT, one that neither replaces a row it conflicts with
  /// (SQLite's `INSERT OR REPLACE`, `REPLACE INTO`) nor updates it (`ON CONFLICT ... DO
  /// UPDATE`). A statement that only reads (`readOnly`) removes nothing.
  public static func mayRemoveRows(_ sql: String, readOnly: Bool) -> Bool {
    if readOnly { return false }
    let head = sql.prefix { $0 == " " || $0.isLetter }.uppercased()
    guard head.hasPrefix("INSERT ") && !head.hasPrefix("INSERT OR REPLACE ") else { return true }
    return sql.uppercased().contains("DO UPDATE")
  }
}
