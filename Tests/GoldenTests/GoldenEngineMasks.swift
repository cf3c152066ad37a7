import JSONCore
import TestSupport

/// What legitimately differs between the engines in a transcript's replies, declared once
/// for every transcript (Tests/Golden/README.md, "Both engines"). A transcript is recorded
/// on SQLite (`serve --memory`); on PostgreSQL (`MODELSTORE_TEST_ENGINE=postgresql`) the
/// replay serves a fresh schema instead, and these members of the replies are compared as
/// `"<ignore>"`: where the store lives and what only one engine reports. Everything else
/// must be the same on both.
enum GoldenEngineMasks {
  struct Mask {
    /// The method whose replies carry the member; nil for every method.
    var method: String?
    /// The member's path in the reply.
    var path: [String]
    /// Why it differs.
    var reason: String
  }

  static let postgresql: [Mask] = [
    Mask(method: "store.info", path: ["result", "path"], reason: "a schema's URL where SQLite has a file (null in memory)"),
    Mask(method: "store.info", path: ["result", "memory"], reason: "the transcripts' SQLite store is in memory, PostgreSQL's a schema"),
    Mask(method: "store.info", path: ["result", "sizeBytes"], reason: "the engines' own sizes"),
    Mask(method: "store.info", path: ["result", "journalMode"], reason: "SQLite's journal mode only"),
    Mask(method: "store.info", path: ["result", "sqliteVersion"], reason: "SQLite's library only"),
    Mask(method: "store.info", path: ["result", "postgresql"], reason: "PostgreSQL's database, schema and server version only"),
    Mask(method: "store.check", path: ["result", "integrity"], reason: "SQLite's PRAGMA integrity_check; empty on PostgreSQL"),
    Mask(method: nil, path: ["error", "data", "sqliteCode"], reason: "SQLite's result code only"),
    Mask(method: nil, path: ["error", "data", "sqliteName"], reason: "SQLite's result code only"),
    Mask(method: nil, path: ["error", "data", "sqlstate"], reason: "PostgreSQL's SQLSTATE only"),
  ]

  /// The masks of this run's engine.
  static var current: [Mask] { TestEngine.isPostgres ? postgresql : [] }

  /// `expected` (one line of a transcript, a reply or a batch of replies) with this run's
  /// masks applied; `methods` gives the method of each request id sent so far (by the id's
  /// JSON text).
  static func masking(_ expected: JSONValue, methods: [String: String]) -> JSONValue {
    let masks = current
    guard !masks.isEmpty else { return expected }
    func one(_ reply: JSONValue) -> JSONValue {
      let method = reply["id"].flatMap { methods[JSONWriter.encodeString($0)] }
      var out = reply
      for m in masks where m.method == nil || m.method == method { out = ignoring(m.path[...], in: out) }
      return out
    }
    if case .array(let replies) = expected { return .array(replies.map(one)) }
    return one(expected)
  }

  /// `value` with the member at `path` made `"<ignore>"`, where its parent object exists.
  private static func ignoring(_ path: ArraySlice<String>, in value: JSONValue) -> JSONValue {
    guard case .object(var object) = value, let key = path.first else { return value }
    if path.count == 1 {
      object[key] = .string(GoldenJSON.ignore)
    } else if let inner = object[key] {
      object[key] = ignoring(path.dropFirst(), in: inner)
    }
    return .object(object)
  }
}
