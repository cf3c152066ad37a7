import DatabaseKit
import Foundation

/// A schema of its own on the PostgreSQL server `MODELSTORE_TEST_PG` (a libpq URL) names,
/// driven through `psql`: statements run in one session per `run`, with `search_path` set
/// to the schema, parameters bound as a prepared statement is (`PREPARE` then `EXECUTE`),
/// results read as CSV. `drop()` removes the schema.
public final class PostgresScratch {
  public let url: String
  public let schema: String
  private static let psql = URL(fileURLWithPath: "/usr/bin/psql")

  /// Nil when `MODELSTORE_TEST_PG` is not set.
  public static func fromEnvironment() throws -> PostgresScratch? {
    guard let url = ProcessInfo.processInfo.environment["MODELSTORE_TEST_PG"], !url.isEmpty else { return nil }
    let scratch = PostgresScratch(url: url, schema: "ms_dialect_\(getpid())_\(UInt32.random(in: 0...UInt32.max))")
    _ = try scratch.run([Statement("CREATE SCHEMA \(Identifier.quote(scratch.schema))")], inSchema: false)
    return scratch
  }

  private init(url: String, schema: String) {
    self.url = url
    self.schema = schema
  }

  public func drop() { _ = try? run([Statement("DROP SCHEMA IF EXISTS \(Identifier.quote(schema)) CASCADE")], inSchema: false) }

  /// Drops the schema and creates it again, empty.
  public func reset() throws {
    let q = Identifier.quote(schema)
    _ = try run([Statement("DROP SCHEMA IF EXISTS \(q) CASCADE"), Statement("CREATE SCHEMA \(q)")], inSchema: false)
  }

  /// One statement: SQL with `?` or `?N` placeholders, and the values bound to them.
  public struct Statement {
    public var sql: String
    public var args: [SQLValue]
    public init(_ sql: String, _ args: [SQLValue] = []) {
      self.sql = sql
      self.args = args
    }
  }

