import JSONCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore info STORE [--json] [--coredata]`: what a store holds (store.info plus the
// history it keeps), read-only. Exit status 0, 1 when the store cannot be read, 2 for
// wrong arguments.

func runInfo(_ args: ArraySlice<String>) -> Never {
  var path: String?
  var json = false
  var coreData = false
  var it = ArgumentCursor("info", args)
  while let a = it.next() {
    switch a {
    case "--json": json = true
    case "--coredata": coreData = true
    default:
      if a.hasPrefix("-") || path != nil { it.unexpected(a) }
      path = a
    }
  }
  guard let path else { it.fail("info needs the STORE file") }
  let store = openReadOnly("info", path, coreData: coreData)
  do {
    var info = try store.info()
    let history = try store.historySize()
    var h: JSONObject = ["transactions": .int(Int64(history.transactions))]
    h.append("oldestToken", history.oldest.map { .int($0) } ?? .null)
    h.append("newestToken", history.newest.map { .int($0) } ?? .null)
    info.append("history", .object(h))
    store.close()
    printOut(json ? JSONWriter.encodeString(.object(info)) + "\n" : describe(info, path: path))
    exit(ExitStatus.success)
  } catch {
    store.close()
    failed("info", error)
  }
}

/// store.info's members in words, one fact a line, entities last with their counts.
private func describe(_ info: JSONObject, path: String) -> String {
  func text(_ key: String) -> String? { info[key].flatMap(CSVText.text) }
  var out = "store:     \(Store.displayName(of: path))\n"
  out += "format:    \(text("format") ?? "?")\(text("formatVersion").map { ", formatVersion \($0)" } ?? "")\n"
  if let version = text("schemaVersion") {
    out += "schema:    version \(version), hash \(text("schemaHash")?.prefix(12) ?? "")…\n"
  } else {
    out += "schema:    none yet\n"
  }
  if case .object(let h)? = info["history"] {
    let n = h["transactions"].flatMap(CSVText.text) ?? "0"
    let range = h["oldestToken"].flatMap(CSVText.text).map { first in " (tokens \(first)–\(h["newestToken"].flatMap(CSVText.text) ?? ""))" }
    out += "history:   \(n) transaction\(n == "1" ? "" : "s")\(range ?? "")\n"
  }
  if case .object(let server)? = info["postgresql"] {
    func fact(_ key: String) -> String { server[key].flatMap(CSVText.text) ?? "?" }
    out += "server:    PostgreSQL \(fact("serverVersion")), database \(fact("database")), schema \(fact("schema"))\n"
  }
  if let size = text("sizeBytes") { out += "size:      \(size) bytes\(text("journalMode").map { ", journal \($0)" } ?? "")\n" }
  let counts = info["counts"]?.objectValue?.members ?? []
  out += "entities:  \(counts.count)\n"
  let width = counts.map(\.key.count).max() ?? 0
  for m in counts {
    out += "  \(m.key)\(String(repeating: " ", count: width - m.key.count + 2))\(CSVText.text(m.value) ?? "0")\n"
  }
  return out
}
