import Handlers
import RPCCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// The `modelstore` command: argument parsing and wiring only.

let usage = """
  modelstore \(Session.version): SwiftData / Core Data model semantics over JSON-RPC 2.0 on stdio.

  USAGE
    modelstore serve [--store PATH | --memory] [options]   serve one client on stdin/stdout
    modelstore export --store PATH [--out FILE] [--format ndjson|json] [--entity E]... [--where PRED] [--with-related]
    modelstore import --store PATH FILE [--mode insert|upsert|replace]
    modelstore migrate --store PATH (--to SCHEMA.json | --plan PLAN.json) [--dry-run] [--allow-data-loss] [--no-backup] [--json]
    modelstore upgrade --store PATH   upgrade a store file of formatVersion 1 in place (a backup first)
    modelstore import-coredata STORE [--model PATH] --store OUT   copy a Core Data SQLite store into a ModelStore file
    modelstore xcdatamodel PATH [--audit | --generate TARGET [--out DIR]] [--report]   read a Core Data model
    modelstore protocol --json   print the protocol description (methods, params, results) as protocol.json holds it
    modelstore --version | --help

  SERVE OPTIONS
    --store PATH              open (or create) the store file at PATH
    --memory                  use an in-memory store (the default when no --store is given)
    --read-only               open the store read-only; every write fails with kind readOnly
    --no-create               refuse to create PATH when it does not exist
    --no-history              commits write no history (live queries follow the file by a cheap check instead)
    --history-retention KEEP  keep the newest N history transactions (100000) or those younger
                              than a duration (90s, 30m, 12h, 7d, 2w); default forever
    --format coredata         PATH is a Core Data SQLite store: browse and query it in place, read-only
    --max-message-bytes N     largest accepted message (default 67108864 = 64 MiB)
    --max-depth N             deepest accepted nesting of arrays/objects (default 64)
    --log-level LEVEL         error | warning | info | debug (default warning); logs go to stderr

  Messages are one JSON text per line; a first line starting with 'Content-Length:'
  switches the session to LSP-style header framing. See protocol.md.

  """

func fail(_ message: String) -> Never {
  var text = Array("modelstore: \(message)\nTry 'modelstore --help'.\n".utf8)
  _ = text.withUnsafeMutableBytes { FileDescriptor.writeAll(2, UnsafeRawBufferPointer($0)) }
  exit(2)
}

func printOut(_ s: String) {
  let bytes = Array(s.utf8)
  _ = bytes.withUnsafeBytes { FileDescriptor.writeAll(1, $0) }
}

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
}

func parseServe(_ args: ArraySlice<String>) -> ServeOptions {
  var o = ServeOptions()
  var it = args.makeIterator()
  func value(_ flag: String) -> String {
    guard let v = it.next() else { fail("\(flag) needs a value") }
    return v
  }
  func number(_ flag: String, min: Int) -> Int {
    let text = value(flag)
    guard let n = Int(text), n >= min else { fail("\(flag) needs a whole number of at least \(min), got '\(text)'") }
    return n
  }
  while let a = it.next() {
    switch a {
    case "--store": o.storePath = value(a)
    case "--memory": o.memory = true
    case "--read-only": o.readOnly = true
    case "--no-create": o.create = false
    case "--no-history": o.history = false
    case "--history-retention":
      let v = value(a)
      do { o.historyRetention = try HistoryRetention.parse(v) } catch { fail("--history-retention: \((error as? StoreError)?.message ?? "\(error)")") }
    case "--format":
      let v = value(a)
      guard v == "modelstore" || v == "coredata" else { fail("--format must be modelstore or coredata, got '\(v)'") }
      o.coreData = v == "coredata"
    case "--max-message-bytes": o.server.maxMessageBytes = number(a, min: 64)
    case "--max-depth": o.server.maxDepth = number(a, min: 2)
    case "--log-level":
      let v = value(a)
      guard let l = Logger.Level(name: v) else { fail("unknown log level '\(v)' (error, warning, info, debug)") }
      o.logLevel = l
    case "--help", "-h":
      printOut(usage)
      exit(0)
    default: fail("unknown option '\(a)' for serve")
    }
  }
  if o.storePath != nil && o.memory { fail("give --store PATH or --memory, not both") }
  return o
}

func serve(_ o: ServeOptions) -> Never {
  signal(SIGPIPE, SIG_IGN)
  let log = Logger(level: o.logLevel)
  let server = Server(options: o.server, log: log)
  let store: Store
  do {
    if o.coreData {
      guard let path = o.storePath else { fail("--format coredata needs --store PATH") }
      store = try Store.openCoreData(path: path)
    } else {
      store = try Store(path: o.storePath, options: Store.OpenOptions(readOnly: o.readOnly, create: o.create, history: o.history, historyRetention: o.historyRetention))
    }
  } catch {
    fail("cannot open the store: \(error)")
  }
  let session = Session(server: server, store: store)
  server.onFinish = { session.closeStore() }
  server.register(session.methods())
  log.info("serving \(o.storePath ?? ":memory:")")
  exit(server.run())
}

var arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "serve":
  serve(parseServe(arguments.dropFirst()))
case "export":
  runExport(arguments.dropFirst())
case "import":
  runImport(arguments.dropFirst())
case "migrate":
  runMigrate(arguments.dropFirst())
case "upgrade":
  runUpgrade(arguments.dropFirst())
case "xcdatamodel":
  runXcdatamodel(arguments.dropFirst())
case "import-coredata":
  runImportCoreData(arguments.dropFirst())
case "protocol":
  runProtocol(arguments.dropFirst())
case "--version", "-V":
  printOut("modelstore \(Session.version)\n")
case "--help", "-h", "help":
  printOut(usage)
case nil:
  printOut(usage)
  exit(2)
default:
  fail("unknown command '\(arguments.first!)'")
}
