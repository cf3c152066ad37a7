import DatabaseKit

extension Store {
  /// How many history transactions the file holds (0 when it has no history table), and
  /// the oldest and newest tokens among them; for `modelstore info`.
  public func historySize() throws -> (transactions: Int, oldest: Int64?, newest: Int64?) {
    try readingOneSnapshot {
      guard try connection.hasTable(Store.historyTable) else { return (0, nil, nil) }
      return try connection.prepare("SELECT count(*), min(\"token\"), max(\"token\") FROM \(Store.historyTable)").first([]) { row in
        (Int(row.int(0)), row.isNull(1) ? nil : row.int(1), row.isNull(2) ? nil : row.int(2))
      } ?? (0, nil, nil)
    }
  }
}
