import Handlers
import RPCCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// The `modelstore` command: argument parsing and wiring only.

struct ServeOptions {
  var storePath: String?
  var memory = false
  var readOnly = false
  var history = true
  var historyRetention = HistoryRetention.forever
  var create = true
  var server = Server.Options()
  var logLevel = Logger.Level.warning
  /// `--format coredata`: the store is a Core Data SQLite file, opened in place read-only.
  var coreData = false
  /// With `--format coredata`: its model (`--model`), the version (`--model-version`) and
  /// the versions' order (`--version-order`).
  var model: String?
  var modelVersion: String?
  var versionOrder: [String]?
}

func parseServe(_ args: ArraySlice<String>) -> ServeOptions {
  var o = ServeOptions()
  var it = ArgumentCursor("serve", args)
  while let a = it.next() {
    switch a {
    case "--store": o.storePath = it.value(a)
    case "--memory": o.memory = true
    case "--read-only": o.readOnly = true
    case "--no-create": o.create = false
    case "--no-history": o.history = false
    case "--history-retention":
      let v = it.value(a)
      do { o.historyRetention = try HistoryRetention.parse(v) } catch {
        it.fail("--history-retention: \((error as? StoreError)?.message ?? "\(error)")")
      }
    case "--format":
      let v = it.value(a)
      guard v == "modelstore" || v == "coredata" else { it.fail("--format must be modelstore or coredata, got '\(v)'") }
      o.coreData = v == "coredata"
    case "--model": o.model = it.value(a)
    case "--model-version": o.modelVersion = it.value(a)
    case "--version-order": o.versionOrder = versionList(it.value(a))
    case "--max-message-bytes": o.server.maxMessageBytes = it.number(a, min: 64)
    case "--max-depth": o.server.maxDepth = it.number(a, min: 2)
    case "--log-level":
      let v = it.value(a)
      guard let l = Logger.Level(name: v) else { it.fail("unknown log level '\(v)' (error, warning, info, debug)") }
      o.logLevel = l
    default: it.unexpected(a)
    }
  }
  if o.storePath != nil && o.memory { it.fail("give --store PATH or --memory, not both") }
  if o.storePath == nil && (o.readOnly || !o.create) {
    it.fail("\(o.readOnly ? "--read-only" : "--no-create") needs --store PATH (an in-memory store starts empty)")
  }
  if o.coreData && o.storePath == nil { it.fail("--format coredata needs --store PATH") }
  if o.model != nil && !o.coreData { it.fail("--model needs --format coredata (the model of a Core Data store)") }
  if o.model == nil && (o.modelVersion != nil || o.versionOrder != nil) { it.fail("--model-version and --version-order need --model PATH") }
  return o
}

func serve(_ o: ServeOptions) -> Never {
  signal(SIGPIPE, SIG_IGN)
  let log = Logger(level: o.logLevel)
  let server = Server(options: o.server, log: log)
  let store: Store
  if o.coreData, let path = o.storePath {
    do {
      store = try Store.openCoreData(path: path, model: o.model, modelVersion: o.modelVersion, versionOrder: o.versionOrder)
    } catch { failed("serve", error) }
  } else if let path = o.storePath {
    store = openStore(
      "serve", path, create: o.create, readOnly: o.readOnly, history: o.history, historyRetention: o.historyRetention,
      coreDataFlag: "--format coredata --store \(path)")
  } else {
    do { store = try Store(path: nil) } catch { failed("serve", error) }
  }
  let session = Session(server: server, store: store)
  server.onFinish = { session.closeStore() }
  server.register(session.methods())
  log.info("serving \(o.storePath.map(Store.displayName(of:)) ?? ":memory:")")
  exit(server.run())
}

let arguments = CommandLine.arguments.dropFirst()
let commands: [String: (ArraySlice<String>) -> Never] = [
  "serve": { serve(parseServe($0)) }, "query": runQuery, "info": runInfo, "export": runExport, "import": runImport,
  "migrate": runMigrate, "upgrade": runUpgrade, "xcdatamodel": runXcdatamodel, "import-coredata": runImportCoreData,
  "protocol": runProtocol, "studio": runStudio, "diagram": runDiagram, "copy": runCopy,
]
switch arguments.first {
case let name? where commands[name] != nil:
  commands[name]!(arguments.dropFirst())
case "--version", "-V":
  printOut("modelstore \(Session.version)\n")
case "--help", "-h":
  printOut(CommandHelp.overview + CommandHelp.exitStatuses)
case "help":
  let topic = arguments.dropFirst().first
  if let topic, commands[topic] == nil {
    usageError(nil, "no command '\(topic)' (commands: \(commands.keys.sorted().joined(separator: ", ")))")
  }
  printOut(CommandHelp.text(topic ?? "serve"))
case nil:
  printErr(CommandHelp.overview)
  exit(ExitStatus.usage)
default:
  usageError(nil, "unknown command '\(arguments.first!)'")
}
