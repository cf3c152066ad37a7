import Handlers
import JSONCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore migrate --store PATH --to SCHEMA.json [--plan PLAN.json] [--dry-run]
//  [--allow-data-loss] [--no-backup] [--json] [--progress]`: migration.plan /
// migration.apply from the shell. Prints the plan on stdout (JSON with --json), progress
// on stderr when it is a terminal. Exit status 0 when the store is at the target version
// (or the dry run found nothing blocking), 1 when the migration is refused or fails, 2
// for wrong arguments. Errors name the command's flags (`--allow-data-loss`) and files.

func runMigrate(_ args: ArraySlice<String>) -> Never {
  var storePath: String?
  var schemaPath: String?
  var planPath: String?
  var options = MigrationOptions(backup: true)
  var json = false
  var forced = false
  var it = ArgumentCursor("migrate", args)
  while let a = it.next() {
    switch a {
    case "--store": storePath = it.value(a)
    case "--to": schemaPath = it.value(a)
    case "--plan": planPath = it.value(a)
    case "--dry-run": options.dryRun = true
    case "--allow-data-loss": options.allowDataLoss = true
    case "--no-backup": options.backup = false
    case "--json": json = true
    case "--progress": forced = true
    default: it.unexpected(a)
    }
  }
  guard let storePath else { it.fail("migrate needs --store PATH") }
  guard schemaPath != nil || planPath != nil else { it.fail("migrate needs --to SCHEMA.json or --plan PLAN.json") }
  if schemaPath == "-" && planPath == "-" { it.fail("only one of --to and --plan can read standard input") }
  let store = openStore("migrate", storePath)
  let progress = Progress(forced: forced)
  // Errors name the files: `PLAN.json: stages[0].custom.from`, `SCHEMA.json has 2 problems`.
  var names: [ErrorPlace.Argument: String] = [.schemas: planPath.map { "\($0): schemas" } ?? "schemas"]
  if let planPath { names[.stages] = "\(planPath): stages" }
  if let schemaPath { names[.to] = schemaPath }
  let places = CommandPlaces(names)
  do {
    var schemas: [JSONValue] = []
    var stages: [MigrationStage] = []
    if let planPath {
      let plan = try readJSON(planPath)
      guard case .array(let list)? = plan["schemas"] else {
        throw StoreError(.invalidArgument, "\(planPath): expected {\"schemas\": [...], \"stages\": [...]}")
      }
      schemas = list
      stages = try MigrationStageDecoder.decode(plan["stages"] ?? .array([]), path: ErrorPlace(.stages))
    }
    if let schemaPath {
      let target = try readJSON(schemaPath)
      if schemas.isEmpty {
        // Without a plan: one lightweight stage from the store's schema; never backwards.
        let hash = try Store.decodeSchema(target, path: ErrorPlace(.to)).versionHash
        if hash != store.schema?.versionHash, try store.schemaHistory().contains(where: { $0.hash == hash }) {
          failed(
            "migrate",
            StoreError(
              .schemaMismatch,
              "the store already held \(schemaPath) and moved past it; it is not migrated backwards (give a --plan to do that on purpose)"))
        }
        schemas = (store.schema.map { [$0.json] } ?? []) + [target]
      } else if try Store.decodeSchema(target, path: ErrorPlace(.to)).versionHash
        != store.decodeChain(schemas, path: ErrorPlace(.schemas)).last?.versionHash
      {
        throw StoreError(.invalidArgument, "--to \(schemaPath) is not the last version of --plan \(planPath!)")
      }
    }
    let chain = try store.decodeChain(schemas, path: ErrorPlace(.schemas))
    var hooks = MigrationHooks()
    hooks.progress = { done, total, message in progress.update(message, done: done, total: total, unit: "stages") }
    if stages.contains(where: { $0.willMigrate || $0.didMigrate }) && !options.dryRun {
      throw StoreError(.invalidArgument, "the plan has client hooks (willMigrate/didMigrate): run it through migration.apply from a client")
    }
    let result = try store.migrate(chain: chain, stages: stages, options: options, hooks: hooks)
    progress.clear()
    store.close()
    if json {
      var w = JSONWriter()
      w.write(migrationResultJSON(result))
      printOut(String(decoding: w.bytes, as: UTF8.self) + "\n")
    } else {
      printOut(describeMigration(result, dryRun: options.dryRun, places: places))
    }
    exit(result.stages.contains { $0.outcome == .blocked } ? ExitStatus.failure : ExitStatus.success)
  } catch {
    progress.clear()
    store.close()
    if let e = error as? StoreError, let reasons = e.details["reasons"]?.arrayValue {
      printErr("modelstore migrate: \(places.message(e))\n")
      for r in reasons { printErr("  - \(r["entity"]?.stringValue ?? ""): \(r["message"]?.stringValue ?? "\(r)")\n") }
      exit(ExitStatus.failure)
    }
    failed("migrate", error, places: places)
  }
}

/// The plan or outcome in words: one block per stage.
func describeMigration(_ result: MigrationResult, dryRun: Bool, places: CommandPlaces) -> String {
  guard !result.stages.isEmpty else { return "the store is already at version \(result.to)\n" }
  var out =
    dryRun
    ? "plan: \(result.from ?? "empty") → \(result.to) (dry run, nothing changed)\n" : "migrated \(result.from ?? "empty") → \(result.to)\n"
  if let backup = result.backupPath { out += "backup: \(backup)\n" }
  for s in result.stages {
    out += "stage \(s.stage.from) → \(s.stage.to) (\(s.stage.kind.rawValue)): \(s.status)\n"
    for c in s.changes {
      out +=
        "  change: \(c.message)\(c.lightweight ? "" : " [needs a custom stage]")\(c.condition.map { " [requires: \($0.text)]" } ?? "")\n"
    }
    for step in s.report.steps { out += "  step: \(step.action)\(step.rows.map { " (\($0) rows)" } ?? "")\n" }
    for d in s.report.dataLoss { out += "  DATA LOSS: \(d["message"]?.stringValue ?? "")\n" }
    for b in s.report.blockers(rendering: places.render) { out += "  BLOCKED: \(b["message"]?.stringValue ?? "")\n" }
  }
  return out
}
