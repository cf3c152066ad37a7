import CoreDataTooling
import Diagrams
import Handlers
import JSONCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore diagram INPUT [--format mermaid|dot|svg|png] [--out FILE [--force]]
// [--version NAME | --plan FROM TO] [--coredata]`: model.diagram from the shell, over the
// same code (Handlers' ModelDiagrams, the Diagrams writers, Graphviz's dot for pictures).
// Exit status 0 when drawn, 1 when the input cannot be read or dot fails, 2 for wrong
// arguments.

func runDiagram(_ args: ArraySlice<String>) -> Never {
  var input: String?
  var format = DiagramFormat.mermaid
  var out: String?
  var force = false
  var version: String?
  var plan: (from: String, to: String)?
  var coreData = false
  var it = ArgumentCursor("diagram", args)
  while let a = it.next() {
    switch a {
    case "--format":
      let v = it.value(a)
      guard let f = DiagramFormat(rawValue: v) else { it.fail("--format must be mermaid, dot, svg or png, got '\(v)'") }
      format = f
    case "--out", "-o": out = it.value(a)
    case "--force": force = true
    case "--version": version = it.value(a)
    case "--plan":
      let from = it.value(a)
      guard let to = it.next() else { it.fail("--plan needs two versions: --plan FROM TO") }
      plan = (from, to)
    case "--coredata": coreData = true
    default:
      if a.hasPrefix("-") && a != "-" || input != nil { it.unexpected(a) }
      input = a
    }
  }
  guard let input else { it.fail("diagram needs a STORE, SCHEMA.json or MODEL.xcdatamodeld to draw") }
  if version != nil && plan != nil { it.fail("give --version (one version) or --plan FROM TO (a migration), not both") }
  if force && out == nil { it.fail("--force needs --out FILE") }
  if coreData && (input == "-" || input.hasSuffix(".json")) { it.fail("--coredata needs a Core Data SQLite store, not '\(input)'") }
  if format == .png && (out == nil || out == "-") && isatty(1) == 1 {
    it.fail("--format png is binary: give --out FILE, or redirect standard output")
  }
  // dot may stop reading early, and standard output may be a pipe that closes: an error, not a signal.
  signal(SIGPIPE, SIG_IGN)
  let places = CommandPlaces([.version: "--version", .from: "--plan FROM", .to: "--plan TO", .path: "--out", .schemas: "\(input): schemas"])
  var store: Store?
  do {
    let versions = try diagramVersions(input, coreData: coreData, store: &store)
    let drawing = try ModelDiagrams.draw(
      { versions }, format: format, version: version, from: plan.map { .name($0.from) }, to: plan.map { .name($0.to) },
      render: places.render)
    store?.close()
    let sink = try outputSink(out, force: force, place: ErrorPlace(.path))
    do {
      try sink.write(drawing.bytes)
      try sink.finish()
    } catch {
      sink.abandon()
      throw error
    }
    if let out, out != "-" {
      let what = drawing.kind == .model ? "version \(drawing.version ?? "")" : "\(drawing.from ?? "") → \(drawing.to ?? "")"
      printErr("wrote \(out) (\(format.rawValue), \(what))\n")
    }
    exit(ExitStatus.success)
  } catch {
    store?.close()
    failed("diagram", error, places: places)
  }
}

/// The versions INPUT holds: a schema or plan (`.json`, `-`), a Core Data model (a
/// directory, a `.xcdatamodel(d)` or a `contents` file), a Core Data store (`--coredata`)
/// or a ModelStore file (read-only), whose `store` the caller closes.
private func diagramVersions(_ input: String, coreData: Bool, store: inout Store?) throws -> ModelVersions {
  let origin = input == "-" ? "standard input" : "'\(input)'"
  if input == "-" || input.hasSuffix(".json") {
    let json = try readJSON(input)
    guard case .array(let list)? = json["schemas"] else {
      return ModelVersions.model(ImportedModel.fromSchema(json, path: input == "-" ? "standard input" : input), origin: origin)
    }
    let schemas = try list.enumerated().map { i, s in try Store.decodeSchema(s, path: ErrorPlace(.schemas).index(i)) }
    return ModelVersions.schemas(schemas, origin: origin)
  }
  var st = stat()
  if (stat(input, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR) || input.hasSuffix("/contents") || input == "contents" {
    return ModelVersions.model(try CoreDataModelImporter.importModel(at: input), origin: origin)
  }
  let opened = openReadOnly("diagram", input, coreData: coreData)
  store = opened
  return try ModelVersions.store(opened, origin: origin)
}
