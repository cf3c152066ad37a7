import FileAccess
import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// The bytes an import reads: a file (streamed line by line for ndjson) or text given
/// inline. A file is read again for the second pass rather than kept in memory.
public enum ImportInput {
  case file(path: String)
  case bytes([UInt8])

  /// The longest line of an ndjson file (one record), as the longest message.
  public static let maxLineBytes = 64 << 20
  /// The largest file read whole: a `json`-layout import (one document, parsed at once;
  /// ndjson streams and has no total limit).
  public static let maxDocumentBytes = 256 << 20

  /// Calls `body` with each line (without its `\n` and a `\r` before it) and its 1-based
  /// number, until the input ends or `body` returns false.
  func forEachLine(_ body: (Int, ArraySlice<UInt8>) throws -> Bool) throws {
    switch self {
    case .bytes(let bytes):
      var number = 0
      var start = bytes.startIndex
      while start < bytes.endIndex {
        let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
        number += 1
        guard try body(number, Self.trimCR(bytes[start..<end])) else { return }
        start = end + 1
      }
    case .file(let path):
      let fd = try Self.open(path)
      defer { close(fd) }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      var pending: [UInt8] = []
      var number = 0
      while true {
        let n = try Self.read(fd, &chunk, path)
        if n == 0 { break }
        var start = 0
        while let nl = chunk[start..<n].firstIndex(of: 0x0A) {
          number += 1
          let keepGoing: Bool
          if pending.isEmpty {
            keepGoing = try body(number, Self.trimCR(chunk[start..<nl]))
          } else {
            try Self.checkLine(pending.count + (nl - start), number, path)
            pending.append(contentsOf: chunk[start..<nl])
            keepGoing = try body(number, Self.trimCR(pending[...]))
            pending.removeAll(keepingCapacity: true)
          }
          guard keepGoing else { return }
          start = nl + 1
        }
        try Self.checkLine(pending.count + (n - start), number + 1, path)
        pending.append(contentsOf: chunk[start..<n])
      }
      if !pending.isEmpty { _ = try body(number + 1, Self.trimCR(pending[...])) }
    }
  }

  /// The whole input (the `json` layout is one document, parsed at once).
  func readAll() throws -> [UInt8] {
    switch self {
    case .bytes(let bytes): return bytes
    case .file(let path):
      do {
        return try UserPath.readAll(path, maxBytes: Self.maxDocumentBytes, what: "the file")
      } catch let e as FileAccessError {
        throw StoreError(e)
      }
    }
  }

  private static func checkLine(_ length: Int, _ number: Int, _ path: String) throws {
    guard length > maxLineBytes else { return }
    throw StoreError(
      .invalidArgument, "line \(number) of '\(path)' is longer than \(maxLineBytes) bytes, the most one record may take",
      ["path": .string(path), "line": .int(Int64(number)), "limit": .int(Int64(maxLineBytes)), "reason": "tooLarge"])
  }

  static func isBlank(_ line: ArraySlice<UInt8>) -> Bool { line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }

  private static func trimCR(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> { line.last == 0x0D ? line.dropLast() : line }

  /// A regular file opened through `UserPath` (no devices, FIFOs, dangling links or NULs).
  private static func open(_ path: String) throws -> Int32 {
    do {
      return try UserPath.openForReading(path, what: "the file")
    } catch let e as FileAccessError {
      throw StoreError(e)
    }
  }

  private static func read(_ fd: Int32, _ buffer: inout [UInt8], _ path: String) throws -> Int {
    do {
      return try UserPath.read(fd, &buffer, path)
    } catch let e as FileAccessError {
      throw StoreError(e)
    }
  }
}

/// Where a record sits in the input: its line (ndjson) or its index in `objects` (json).
/// Errors name it as `line N` (with `data.line`) or as a JSON pointer (`data.pointer`).
struct RecordLocation {
  let layout: InterchangeFormat.Layout
  /// The line number (ndjson) or the index in `objects` (json).
  let number: Int

  /// The place inside the record, `sub` a JSON pointer relative to it (`/title`, `/tags/2`).
  func describe(_ sub: String = "") -> String {
    switch layout {
    case .ndjson: return sub.isEmpty ? "line \(number)" : "line \(number) at \(sub)"
    case .json: return "/objects/\(number)\(sub)"
    }
  }

  func details(_ sub: String = "") -> JSONObject {
    switch layout {
    case .ndjson:
      var o: JSONObject = ["line": .int(Int64(number))]
      if !sub.isEmpty { o.append("pointer", .string(sub)) }
      return o
    case .json: return ["pointer": .string("/objects/\(number)\(sub)")]
    }
  }

  /// The place given to engine calls for this record; `relocate` recognises it again.
  var label: ErrorPlace { ErrorPlace(.record) }

  /// An error about this record.
  func error(_ kind: StoreError.Kind, _ sub: String, _ message: String, _ extra: JSONObject = [:]) -> StoreError {
    var details = extra
    for m in self.details(sub).members { details[m.key] = m.value }
    return StoreError(kind, "\(describe(sub)): \(message)", details)
  }

  /// Rewrites an engine error raised for this record so that it names the record's
  /// position instead of its place: `record.tags[1]: ...` becomes `line 7 at /tags/1: ...`
  /// (or `/objects/6/tags/1: ...`).
  func relocate(_ e: StoreError) -> StoreError {
    switch e.kind {
    case .cancelled, .storage, .busy, .readOnly, .transaction: return e
    default: break
    }
    var body = e.text
    var sub = ""
    if let place = e.place, place.argument == .record {
      body = e.body
      sub = place.steps.isEmpty ? "" : Self.pointer(place.steps)
    }
    var details = e.details
    details["path"] = nil
    details["index"] = nil
    for m in self.details(sub).members { details[m.key] = m.value }
    return StoreError(e.kind, "\(describe(sub)): " + body, details)
  }

  /// The steps into a record as a JSON pointer: `tags[2]` → `/tags/2`; `title` → `/title`.
  static func pointer(_ steps: [ErrorPlace.Step]) -> String {
    var out = ""
    for step in steps {
      switch step {
      case .key(let k):
        out += "/"
        for c in k {
          switch c {
          case "~": out += "~0"
          case "/": out += "~1"
          default: out.append(c)
          }
        }
      case .index(let i): out += "/\(i)"
      case .stage(let from, let to): out += "/\(from)→\(to)"
      }
    }
    return out
  }
}
