import JSONCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore query STORE ENTITY [PREDICATE] [--sort KEY[,-KEY]] [--limit N] [--offset N]
// [--select KEY,...] [--format table|json|ndjson|csv] [--coredata]`: query.fetch from the
// shell, read-only. Exit status 0 with the objects on stdout, 1 when the query fails
// (an unknown key, a store that cannot be read), 2 for wrong arguments.

enum QueryFormat: String {
  case table, json, ndjson, csv
}

func runQuery(_ args: ArraySlice<String>) -> Never {
  var positional: [String] = []
  var sort: [SortKey] = []
  var limit: Int?
  var offset: Int?
  var select: [String]?
  var format = QueryFormat.table
  var coreData = false
  var it = ArgumentCursor("query", args)
  while let a = it.next() {
    switch a {
    case "--sort": sort += sortKeys(it.value(a), usage: it)
    case "--limit": limit = it.number(a, min: 0)
    case "--offset": offset = it.number(a, min: 0)
    case "--select": select = (select ?? []) + it.value(a).split(separator: ",").map { String($0) }
    case "--format":
      let v = it.value(a)
      guard let f = QueryFormat(rawValue: v) else { it.fail("--format must be table, json, ndjson or csv, got '\(v)'") }
      format = f
    case "--coredata": coreData = true
    default:
      if a.hasPrefix("-") && a != "-" || positional.count == 3 { it.unexpected(a) }
      positional.append(a)
    }
  }
  guard positional.count >= 2 else { it.fail("query needs STORE and ENTITY") }
  let places = CommandPlaces([.where: "PREDICATE", .sort: "--sort", .select: "--select"])
  var request = FetchRequest(entity: positional[1])
  if positional.count == 3 { request.predicate = parsePredicate(positional[2], place: ErrorPlace(.where), places: places, usage: it) }
  request.sort = sort
  request.limit = limit
  request.offset = offset
  request.select = select
  let store = openReadOnly("query", positional[0], coreData: coreData)
  do {
    let objects = try store.fetch(request)
    store.close()
    printOut(QueryOutput.text(objects, format: format))
    exit(ExitStatus.success)
  } catch {
    store.close()
    failed("query", error, places: places)
  }
}

/// `title,-priority` as sort keys: a leading `-` sorts descending.
func sortKeys(_ text: String, usage: ArgumentCursor) -> [SortKey] {
  text.split(separator: ",", omittingEmptySubsequences: false).map { part in
    let descending = part.hasPrefix("-")
    let key = descending ? part.dropFirst() : part
    guard !key.isEmpty else { usage.fail("--sort: expected KEY[,-KEY]..., got '\(text)'") }
    return SortKey(keyPath: String(key), ascending: !descending)
  }
}

/// A store opened for reading only: a ModelStore file, or with `coreData` a Core Data
/// SQLite store read in place.
func openReadOnly(_ command: String, _ path: String, coreData: Bool) -> Store {
  guard coreData else {
    return openStore(command, path, readOnly: true, coreDataFlag: "--coredata \(path)\(command == "query" ? " ENTITY" : "")")
  }
  do { return try Store.openCoreData(path: path) } catch { failed(command, error) }
}

/// Objects as query prints them.
enum QueryOutput {
  static func text(_ objects: [JSONObject], format: QueryFormat) -> String {
    switch format {
    case .json:
      return JSONWriter.encodeString(.array(objects.map { .object($0) })) + "\n"
    case .ndjson:
      return objects.map { JSONWriter.encodeString(.object($0)) + "\n" }.joined()
    case .csv:
      let keys = columns(objects)
      return CSVText.line(keys) + objects.map { o in CSVText.line(keys.map { CSVText.text(o[$0]) }) }.joined()
    case .table:
      return table(objects)
    }
  }

  /// Every key of the objects in first-seen order, `_entity` only when they differ in it.
  static func columns(_ objects: [JSONObject]) -> [String] {
    var keys: [String] = []
    var seen: Set<String> = []
    for o in objects {
      for m in o.members where seen.insert(m.key).inserted { keys.append(m.key) }
    }
    if Set(objects.compactMap { $0["_entity"]?.stringValue }).count <= 1 { keys.removeAll { $0 == "_entity" } }
    return keys
  }

  /// Columns padded to their widest cell (at most `maxWidth` characters, longer cells cut
  /// with `…`), a rule under the header; null shows as nothing.
  static func table(_ objects: [JSONObject]) -> String {
    guard !objects.isEmpty else { return "(no objects)\n" }
    let keys = columns(objects)
    let maxWidth = 40
    func cell(_ v: JSONValue?) -> String {
      var s = (CSVText.text(v) ?? "").replacing("\n", with: "\\n")
      if s.count > maxWidth { s = s.prefix(maxWidth - 1) + "…" }
      return s
    }
    let rows = objects.map { o in keys.map { cell(o[$0]) } }
    let widths = keys.indices.map { i in max(keys[i].count, rows.map { $0[i].count }.max() ?? 0) }
    func line(_ cells: [String]) -> String {
      var out = ""
      for (i, c) in cells.enumerated() {
        out += c
        if i < cells.count - 1 { out += String(repeating: " ", count: widths[i] - c.count + 2) }
      }
      while out.last == " " { out.removeLast() }
      return out + "\n"
    }
    return line(keys) + line(widths.map { String(repeating: "-", count: $0) }) + rows.map(line).joined()
  }
}
