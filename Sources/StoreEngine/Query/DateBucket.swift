import DatabaseKit
import SchemaModel
import TimeZones

/// A calendar period that dates are grouped by (`sectionBy`, `groupBy`), and the text key
/// naming the period a date falls in, on the wall clock of a time zone:
///
/// | bucket | key | example |
/// |---|---|---|
/// | `day` | `YYYY-MM-DD` | `2026-03-29` |
/// | `week` | ISO 8601 week, `YYYY-Www` (weeks start on Monday; week 1 holds the year's first Thursday) | `2026-W13` |
/// | `month` | `YYYY-MM` | `2026-03` |
/// | `year` | `YYYY` | `2026` |
///
/// Keys sort as text in time order (years 0 to 9999), so groups can be ordered by them.
/// A stored value without a calendar date (not finite, or beyond `ISODate.maxSeconds`)
/// has no key: its bucket is nil, as for a nil date.
public enum DateBucket: String, CaseIterable, Sendable {
  case day, week, month, year

  /// The key of the period holding UTC seconds `seconds` in `zone`; nil when `seconds`
  /// has no calendar date. In range, every step below fits in 64 bits: |t| < 10^14 and a
  /// zone's offset is an Int32.
  func key(_ seconds: Double, in zone: TimeZoneRules) -> String? {
    guard ISODate.hasCalendarDate(seconds) else { return nil }
    let t = Int64(seconds.rounded(.down))
    let days = Int((t + Int64(zone.offset(at: t))).floorDiv(86400))
    let date = CivilDate.fromDays(days)
    switch self {
    case .day: return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))"
    case .month: return "\(pad(date.year, 4))-\(pad(date.month, 2))"
    case .year: return pad(date.year, 4)
    case .week:
      // The ISO week-year is the year of the week's Thursday.
      let isoWeekday = (CivilDate.weekday(days) + 6) % 7  // Monday 0 ... Sunday 6
      let thursday = days - isoWeekday + 3
      let weekYear = CivilDate.fromDays(thursday).year
      let week = (thursday - ISODate.daysFromCivil(weekYear, 1, 1)) / 7 + 1
      return "\(pad(weekYear, 4))-W\(pad(week, 2))"
    }
  }

  /// The body of the SQL function `ms_bucket(seconds, unit, zone)`: the key of the
  /// period holding a stored date (NULL for NULL, text, a blob, or a number without a
  /// calendar date), so grouping and sorting by it happen
  /// inside SQLite. Requests check their zone before running SQL; the errors here are
  /// for hand-written SQL.
  static func sqlFunction(_ zones: TimeZoneCache) -> ([SQLValue]) throws -> SQLValue {
    { args in
      let seconds: Double
      switch args[0] {
      case .real(let d): seconds = d
      case .integer(let i): seconds = Double(i)
      default: return .null
      }
      guard case .text(let u) = args[1], let unit = DateBucket(rawValue: u) else {
        throw TimeZoneRules.LoadError(reason: "ms_bucket: the unit must be day, week, month or year")
      }
      guard case .text(let zone) = args[2] else { throw TimeZoneRules.LoadError(reason: "ms_bucket: the zone must be text") }
      do {
        return try unit.key(seconds, in: zones.rules(zone)).map { .text($0) } ?? .null
      } catch let e as TimeZoneRules.LoadError {
        throw TimeZoneRules.LoadError(reason: "ms_bucket: unknown time zone '\(zone)' (\(e.reason))")
      }
    }
  }

  private func pad(_ v: Int, _ width: Int) -> String {
    let digits = String(abs(v))
    return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
