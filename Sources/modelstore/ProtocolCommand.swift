import Handlers
import RPCCore

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore protocol --json`: prints the machine-readable protocol description
// (OpenRPC style) generated from the server's params types; `protocol.json` at the
// repository root is its output.

func runProtocol(_ args: ArraySlice<String>) -> Never {
  var it = ArgumentCursor("protocol", args)
  var json = false
  while let a = it.next() {
    switch a {
    case "--json": json = true
    default: it.unexpected(a)
    }
  }
  guard json else { it.fail("protocol needs --json (the one output it has)") }
  let session = Session(server: Server(log: Logger(level: .error)), store: nil)
  printOut(ProtocolDescription.text(session))
  exit(0)
}
