import DatabaseKit
import SchemaModel

#if canImport(Glibc)
  import Glibc
#endif

/// How much history a process keeps (`serve --history-retention`, `store.open
/// {historyRetention}`): everything, the newest N transactions, or those younger than a
/// duration. The process that commits prunes, inside its commits, so a long-lived store
/// does not grow without bound and no extra write transaction is needed.
public enum HistoryRetention: Equatable, CustomStringConvertible {
  case forever
  /// Keep the newest N transactions (N ≥ 1).
  case count(Int64)
  /// Keep transactions younger than this many seconds (> 0).
  case duration(Double)

  /// `forever`, a whole number of transactions (`100000`), or a duration: a whole number
  /// with a unit `s`, `m`, `h`, `d` or `w` (`90s`, `30m`, `12h`, `7d`, `2w`).
  public static func parse(_ text: String) throws -> HistoryRetention {
    if text == "forever" { return .forever }
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800]
    if let unit = text.last, let seconds = units[unit], let n = Int64(text.dropLast()), n > 0 {
      return .duration(Double(n) * seconds)
    }
    if let n = Int64(text), n > 0 { return .count(n) }
    throw StoreError(
      .invalidArgument,
      "history retention must be 'forever', a number of transactions (such as 100000) or a duration (such as 90s, 30m, 12h, 7d, 2w), got '\(text)'",
      ["retention": .string(text)])
  }

  public var description: String {
    switch self {
    case .forever: return "forever"
    case .count(let n): return "\(n)"
    case .duration(let s):
      for (unit, size) in [("w", 604800.0), ("d", 86400), ("h", 3600), ("m", 60)] where s.truncatingRemainder(dividingBy: size) == 0 {
        return "\(Int64(s / size))\(unit)"
      }
      return "\(Int64(s))s"
    }
  }

  /// With `.count(n)`, rows are pruned once this many beyond `n` have gathered, so that a
  /// commit deletes a batch now and then instead of one row every time.
  static func slack(_ n: Int64) -> Int64 { min(1000, max(1, n / 100)) }
}

extension Store {
  /// Prunes the history as `historyRetention` says, inside the running write (called
  /// after each history transaction is appended). By count: when more than `slack` rows
  /// beyond the newest N have gathered, everything older than the newest N goes. By
  /// duration: at most once a second, the oldest rows whose timestamp is older than the
  /// duration go, up to 1024 at a time (tokens grow with time, so these are the oldest).
  func applyHistoryRetention() throws {
    switch historySettings.retention {
    case .forever: return
    case .count(let n):
      let sql = "SELECT min(\"token\"), max(\"token\") FROM \(Store.historyTable)"
      guard let row = try connection.cached(sql).first([], { ($0.int(0), $0.int(1)) }) else { return }
      let keepFrom = row.1 - n + 1
      if keepFrom - row.0 >= HistoryRetention.slack(n) { _ = try deleteHistoryRows(before: keepFrom) }
    case .duration(let seconds):
      let now = currentTimeSeconds()
      guard now - historySettings.lastRetentionPass >= 1 else { return }
      historySettings.lastRetentionPass = now
      let oldest = connection.dialect.derivedTable(
        "SELECT \"token\", \"timestamp\" FROM \(Store.historyTable) ORDER BY \"token\" LIMIT 1024")
      let newestOld = try connection.cached("SELECT max(\"token\") FROM \(oldest) WHERE \"timestamp\" < ?").first([.real(now - seconds)]) {
        $0.isNull(0) ? nil : $0.int(0)
      }
      if let t = newestOld ?? nil { _ = try deleteHistoryRows(before: t + 1) }
    }
  }
}
