import CoreDataTooling
import RPCCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore export` and `modelstore import`: one-shot commands over the same engine code
// as `export.json` / `import.json`. Exit status 0 on success, 1 when the export or import
// fails (nothing is kept), 2 for wrong arguments.

/// Writes a line to stderr.
func printErr(_ s: String) {
  let bytes = Array(s.utf8)
  _ = bytes.withUnsafeBytes { FileDescriptor.writeAll(2, $0) }
}

/// A one-line progress display on stderr, only when stderr is a terminal.
struct ProgressLine {
  let enabled = isatty(2) != 0
  func show(_ text: String) { if enabled { printErr("\r\u{1B}[K" + text) } }
  func clear() { if enabled { printErr("\r\u{1B}[K") } }
}

func openStore(_ path: String, create: Bool) -> Store {
  do {
    return try Store(path: path, options: Store.OpenOptions(readOnly: false, create: create))
  } catch {
    fail("cannot open the store: \(error)")
  }
}

/// Reports a failed command (exit status 1); `places` names the places of its errors.
func failed(_ command: String, _ error: Error, places: CommandPlaces = CommandPlaces()) -> Never {
  printErr("modelstore \(command): \(places.message(error))\n")
  exit(1)
}

/// `modelstore export --store PATH [--out FILE] [--format ndjson|json] [--entity E]... [--where PRED] [--with-related]`
func runExport(_ args: ArraySlice<String>) -> Never {
  var storePath: String?
  var out: String?
  var layout = InterchangeFormat.Layout.ndjson
  var entities: [String] = []
  var predicateText: String?
  var withRelated = false
  var it = ArgumentCursor(args)
  while let a = it.next() {
    switch a {
    case "--store": storePath = it.value(a)
    case "--out", "-o": out = it.value(a)
    case "--format":
      let v = it.value(a)
      guard let l = InterchangeFormat.Layout(rawValue: v) else { fail("--format must be ndjson or json, got '\(v)'") }
      layout = l
    case "--entity": entities.append(it.value(a))
    case "--where": predicateText = it.value(a)
    case "--with-related": withRelated = true
    default: fail("unknown option '\(a)' for export")
    }
  }
  guard let storePath else { fail("export needs --store PATH") }
  if predicateText != nil && entities.count != 1 { fail("--where needs exactly one --entity") }
  var options = ExportOptions(entities: entities.isEmpty ? nil : entities, layout: layout)
  options.withRelated = withRelated
  let places = CommandPlaces([.where: "--where", .path: "--out", .entities: "--entity"])
  if let predicateText {
    do {
      options.predicate = try PredicateParser.parse(predicateText)
    } catch let e as PredicateError {
      fail(places.message(StoreError.predicate(e, at: ErrorPlace(.where))))
    } catch {
      fail("--where: \(error)")
    }
  }
  let store = openStore(storePath, create: false)
  let bar = ProgressLine()
  do {
    let sink: ByteSink = try out.map { try FileSink.create(path: $0, place: ErrorPlace(.path)) } ?? FileSink(descriptor: 1)
    let summary = try store.export(options, to: sink) { done, total in bar.show("exporting: \(done)/\(total) objects") }
    bar.clear()
    store.close()
    let counts = summary.counts.map { "\($0.entity) \($0.count)" }.joined(separator: ", ")
    printErr("exported \(summary.objects) objects (\(counts)), \(summary.bytes) bytes, to \(out ?? "standard output")\n")
    exit(0)
  } catch {
    bar.clear()
    store.close()
    failed("export", error, places: places)
  }
}

/// `modelstore import --store PATH FILE [--mode insert|upsert|replace]`
func runImport(_ args: ArraySlice<String>) -> Never {
  var storePath: String?
  var file: String?
  var mode = ImportMode.insert
  var it = ArgumentCursor(args)
  while let a = it.next() {
    switch a {
    case "--store": storePath = it.value(a)
    case "--mode":
      let v = it.value(a)
      guard let m = ImportMode(rawValue: v) else { fail("--mode must be insert, upsert or replace, got '\(v)'") }
      mode = m
    default:
      if a.hasPrefix("-") || file != nil { fail("unexpected argument '\(a)' for import") }
      file = a
    }
  }
  guard let storePath else { fail("import needs --store PATH") }
  guard let file else { fail("import needs the FILE to read") }
  let store = openStore(storePath, create: true)
  let bar = ProgressLine()
  do {
    let summary = try store.importObjects(.file(path: file), mode: mode) { phase, done, total in
      bar.show("importing (\(phase.rawValue)): \(done)\(total.map { "/\($0)" } ?? "") objects")
    }
    bar.clear()
    store.close()
    printErr(
      "imported \(summary.objects) objects from \(file) (\(summary.mode.rawValue)): \(summary.inserted) inserted, \(summary.updated) updated, \(summary.deleted) deleted\(summary.schemaDefined ? ", schema installed" : "")\n"
    )
    exit(0)
  } catch {
    bar.clear()
    store.close()
    failed("import", error)
  }
}
