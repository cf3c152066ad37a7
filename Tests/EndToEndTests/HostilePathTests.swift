import Foundation
import JSONCore
import TestSupport
import XCTest

/// Paths are paths: never SQLite URIs, never cut at a NUL, never a device where a file is
/// read, never written through a link, and a file that is refused is never written to.
final class HostilePathTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws {
    try TestEngine.requireSQLite("paths of files: store files, backups, Core Data stores")
    dir = try TemporaryDirectory()
  }
  override func tearDown() { dir?.remove() }

  private func server(_ arguments: [String] = ["serve", "--memory"]) throws -> ServerProcess {
    try ServerProcess(arguments: arguments, currentDirectory: dir.url)
  }

  private func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }

  /// Bytes and modification time of each file, to show that nothing was written.
  private func snapshot(_ paths: [String]) throws -> [String: (Data, Date)] {
    var out: [String: (Data, Date)] = [:]
    for p in paths {
      let attributes = try FileManager.default.attributesOfItem(atPath: p)
      out[p] = (try Data(contentsOf: URL(fileURLWithPath: p)), attributes[.modificationDate] as! Date)
    }
    return out
  }

  private func assertUnchanged(_ before: [String: (Data, Date)], _ listingBefore: [String], _ what: String, line: UInt = #line) throws {
    for (p, (data, date)) in before {
      let now = try snapshot([p])[p]!
      XCTAssertEqual(now.0, data, "\(what) changed the bytes of \(p)", line: line)
      XCTAssertEqual(now.1, date, "\(what) changed the mtime of \(p)", line: line)
    }
    XCTAssertEqual(try listing(), listingBefore, "\(what) added or removed files", line: line)
  }

  // MARK: - URIs (item 7) and overwriting (item 6)

  func testABackupNamedLikeAnSQLiteURINeverOverwritesTheStoreItSeemsToName() throws {
    let victim = try server(["serve", "--store", "victim.store"])
    _ = try victim.call("model.define", ["schema": itemSchema])
    _ = try victim.call("objects.insert", ["entity": "Item", "values": ["title": "keep me"]])
    victim.closeInput()
    XCTAssertEqual(victim.waitForExit(), 0, victim.stderr)
    let before = try snapshot([dir.file("victim.store")])

    let s = try server()
    _ = try s.call("model.define", ["schema": itemSchema])
    let backup = try s.call("store.backup", ["to": "file:victim.store"])
    XCTAssertEqual(backup["path"], "file:victim.store")
    XCTAssertTrue(dir.exists("file:victim.store"), "the backup is the file of that name")
    try assertUnchanged(before, try listing(), "store.backup to file:victim.store")
    // Now it exists: a second backup to that name is refused.
    let again = try s.callFailing("store.backup", ["to": "file:victim.store"])
    XCTAssertEqual(again["data"]?["kind"], "invalidArgument")
    XCTAssertEqual(again["data"]?["reason"], "exists")
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0)
  }

  func testStorePathsAreOpenedAsFilesNeverAsURIs() throws {
    let names = ["file:x?mode=memory", "file:cli.store?mode=rwc&nolock=1", ":memory:"]
    for name in names {
      let s = try server(["serve", "--store", name])
      let info = try s.call("store.info")
      XCTAssertEqual(info["memory"], false, name)
      _ = try s.call("model.define", ["schema": itemSchema])
      s.closeInput()
      XCTAssertEqual(s.waitForExit(), 0, s.stderr)
      XCTAssertTrue(dir.exists(name), "'\(name)' is a file in the working directory")
    }
    let s = try server()
    _ = try s.call("store.open", ["path": "file:y?mode=memory"])
    XCTAssertEqual(try s.call("store.info")["memory"], false)
    _ = try s.call("model.define", ["schema": itemSchema])
    XCTAssertTrue(dir.exists("file:y?mode=memory"))
    // A migration's backup names a file that exists.
    let plan = try s.call("migration.apply", ["schemas": [itemSchema, itemSchemaVersion2]])
    let backupPath = try XCTUnwrap(plan["backup"]?.stringValue, "\(plan)")
    XCTAssertTrue(FileManager.default.fileExists(atPath: backupPath.hasPrefix("/") ? backupPath : dir.file(backupPath)), backupPath)
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0)
  }

  // MARK: - NUL (item 8), devices (item 11), dangling links (item 12)

  func testPathsWithANULAreRefusedAndNothingIsWritten() throws {
    let s = try server()
    _ = try s.call("model.define", ["schema": itemSchema])
    let bad: JSONValue = "bk\u{0}.txt"
    let calls: [(String, JSONObject)] = [
      ("store.backup", ["to": bad]),
      ("export.json", ["path": bad]),
      ("store.open", ["path": bad]),
      ("import.json", ["path": bad]),
      ("import.coreData", ["store": bad]),
    ]
    for (method, params) in calls {
      let e = try s.callFailing(method, params)
      XCTAssertEqual(e["code"], -32602, "\(method): \(e)")
      XCTAssertEqual(e["data"]?["reason"], "invalidPath", "\(method): \(e)")
      XCTAssertEqual(e["data"]?["path"], "bk\\0.txt", method)
    }
    // The model reader reports an unreadable file as an error of the version it reads.
    let model = JSONWriter.encodeString(try s.call("model.importXcdatamodel", ["path": bad]))
    XCTAssertTrue(model.contains("contains a NUL character"), model)
    XCTAssertEqual(try listing(), [], "nothing was created under the cut name 'bk'")
    XCTAssertEqual(try s.call("store.info")["memory"], true, "the store was not replaced")
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0)
  }

  func testDevicesAndDirectoriesAreRefusedWhereAFileIsRead() throws {
    let s = try server()
    _ = try s.call("model.define", ["schema": itemSchema])
    let calls: [(String, JSONObject, String)] = [
      ("import.json", ["path": "/dev/zero"], "invalidArgument"),
      ("import.json", ["path": "/dev/zero", "mode": "replace"], "invalidArgument"),
      ("model.importXcdatamodel", ["path": "/dev/zero"], ""),
      ("model.audit", ["path": "/dev/zero"], ""),
      ("store.open", ["path": "/dev/zero"], "notAStore"),
      ("store.open", ["path": .string(dir.path)], "notAStore"),
      ("import.coreData", ["store": "/dev/zero"], "notAStore"),
    ]
    for (method, params, kind) in calls {
      let reply = try s.request(method, params, timeout: 30)
      if kind.isEmpty {
        // The model readers report unreadable files as import issues of the result.
        let text = JSONWriter.encodeString(.object(reply))
        XCTAssertTrue(text.contains("not a regular file"), "\(method): \(text)")
      } else {
        XCTAssertEqual(reply.errorKind, kind, "\(method) \(params): \(reply)")
        XCTAssertTrue(
          reply.errorMessage?.contains("character device") == true || reply.errorMessage?.contains("directory") == true, "\(reply)")
      }
    }
    XCTAssertEqual(try s.call("store.info")["memory"], true)
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0)
    let r = try runModelstore(["serve", "--store", "/dev/zero"], input: requestLine(1, "store.info") + "\n")
    XCTAssertEqual(r.stdout, "")
    XCTAssertTrue(r.stderr.contains("not a regular file"), r.stderr)
  }

  func testNoFileIsWrittenThroughADanglingLink() throws {
    let target = dir.file("elsewhere.store")
    try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: target)
    let s = try server()
    _ = try s.call("model.define", ["schema": itemSchema])
    for (method, params) in [("store.backup", ["to": "link"]), ("export.json", ["path": "link"])] as [(String, JSONObject)] {
      let e = try s.callFailing(method, params)
      XCTAssertEqual(e["data"]?["kind"], "invalidArgument", "\(method): \(e)")
      XCTAssertEqual(e["data"]?["reason"], "exists", "\(method): \(e)")
    }
    let open = try s.callFailing("store.open", ["path": "link"])
    XCTAssertEqual(open["data"]?["reason"], "danglingLink", "\(open)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: target), "the link's target was not created")
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0)
  }

  // MARK: - Refused, never written to (item 9)

  func testACoreDataStoreIsRefusedWithoutAByteOrAFileChanging() throws {
    let resources = "coredata-stores/duckduckgo__BrowserServicesKit/Tests/BookmarksTests/Resources"
    guard let source = corpusPath("\(resources)/Bookmarks_V1.sqlite") else {
      throw XCTSkip("the corpus (../shared/corpus) is absent: \(resources)/Bookmarks_V1.sqlite")
    }
    let mainOnly = try XCTUnwrap(corpusPath("coredata-stores/gilpa__iphone_sqlite_test/CoreDataBooks.sqlite"))
    for suffix in ["", "-wal", "-shm"] {
      try FileManager.default.copyItem(atPath: source + suffix, toPath: dir.file("Bookmarks.sqlite" + suffix))
    }
    try FileManager.default.copyItem(atPath: mainOnly, toPath: dir.file("Books.sqlite"))
    let files = ["Bookmarks.sqlite", "Bookmarks.sqlite-wal", "Bookmarks.sqlite-shm", "Books.sqlite"].map { dir.file($0) }
    let before = try snapshot(files)
    let listed = try listing()
    for store in ["Bookmarks.sqlite", "Books.sqlite"] {
      let path = dir.file(store)
      for arguments in [
        ["serve", "--store", path], ["serve", "--read-only", "--store", path], ["serve", "--no-create", "--store", path],
        ["export", "--store", path], ["migrate", "--store", path, "--to", "/dev/null"],
      ] {
        let r = try runModelstore(arguments, input: requestLine(1, "store.info") + "\n")
        XCTAssertNotEqual(r.status, 0, "\(arguments) accepted")
        XCTAssertTrue(r.stderr.contains("not a ModelStore store"), "\(arguments): \(r.stderr)")
        try assertUnchanged(before, listed, arguments.joined(separator: " "))
      }
      let s = try server()
      for params in [["path": .string(path)], ["path": .string(path), "readOnly": true]] as [JSONObject] {
        XCTAssertEqual(try s.callFailing("store.open", params)["data"]?["kind"], "notAStore")
        try assertUnchanged(before, listed, "store.open \(params)")
      }
      s.closeInput()
      XCTAssertEqual(s.waitForExit(), 0)
    }
  }
}

/// A file of `shared/corpus` (beside the repository), nil when the corpus is absent.
private func corpusPath(_ relative: String) -> String? {
  let path = ServerProcess.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/\(relative)").path
  return FileManager.default.fileExists(atPath: path) ? path : nil
}

/// The Item schema with one more optional attribute: a lightweight step from `itemSchema`.
private let itemSchemaVersion2: JSONValue = try! JSONParser.parse(
  """
  {"version":"2.0.0","entities":[{"name":"Item","attributes":[{"name":"title","type":"string"},{"name":"n","type":"int","default":0},
  {"name":"note","type":"string","optional":true}]}]}
  """)

extension JSONObject {
  fileprivate var errorMessage: String? { self["error"]?["message"]?.stringValue }
}
