/// A value as SQLite stores it: the five storage classes, nothing more.
public enum SQLValue: Equatable, Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}
