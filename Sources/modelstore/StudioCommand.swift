import JSONCore
import RPCCore
import StoreEngine
import Studio

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore studio`: serves a store to a local web page until SIGINT or SIGTERM.

func runStudio(_ args: ArraySlice<String>) -> Never {
  var it = ArgumentCursor("studio", args)
  var store: String?
  var configuration = StudioServer.Configuration(store: "")
  var openBrowser = false
  while let a = it.next() {
    switch a {
    case "--store": store = it.value(a)  // a file, or a PostgreSQL store's URL
    case "--format":
      let v = it.value(a)
      guard v == "modelstore" || v == "coredata" else { it.fail("--format must be modelstore or coredata, got '\(v)'") }
      configuration.coreData = v == "coredata"
    case "--model": configuration.coreDataModel = it.value(a)
    case "--model-version": configuration.coreDataModelVersion = it.value(a)
    case "--version-order": configuration.coreDataVersionOrder = versionList(it.value(a))
    case "--read-only": configuration.readOnly = true
    case "--port":
      let n = it.number(a, min: 1)
      guard n <= 65535 else { it.fail("--port needs a port number from 1 to 65535, got \(n)") }
      configuration.port = UInt16(n)
    case "--open": openBrowser = true
    case "--log-level":
      let v = it.value(a)
      guard let l = Logger.Level(name: v) else { it.fail("unknown log level '\(v)' (error, warning, info, debug)") }
      configuration.logLevel = l
    default: it.unexpected(a)
    }
  }
  guard let store else { it.fail("--store PATH is required: the store to serve") }
  if configuration.coreDataModel != nil && !configuration.coreData {
    it.fail("--model needs --format coredata (the model of a Core Data store)")
  }
  if configuration.coreDataModel == nil && (configuration.coreDataModelVersion != nil || configuration.coreDataVersionOrder != nil) {
    it.fail("--model-version and --version-order need --model PATH")
  }
  configuration.store = store
  signal(SIGPIPE, SIG_IGN)
  // SIGINT and SIGTERM are taken by `sigwait` below: blocked before any thread starts, so
  // every thread inherits the mask and none is interrupted by them.
  var stopSignals = sigset_t()
  sigemptyset(&stopSignals)
  sigaddset(&stopSignals, SIGINT)
  sigaddset(&stopSignals, SIGTERM)
  pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

  let studio: StudioServer
  do {
    studio = try StudioServer(configuration)
  } catch let e as StoreError where e.kind == .notAStore && !configuration.coreData && isCoreDataStore(store) {
    failed("studio", e, hints: [coreDataHint("studio", store, flag: "--format coredata --store \(store)")])
  } catch {
    failed("studio", error)
  }
  let mode = configuration.coreData ? " (Core Data, read-only)" : configuration.readOnly ? " (read-only)" : ""
  printErr("modelstore studio: serving \(Store.displayName(of: store))\(mode) on http://127.0.0.1:\(studio.port)/ until Ctrl-C; open:\n")
  printOut(studio.url + "\n")
  if openBrowser { openInBrowser(studio.url) }

  var received: Int32 = 0
  while sigwait(&stopSignals, &received) != 0 {}
  printErr("modelstore studio: stopping (\(received == SIGINT ? "SIGINT" : "SIGTERM")): closing the sessions\n")
  studio.stop()
  exit(ExitStatus.success)
}

/// Runs `xdg-open URL` when it is on PATH (without waiting for the browser); says so on
/// stderr when it is not.
private func openInBrowser(_ url: String) {
  let path = getenv("PATH").map { String(cString: UnsafePointer($0)) } ?? "/usr/bin:/bin"
  let candidates: [String] = path.split(separator: ":").map { $0 + "/xdg-open" }
  guard let tool = candidates.first(where: { access($0, X_OK) == 0 }) else {
    printErr("modelstore studio: --open: xdg-open is not installed; open the URL above yourself\n")
    return
  }
  var pid = pid_t()
  let argv: [UnsafeMutablePointer<CChar>?] = [strdup(tool), strdup(url), nil]
  defer { for a in argv { free(a) } }
  let rc = posix_spawn(&pid, tool, nil, nil, argv, environ)
  guard rc == 0 else {
    printErr("modelstore studio: --open: cannot run \(tool) (error \(rc)); open the URL above yourself\n")
    return
  }
  // Reaped by a thread of its own, so that it leaves no zombie behind.
  let child = pid
  _ = startDetachedThread {
    var status: Int32 = 0
    waitpid(child, &status, 0)
  }
}