  /// One cell of a result: its text as PostgreSQL writes it, nil for NULL.
  public typealias Row = [String?]

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Runs `statements` in one session and returns the rows each gave (none for one that
  /// returns no rows).
  public func run(_ statements: [Statement], inSchema: Bool = true) throws -> [[Row]] {
    var script = "\\set ON_ERROR_STOP 1\nSET client_min_messages TO warning;\n"
    if inSchema { script += "SET search_path TO \(Identifier.quote(schema));\n" }
    for (i, s) in statements.enumerated() {
      script += "\\echo '\(Self.marker) \(i)'\n"
      if s.args.isEmpty {
        script += s.sql + ";\n"
      } else {
        script +=
          "PREPARE ms_q AS \(Self.numbered(s.sql));\nEXECUTE ms_q(\(s.args.map(Self.argument).joined(separator: ", ")));\nDEALLOCATE ms_q;\n"
      }
    }
    let result = try runProgram(
      Self.psql, ["-X", "-q", "--csv", "-t", "-P", "null=\(CSV.null)", "-d", url], input: Data(script.utf8), timeout: 600)
    guard result.status == 0, !result.timedOut else {
      throw Failure(description: "psql failed (status \(result.status)): \(result.stderr)")
    }
    var out: [[Row]] = Array(repeating: [], count: statements.count)
    var current = -1
    var rows: [Row] = []
    for record in CSV.records(result.stdout) {
      if record.count == 1, let first = record[0], first.hasPrefix(Self.marker + " ") {
        if current >= 0 { out[current] = rows }
        current = Int(first.dropFirst(Self.marker.count + 1))!
        rows = []
      } else if current >= 0 {
        rows.append(record)
      }
    }
    if current >= 0 { out[current] = rows }
    return out
  }

  private static let marker = "@@ms-statement"

  /// `?` and `?N` outside quotes as `$N`, as the engine's PostgreSQL connection prepares them.
  public static func numbered(_ sql: String) -> String {
    var out = String.UnicodeScalarView()
    var next = 0
    var quote: Unicode.Scalar?
    var chars = Array(sql.unicodeScalars)[...]
    while let c = chars.popFirst() {
      if let q = quote {
        out.append(c)
        if c == q { quote = nil }
        continue
      }
      if c == "'" || c == "\"" {
        quote = c
        out.append(c)
      } else if c == "?" {
        var digits = ""
        while let d = chars.first, ("0"..."9").contains(d) { digits.unicodeScalars.append(chars.removeFirst()) }
        if digits.isEmpty {
          next += 1
          digits = String(next)
        }
        out.append(contentsOf: ("$" + digits).unicodeScalars)
      } else {
        out.append(c)
      }
    }
    return String(out)
  }

  /// A bound value as the text an untyped literal carries to the parameter's type (a
  /// 16-byte blob is a uuid here; another blob a `bytea`).
  public static func argument(_ v: SQLValue) -> String {
    switch v {
    case .null: return "NULL"
    case .integer(let i): return "'\(i)'"
    case .real(let d):
      if d.isNaN { return "'NaN'" }
      if d.isInfinite { return d > 0 ? "'Infinity'" : "'-Infinity'" }
      return "'\(d)'"
    case .text(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let b):
      if b.count == 16 { return "'\(uuidText(b))'" }
      return "'\\x" + b.map { String(format: "%02x", $0) }.joined() + "'"
    }
  }

  public static func uuidText(_ b: [UInt8]) -> String {
    let hex = b.map { String(format: "%02x", $0) }
    return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
  }

  /// True when PostgreSQL's text of a cell is `v` as the engine's connection reads it back
  /// (booleans as 1/0, reals by value, uuids and `bytea` as 16 or more bytes).
  public static func agrees(_ v: SQLValue, _ cell: String?) -> Bool {
    guard let cell else { return v == .null }
    switch v {
    case .null: return false
    case .integer(let i): return cell == String(i) || (cell == "t" && i == 1) || (cell == "f" && i == 0)
    case .real(let d):
      let read: Double? = ["Infinity": .infinity, "-Infinity": -.infinity, "NaN": .nan][cell] ?? Double(cell)
      guard let read else { return false }
      return read.bitPattern == d.bitPattern || (read.isNaN && d.isNaN)
    case .text(let s): return cell == s
    case .blob(let b):
      if b.count == 16 && cell == uuidText(b) { return true }
      return cell == "\\x" + b.map { String(format: "%02x", $0) }.joined()
    }
  }
}

/// psql's CSV: fields split by commas, quoted with `"` (doubled inside) when they hold a
/// comma, a quote or a line break; NULL is written as `null` (psql's `\pset null`).
public enum CSV {
  public static let null = "␀NULL␀"

  /// Read as UTF-8 bytes (the delimiters are ASCII, which no other character's bytes
  /// contain), not by character: a combining mark after a comma or a quote would join it
  /// into one character.
  public static func records(_ text: String) -> [[String?]] {
    let bytes = Array(text.utf8)
    let (comma, quote, newline, cr) = (UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r"))
    var out: [[String?]] = []
    var record: [String?] = []
    var field: [UInt8] = []
    var quoted = false
    var inQuotes = false
    var started = false
    var i = 0
    func endField() {
      let s = String(decoding: field, as: UTF8.self)
      record.append(!quoted && s == null ? nil : s)
      field.removeAll(keepingCapacity: true)
      quoted = false
    }
    while i < bytes.count {
      let c = bytes[i]
      i += 1
      started = true
      if inQuotes {
        if c == quote {
          if i < bytes.count && bytes[i] == quote {
            field.append(quote)
            i += 1
          } else {
            inQuotes = false
          }
        } else {
          field.append(c)
        }
      } else if c == quote {
        inQuotes = true
        quoted = true
      } else if c == comma {
        endField()
      } else if c == newline {
        endField()
        out.append(record)
        record = []
        started = false
      } else if c != cr {
        field.append(c)
      }
    }
    if started {
      endField()
      out.append(record)
    }
    return out
  }
}
