/// A value crossing the database seam: what is bound to a statement and read from a row.
/// The five storage classes of SQLite, which every engine can carry: an engine with richer
/// column types (PostgreSQL's `uuid`, `boolean`, `numeric`, `timestamptz`) converts them
/// to and from these at its statements, by the type of the parameter or column.
public enum SQLValue: Equatable, Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

extension SQLValue {
  /// True when `other` is the same value, reals compared bit for bit (so `-0.0` is not `0.0`).
  public func isIdentical(to other: SQLValue) -> Bool {
    if case .real(let a) = self, case .real(let b) = other { return a.bitPattern == b.bitPattern }
    return self == other
  }
}

/// A column's class in the current row of a result.
public enum StorageClass: Sendable { case null, integer, real, text, blob }
