import SchemaModel

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01).
public enum CivilDate {
  public static func fromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
    let (y, m, d) = ISODate.civilFromDays(days)
    return (y, m, d)
  }

  /// 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday).
  public static func weekday(_ days: Int) -> Int { ((days % 7) + 11) % 7 }

  public static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

  public static func daysInMonth(_ y: Int, _ m: Int) -> Int {
    switch m {
    case 2: return isLeap(y) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}

extension Int64 {
  /// Division rounding toward negative infinity, so times before 1970 fall on the right day.
  public func floorDiv(_ d: Int64) -> Int64 {
    let q = self / d
    return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
  }
}
