import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore upgrade --store PATH`: upgrades a store file of an older format version in
// place (what opening it for writing does anyway), and says what it did. Exit status 0
// when the file is at the current format version, 1 when it cannot be upgraded, 2 for
// wrong arguments.

func runUpgrade(_ args: ArraySlice<String>) -> Never {
  var storePath: String?
  var forced = false
  var it = ArgumentCursor("upgrade", args)
  while let a = it.next() {
    switch a {
    case "--store": storePath = it.value(a)
    case "--progress": forced = true
    default: it.unexpected(a)
    }
  }
  guard let storePath else { it.fail("upgrade needs --store PATH") }
  let progress = Progress(forced: forced)
  progress.step("upgrading \(Store.displayName(of: storePath)) (a backup first)")
  let store = openStore("upgrade", storePath)
  progress.clear()
  if let r = store.formatUpgrade {
    printOut(
      "upgraded \(storePath) from formatVersion 1 to \(Store.formatVersion): \(r.objects) objects in \(r.tables.count) table\(r.tables.count == 1 ? "" : "s"), \(r.historyTransactions) history transactions; the formatVersion 1 file is kept as \(r.backup)\n"
    )
  } else {
    printOut("\(Store.displayName(of: storePath)) is at formatVersion \(Store.formatVersion): nothing to do\n")
  }
  store.close()
  exit(ExitStatus.success)
}
