import DatabaseKit
import JSONCore

extension Store {
  /// The keys of a store loaded by hand, read as integers (`CoreDataRows`): an object row
  /// whose Z_PK is no integer is refused, naming it (the store would have no id for it);
  /// any other key that is no integer reads as none and is noted, one warning per column.
  func checkTextKeys(_ m: CoreDataMapping, _ rows: CoreDataRows, _ summary: inout CoreDataImportSummary) throws {
    for (table, columns) in rows.converted.sorted(by: { $0.key < $1.key }) {
      let raw = "\(m.layout.schema).\(Identifier.quote(table))"
      let objects = m.entities.contains { $0.table == table }
      for column in columns {
        let col = Identifier.quote(column)
        let required = objects && column == "Z_PK"
        let bad = "\(required ? "" : "\(col) IS NOT NULL AND ")\(CoreDataRows.integer(col)) IS NULL"
        guard
          let (n, first) = try connection.prepare(
            "SELECT count(*), (SELECT \(col) FROM \(raw) WHERE \(bad) LIMIT 1) FROM \(raw) WHERE \(bad)"
          ).first([], { ($0.int(0), $0.value(1)) }), n > 0
        else { continue }
        if required {
          throw StoreError(
            .validation, "\(table) has a row whose Z_PK is \(Self.describe(first)), which is not an integer key; nothing was imported",
            ["table": .string(table), "column": "Z_PK"])
        }
        let what =
          m.joins.contains { $0.table == table && $0.sides.contains { $0.column == column } }
          ? "link\(n == 1 ? " is" : "s are") left out" : "value\(n == 1 ? " reads" : "s read") as none"
        summary.warnings.append(
          .object([
            "message": .string(
              "\(table).\(column): \(n) key\(n == 1 ? "" : "s") stored as text that \(n == 1 ? "is" : "are") no integer (first \(Self.describe(first))): the \(what)"
            ), "table": .string(table), "column": .string(column), "count": .int(n),
          ]))
      }
    }
  }

  /// A stored value as a message shows it: `'x1'`, `NULL`, `2.5`, `a blob of 3 bytes`.
  private static func describe(_ v: SQLValue) -> String {
    switch v {
    case .null: return "NULL"
    case .integer(let i): return String(i)
    case .real(let d): return String(d)
    case .text(let t): return "'\(t)'"
    case .blob(let b): return "a blob of \(b.count) bytes"
    }
  }
}
