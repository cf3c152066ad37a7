import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `modelstore copy`: a store with inheritance, a renamed and a removed entity (so entity
/// codes are not in schema order), many-to-many and ordered links, every attribute type,
/// deleted objects (key gaps), two schema versions and history, copied from a file to a
/// PostgreSQL schema and back (MODELSTORE_TEST_PG, skipped without it) and from file to
/// file: the same export bytes, the same bookkeeping rows, keys and tokens going on where
/// the source's would; a copy that fails part way, or is interrupted, leaves no target;
/// bad input gets a precise error and creates nothing. It names both engines itself, so it
/// runs in `make swift-test` only (a `Postgres` test: skipped by the PostgreSQL pass).
final class PostgresCopyTests: XCTestCase {
  private var dir: TemporaryDirectory!
  private var schemas: [PostgresTestSchema] = []

  override func setUpWithError() throws { dir = try TemporaryDirectory("modelstore-copy") }

  override func tearDown() {
    for s in schemas { s.drop() }
    schemas = []
    dir.remove()
  }

  private func freshSchema(_ label: String) throws -> PostgresTestSchema {
    let s = try PostgresTestSchema(label)
    schemas.append(s)
    return s
  }

  // MARK: - The store copied

  /// The entities both versions have as they are.
  static let item = entity(
    "Item", abstract: true, [attr("name", "string")], relationships: [rel("tags", "Tag", inverse: "items", toMany: true)])
  static let book = entity("Book", parent: "Item", [attr("isbn", "string", unique: true), attr("pages", "int16", default: 0)])
  static let tag = entity(
    "Tag", [attr("label", "string", unique: true)], relationships: [rel("items", "Item", inverse: "tags", toMany: true)])
  static let playlist = entity(
    "Playlist", [attr("title", "string")], relationships: [rel("entries", "Entry", inverse: "playlist", toMany: true, ordered: true)])
  static let entry = entity(
    "Entry",
    [
      attr("key", "uuid", default: ["generate": "uuid"], unique: true), attr("at", "date", optional: true),
      attr("blob", "data", optional: true), attr("meta", "json", optional: true), attr("link", "url", optional: true),
      attr("flag", "bool", default: false), attr("ratio", "float", optional: true), attr("big", "int64", optional: true),
    ], relationships: [rel("playlist", "Playlist", inverse: "entries")])

  static let v1 = schema(
    item, book, entity("Gadget", parent: "Item", [attr("weight", "double", optional: true), attr("price", "decimal", optional: true)]),
    tag, playlist, entry, entity("Legacy", [attr("x", "int")]), version: "1")

  /// Gadget renamed Device (its code kept), Legacy removed (its code retired), Note added first.
  static let v2 = schema(
    entity("Note", [attr("body", "string")]), item, book,
    entity(
      "Device", parent: "Item",
      [attr("weight", "double", optional: true), attr("price", "decimal", optional: true), attr("color", "string", default: "grey")],
      originalName: "Gadget"),
    tag, playlist, entry, version: "2")

  /// Builds the store at `path` (a file or a URL) through a server.
  private func buildRichStore(_ path: String) throws {
    let s = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try s.call("model.define", ["schema": Self.v1])
    func insert(_ entity: String, _ values: JSONObject) throws -> JSONValue {
      try s.call("objects.insert", ["entity": .string(entity), "values": .object(values)])["_id"] ?? .null
    }
    let tags = [try insert("Tag", ["label": "new"]), try insert("Tag", ["label": "used \u{e9}\u{1F600}"])]
    var books: [JSONValue] = []
    for i in 0..<4 {
      books.append(
        try insert(
          "Book",
          [
            "name": .string("book \(i) \"q\""), "isbn": .string("978-\(i)"), "pages": .int(Int64(100 + i)),
            "tags": .array(i % 2 == 0 ? tags : [tags[1]]),
          ]))
    }
    _ = try insert("Gadget", ["name": "lamp", "weight": .double(0.1 + 0.2), "price": "19.990", "tags": .array([tags[0]])])
    _ = try s.call("objects.delete", ["id": books[3]])  // the largest Item key is gone: _ms_keys keeps it
    let playlist = try insert("Playlist", ["title": "mix"])
    var entries: [JSONValue] = []
    for i in 0..<4 {
      entries.append(
        try insert(
          "Entry",
          [
            "at": .string("2026-03-0\(i + 1)T08:30:00.12\(i)Z"), "blob": "AAEC/w==", "meta": ["k": .array([1, .null, "x"])],
            "link": .string("https://example.com/\(i)"), "flag": .bool(i % 2 == 0), "ratio": .double(Double(i) / 3),
            "big": .int(Int64.max - Int64(i)),
            "playlist": playlist,
          ]))
    }
    _ = try s.call("objects.update", ["id": playlist, "values": ["entries": .array([entries[2], entries[0], entries[3], entries[1]])]])
    _ = try s.call("model.define", ["schema": Self.v2])
    _ = try insert("Note", ["body": "written after the rename"])
    _ = try insert("Device", ["name": "phone", "weight": 0.25])
    // The newest Item is deleted too: the next key is one past it, not past the largest left.
    _ = try s.call("objects.delete", ["id": try insert("Device", ["name": "gone"])])
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0, s.stderr)
  }

  private func copy(_ args: [String]) throws -> RunResult { try runModelstore(["copy"] + args, timeout: 120) }

  private func export(_ store: String) throws -> String {
    let out = dir.file("export-\(UUID().uuidString).ndjson")
    let r = try runModelstore(["export", "--store", store, "--out", out])
    XCTAssertEqual(r.status, 0, r.stderr)
    return try String(contentsOfFile: out, encoding: .utf8)
  }

  /// The store's own rows besides its objects, as the sqlite3 shell prints them.
  private func bookkeeping(_ file: String) throws -> String {
    let r = try sqlite3(
      file,
      """
      SELECT code, name FROM _ms_entities ORDER BY code;
      SELECT name, max FROM _ms_keys ORDER BY name;
      SELECT seq, version, hash, schema, printf('%.17g', appliedAt) FROM _ms_schema_versions ORDER BY seq;
      SELECT key, value FROM _ms_meta ORDER BY key;
      SELECT token, printf('%.17g', timestamp), author, hex(changes) FROM _ms_history ORDER BY token;
      """, readOnly: true)
    XCTAssertEqual(r.status, 0, r.stderr)
    return r.stdout
  }

  private func newestToken(_ file: String) throws -> Int {
    let r = try sqlite3(file, "SELECT count(*) = max(token), max(token) FROM _ms_history", readOnly: true)
    XCTAssertTrue(r.stdout.hasPrefix("1|"), "tokens from 1 without gaps: \(r.stdout)")
    return Int(r.stdout.dropFirst(2)) ?? -1
  }

  // MARK: - Round trips

  func testFileToPostgreSQLAndBackKeepsIdsCodesVersionsKeysAndHistory() throws {
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed") }
    let pg = try freshSchema("copy_round")
    let source = dir.file("source.store")
    try buildRichStore(source)
    let up = try copy(["--from", source, "--to", pg.storeURL, "--history"])
    XCTAssertEqual(up.status, 0, up.stderr)
    XCTAssertTrue(
      up.stderr.contains("copied 13 objects (Note 1, Book 3, Device 2, Tag 2, Playlist 1, Entry 4), 6 links, 2 schema versions"), up.stderr)
    let tokens = try newestToken(source)
    let back = dir.file("back.store")
    let down = try copy(["--from", pg.storeURL, "--to", back, "--history"])
    XCTAssertEqual(down.status, 0, down.stderr)
    XCTAssertEqual(try export(back), try export(source), "the objects, ids and links came back as they were")
    XCTAssertEqual(try export(pg.storeURL), try export(source))
    XCTAssertEqual(try bookkeeping(back), try bookkeeping(source), "entity codes, keys, versions, meta and history came back")
    XCTAssertEqual(dir.listing().filter { $0.contains("partial") }, [])
    // On the server: the codes as the source has them (Device keeps Gadget's, Legacy's stays taken).
    XCTAssertEqual(
      try pg.psql("SELECT string_agg(code || '=' || name, ',' ORDER BY code) FROM _ms_entities").stdout,
      "1=Item,2=Book,3=Device,4=Tag,5=Playlist,6=Entry,7=Legacy,8=Note")
    let info = try runModelstore(["info", pg.storeURL, "--json"])
    XCTAssertEqual(info.status, 0, info.stderr)
    let facts = try JSONParser.parse(info.stdout)
    XCTAssertEqual(facts["counts"], ["Note": 1, "Book": 3, "Device": 2, "Tag": 2, "Playlist": 1, "Entry": 4])
    XCTAssertEqual(facts["history"]?["transactions"], .int(Int64(tokens)))

    // The copy goes on where the source would: the next key, the next token, the next version.
    let server = try ServerProcess(arguments: ["serve", "--store", pg.storeURL])
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    XCTAssertEqual(try server.call("objects.insert", ["entity": "Book", "values": ["name": "n", "isbn": "978-9"]])["_id"], "Book/8")
    XCTAssertEqual(
      try server.call("history.fetch", ["after": .int(Int64(tokens))])["transactions"]?.arrayValue?.first?["token"], .int(Int64(tokens + 1))
    )
    var v3 = Self.v2
    if case .object(var o) = v3 { o["version"] = "3"; v3 = .object(o) }
    XCTAssertEqual(try server.call("model.define", ["schema": v3])["changed"], true)
    XCTAssertEqual(try pg.psql("SELECT max(seq) FROM _ms_schema_versions").stdout, "3")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  func testFileToFileWithoutHistoryStartsTheHistoryAfterTheSourceTokens() throws {
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed") }
    let source = dir.file("source.store")
    try buildRichStore(source)
    let target = dir.file("copy.store")
    let r = try copy(["--from", source, "--to", target])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(r.stderr.contains("no history (without --history)"), r.stderr)
    XCTAssertEqual(try export(target), try export(source))
    XCTAssertEqual(try sqlite3(target, "SELECT count(*) FROM _ms_history").stdout, "0")
    let tokens = try newestToken(source)
    XCTAssertEqual(try sqlite3(target, "SELECT max FROM _ms_keys WHERE name = '_ms_history'").stdout, "\(tokens)")
    let server = try ServerProcess(arguments: ["serve", "--store", target])
    _ = try server.call("objects.insert", ["entity": "Note", "values": ["body": "after the copy"]])
    XCTAssertEqual(try server.call("history.fetch")["transactions"]?.arrayValue?.first?["token"], .int(Int64(tokens + 1)))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  // MARK: - All or nothing

  /// A store of `count` Notes (`code` unique, `body`), the rows written by the sqlite3 shell;
  /// `last` is the body of the last one.
  private func noteStore(_ name: String, count: Int, last: String = "'the last note'") throws -> String {
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed") }
    let path = dir.file(name)
    let s = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try s.call("model.define", ["schema": schema(entity("Note", [attr("code", "string", unique: true), attr("body", "string")]))])
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0, s.stderr)
    let r = try sqlite3(
      path,
      """
      WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(count - 1))
      INSERT INTO "Note" ("_pk", "code", "body") SELECT x, 'n' || x, 'note number ' || x FROM c;
      INSERT INTO "Note" ("_pk", "code", "body") VALUES (\(count), 'last', \(last));
      PRAGMA wal_checkpoint(TRUNCATE);
      """)
    XCTAssertEqual(r.status, 0, r.stderr)
    return path
  }

  private func schemaExists(_ pg: PostgresTestSchema) throws -> Bool {
    try PostgresTestCluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(pg.name)'", url: pg.clusterURL).stdout == "1"
  }

  func testACopyIntoPostgreSQLThatFailsPartWayLeavesNoSchemaAndAReplacedStoreAsItWas() throws {
    let pg = try freshSchema("copy_fail")
    // PostgreSQL's text cannot hold U+0000, which SQLite stores: the last of 5,000 rows is refused.
    let bad = try noteStore("bad.store", count: 5000, last: "'bad' || char(0) || 'body'")
    let r = try copy(["--from", bad, "--to", pg.storeURL])
    XCTAssertEqual(r.status, 1, r.stderr)
    XCTAssertTrue(r.stderr.contains("cannot write the rows of 'Note' from _pk "), r.stderr)
    XCTAssertFalse(try schemaExists(pg), "the schema made for the copy was rolled back with it")

    let good = try noteStore("good.store", count: 10)
    XCTAssertEqual(try copy(["--from", good, "--to", pg.storeURL]).status, 0)
    let before = try export(pg.storeURL)
    let again = try copy(["--from", good, "--to", pg.storeURL])
    XCTAssertEqual(again.status, 1)
    XCTAssertTrue(again.stderr.contains("--to: '\(pg.storeURL)' already holds a ModelStore store"), again.stderr)
    XCTAssertTrue(again.stderr.contains("hint: give --force"), again.stderr)
    let forced = try copy(["--from", bad, "--to", pg.storeURL, "--force"])
    XCTAssertEqual(forced.status, 1, forced.stderr)
    XCTAssertEqual(try export(pg.storeURL), before, "the store --force would have replaced is as it was")
    let replaced = try copy(["--from", try noteStore("other.store", count: 3), "--to", pg.storeURL, "--force"])
    XCTAssertEqual(replaced.status, 0, replaced.stderr)
    XCTAssertEqual(try pg.psql("SELECT count(*) FROM \"Note\"").stdout, "3")
  }

  func testACopyIntoAFileThatFailsPartWayLeavesNoFile() throws {
    // A damaged source: two Notes share a code that is declared unique (its index dropped
    // by hand), so the copy fails when it builds the index, after every row was written.
    let source = try noteStore("damaged.store", count: 3000)
    let r0 = try sqlite3(
      source,
      """
      SELECT 'DROP INDEX "' || name || '";' FROM sqlite_schema WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE INDEX%' AND tbl_name = 'Note';
      """)
    let drop = try sqlite3(source, r0.stdout + " UPDATE \"Note\" SET \"code\" = 'n1' WHERE \"_pk\" = 2999;")
    XCTAssertEqual(drop.status, 0, drop.stderr)
    let target = dir.file("copy.store")
    let r = try copy(["--from", source, "--to", target])
    XCTAssertEqual(r.status, 1, r.stderr)
    XCTAssertTrue(r.stderr.contains("modelstore copy: cannot build the indexes of 'Note' in the target: "), r.stderr)
    XCTAssertFalse(dir.exists("copy.store"))
    XCTAssertEqual(dir.listing().filter { $0.hasPrefix("copy.store") }, [], "no partial file is left")
    if PostgresTestCluster.url != nil {
      let pg = try freshSchema("copy_damaged")
      let up = try copy(["--from", source, "--to", pg.storeURL])
      XCTAssertEqual(up.status, 1, up.stderr)
      XCTAssertTrue(up.stderr.contains("cannot build the indexes of 'Note' in the target: "), up.stderr)
      XCTAssertFalse(try schemaExists(pg))
    }
  }

  func testAnInterruptedCopyLeavesNoTarget() throws {
    let source = try noteStore("big.store", count: 60_000)
    var targets = [dir.file("interrupted.store")]
    if PostgresTestCluster.url != nil { targets.append(try freshSchema("copy_int").storeURL) }
    for target in targets {
      let p = Process()
      p.executableURL = ServerProcess.binaryURL
      p.arguments = ["copy", "--from", source, "--to", target, "--progress"]
      let err = Pipe()
      p.standardError = err
      p.standardOutput = FileHandle.nullDevice
      try p.run()
      // The first progress line: the copy's transaction is open and rows are going in.
      var seen = Data()
      while !seen.contains(UInt8(ascii: "\n")) {
        let chunk = err.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen += chunk
      }
      kill(p.processIdentifier, SIGINT)
      let rest = err.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      let stderr = String(decoding: seen + rest, as: UTF8.self)
      XCTAssertTrue(stderr.hasPrefix("copying objects: "), stderr)
      if p.terminationStatus == 0 {
        // It finished before the signal arrived: then the copy is whole.
        XCTAssertTrue(stderr.contains("copied 60000 objects"), stderr)
      } else {
        XCTAssertEqual(p.terminationStatus, 1, stderr)
        XCTAssertTrue(stderr.contains("interrupted: the copy stopped and left no target"), stderr)
        if target.hasPrefix("postgresql:") {
          XCTAssertFalse(try schemaExists(schemas.last!))
        } else {
          XCTAssertEqual(dir.listing().filter { $0.hasPrefix("interrupted") }, [])
        }
      }
    }
  }

  // MARK: - Bad input

  func testBadInputGetsAPreciseErrorAndCreatesNothing() throws {
    let good = try noteStore("good.store", count: 3)
    let text = dir.file("notes.txt")
    try "not a store\n".write(toFile: text, atomically: false, encoding: .utf8)
    let target = dir.file("new.store")
    var cases: [(args: [String], status: Int32, words: [String])] = [
      ([], 2, ["copy needs --from SOURCE"]),
      (["--from", good], 2, ["copy needs --to TARGET"]),
      (["--from", good, "--to", target, "--sideways"], 2, ["unknown option '--sideways'"]),
      (["--from", text, "--to", target], 1, ["--from: '\(text)' is not a ModelStore store"]),
      (["--from", dir.file("missing.store"), "--to", target], 1, ["--from: the store file", "missing.store' does not exist"]),
      (["--from", good, "--to", "postgresql://h/db?colour=blue"], 1, ["--to: ", "malformed PostgreSQL URL", "colour"]),
      (["--from", "postgresql://h/db?schema=a&schema=b", "--to", target], 1, ["--from: ", "malformed PostgreSQL URL"]),
      (
        ["--from", good, "--to", "postgresql:///postgres?host=/nonexistent/socket/dir&schema=x"], 1,
        ["--to: cannot reach the PostgreSQL server"]
      ),
      (["--from", good, "--to", text, "--force"], 1, ["--to: '\(text)' is not a ModelStore store"]),
      (["--from", good, "--to", good, "--force"], 1, ["--to: the target is the source"]),
      (["--from", good, "--to", dir.path], 1, ["--to: ", "is a directory"]),
    ]
    if PostgresTestCluster.url != nil {
      let missing = try freshSchema("copy_missing")
      let foreign = try freshSchema("copy_foreign")
      try PostgresTestCluster.psql(
        "CREATE SCHEMA \"\(foreign.name)\"; CREATE TABLE \"\(foreign.name)\".notes (body text)", url: foreign.clusterURL)
      cases += [
        (
          ["--from", missing.storeURL, "--to", target], 1,
          ["--from: the schema '\(missing.name)' does not exist", "creation was not allowed"]
        ),
        (["--from", foreign.storeURL, "--to", target], 1, ["--from: ", "not a ModelStore store"]),
        (["--from", good, "--to", foreign.storeURL, "--force"], 1, ["--to: ", "not a ModelStore store"]),
        (
          ["--from", good, "--to", PostgresTestCluster.adding("user=ms_password_user&password=wrong", to: missing.storeURL)], 1,
          ["--to: the PostgreSQL server refused the credentials"]
        ),
      ]
    }
    let before = dir.listing()
    for c in cases {
      let r = try copy(c.args)
      XCTAssertEqual(r.status, c.status, "\(c.args): \(r.stderr)")
      for w in c.words { XCTAssertTrue(r.stderr.contains(w), "\(c.args): expected '\(w)' in: \(r.stderr)") }
      XCTAssertFalse(r.stderr.contains("password=wrong"), r.stderr)
    }
    XCTAssertEqual(
      dir.listing().filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") },
      before.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") },
      "nothing was created")
    XCTAssertEqual(try String(contentsOfFile: text, encoding: .utf8), "not a store\n")
    if let missing = schemas.first { XCTAssertFalse(try schemaExists(missing), "a missing source schema is not created") }
  }
}
