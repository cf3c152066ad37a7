import CoreDataTooling
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore export` and `modelstore import`: one-shot commands over the same engine code
// as `export.json` / `import.json` (and CSV of one entity through it). Exit status 0 on
// success, 1 when the export or import fails (nothing is kept), 2 for wrong arguments.

/// `modelstore export --store PATH [--out FILE|-] [--force] [--format ndjson|json] [--csv] [--entity E]... [--where PRED] [--with-related]`
func runExport(_ args: ArraySlice<String>) -> Never {
  var storePath: String?
  var out: String?
  var layout: InterchangeFormat.Layout?
  var csv = false
  var force = false
  var forced = false
  var entities: [String] = []
  var predicateText: String?
  var withRelated = false
  var it = ArgumentCursor("export", args)
  while let a = it.next() {
    switch a {
    case "--store": storePath = it.value(a)
    case "--out", "-o": out = it.value(a)
    case "--force": force = true
    case "--format":
      let v = it.value(a)
      guard let l = InterchangeFormat.Layout(rawValue: v) else { it.fail("--format must be ndjson or json, got '\(v)' (CSV: --csv)") }
      layout = l
    case "--csv": csv = true
    case "--entity": entities.append(it.value(a))
    case "--where": predicateText = it.value(a)
    case "--with-related": withRelated = true
    case "--progress": forced = true
    default: it.unexpected(a)
    }
  }
  guard let storePath else { it.fail("export needs --store PATH") }
  if predicateText != nil && entities.count != 1 { it.fail("--where needs exactly one --entity") }
  if csv {
    if entities.count != 1 { it.fail("--csv needs exactly one --entity") }
    if withRelated { it.fail("--csv writes one entity: it cannot follow --with-related") }
    if layout != nil { it.fail("give --csv or --format, not both") }
  }
  let places = CommandPlaces([.where: "--where", .path: "--out", .entities: "--entity"])
  let predicate = predicateText.map { parsePredicate($0, place: ErrorPlace(.where), places: places, usage: it) }
  let store = openStore("export", storePath)
  let progress = Progress(forced: forced)
  let report: (Int, Int) -> Void = { done, total in progress.update("exporting", done: done, total: total, unit: "objects") }
  do {
    let sink = try outputSink(out, force: force, place: ErrorPlace(.path))
    let summary: ExportSummary
    if csv {
      summary = try store.exportCSV(entity: entities[0], predicate: predicate, to: sink, progress: report)
    } else {
      var options = ExportOptions(entities: entities.isEmpty ? nil : entities, predicate: predicate, layout: layout ?? .ndjson)
      options.withRelated = withRelated
      summary = try store.export(options, to: sink, progress: report)
    }
    progress.clear()
    store.close()
    let counts = summary.counts.map { "\($0.entity) \($0.count)" }.joined(separator: ", ")
    let target = out == nil || out == "-" ? "standard output" : out!
    printErr("exported \(summary.objects) objects (\(counts)), \(summary.bytes) bytes, to \(target)\n")
    exit(ExitStatus.success)
  } catch {
    progress.clear()
    store.close()
    failed("export", error, places: places)
  }
}

/// A predicate given on the command line, or a usage error naming where it went wrong.
func parsePredicate(_ text: String, place: ErrorPlace, places: CommandPlaces, usage: ArgumentCursor) -> Predicate {
  do {
    return try PredicateParser.parse(text)
  } catch let e as PredicateError {
    usage.fail(places.message(StoreError.predicate(e, at: place)))
  } catch {
    usage.fail("\(places.render(place)): \(error)")
  }
}

/// `modelstore import --store PATH FILE|- [--mode insert|upsert|replace] [--csv --entity E]`
func runImport(_ args: ArraySlice<String>) -> Never {
  var storePath: String?
  var fileName: String?
  var mode = ImportMode.insert
  var csv = false
  var entity: String?
  var forced = false
  var it = ArgumentCursor("import", args)
  while let a = it.next() {
    switch a {
    case "--store": storePath = it.value(a)
    case "--mode":
      let v = it.value(a)
      guard let m = ImportMode(rawValue: v) else { it.fail("--mode must be insert, upsert or replace, got '\(v)'") }
      mode = m
    case "--csv": csv = true
    case "--entity": entity = it.value(a)
    case "--progress": forced = true
    default:
      if a.hasPrefix("-") && a != "-" || fileName != nil { it.unexpected(a) }
      fileName = a
    }
  }
  guard let storePath else { it.fail("import needs --store PATH") }
  guard let fileName else { it.fail("import needs the FILE to read ('-' for standard input)") }
  if csv && entity == nil { it.fail("--csv needs --entity E, the entity of the file's records") }
  if !csv && entity != nil { it.fail("--entity is for --csv (an interchange file names its entities)") }
  let file: InputFile
  do { file = try InputFile(fileName) } catch { failed("import", error) }
  // A store the command creates is removed again when it fails: a file, or a PostgreSQL
  // schema the opening created.
  let created = !Store.isServerLocation(storePath) && isMissing(storePath)
  let store = openStore("import", storePath, create: true)
  let progress = Progress(forced: forced)
  let outcome = Result(catching: {
    let report: (ImportPhase, Int, Int?) -> Void = { phase, done, total in
      progress.update("importing \(phase.rawValue)", done: done, total: total, unit: phase == .rows ? "objects" : "objects linked")
    }
    return
      try entity.map { try store.importCSV(.file(path: file.path), entity: $0, mode: mode, progress: report) }
      ?? store.importObjects(.file(path: file.path), mode: mode, progress: report)
  })
  progress.clear()
  file.remove()
  switch outcome {
  case .success(let summary):
    store.close()
    printErr(
      "imported \(summary.objects) objects from \(file.name) (\(summary.mode.rawValue)): \(summary.inserted) inserted, \(summary.updated) updated, \(summary.deleted) deleted\(summary.schemaDefined ? ", schema installed" : "")\n"
    )
    exit(ExitStatus.success)
  case .failure(let error):
    closeFailedStore(store, storePath, createdFile: created)
    failed("import", error, places: CommandPlaces([.entities: "--entity"]), hints: importHints(error))
  }
}

/// Where an import went the wrong way: a reference to an object the file does not hold
/// comes from a subset exported without `--with-related`.
func importHints(_ error: Error) -> [String] {
  guard let e = error as? StoreError, e.kind == .notFound, e.details["id"] != nil, e.details["line"] != nil || e.details["pointer"] != nil
  else { return [] }
  return [
    "the file refers to an object it does not hold: a subset export (--entity, --where) keeps references to objects outside it; export it with --with-related to include every object the chosen ones reach"
  ]
}
