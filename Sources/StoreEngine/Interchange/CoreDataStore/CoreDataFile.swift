import DatabaseKit
import FileAccess

#if canImport(Glibc)
  import Glibc
#endif

/// How a Core Data store file is opened without writing anything beside it. SQLite needs
/// a shared-memory index (`-shm`) to read a WAL: opened normally read-only it still
/// writes that file (and creates it when missing). Measured on the corpus stores
/// (sqlite 3.40, running as root, so file modes do not stop writes):
/// - no `-wal` (or an empty one): `mode=ro&immutable=1`, no lock, no side file touched;
/// - `-wal` and `-shm` present: `mode=ro&readonly_shm=1` reads the WAL through the
///   existing index and leaves both files untouched (bytes and mtime). SQLite opens that
///   `-shm` read-only but its `-wal` with O_CREAT, so a `-wal` the writer removed after
///   this choice came back empty; the process's VFS opens it read-only and never creates
///   it (CSQLite/journal_vfs.h), and the ATTACH then fails (`CoreDataFollower` retries);
/// - `-wal` without `-shm`: SQLite cannot read it without creating `-shm`, so the main
///   file and its `-wal` are copied into a private temporary directory and read there
///   (the copy is removed when the store closes).
/// (`immutable=1` with a non-empty `-wal` silently ignores the WAL: SurfJournal then has
/// 0 rows instead of 5000; `locking_mode=EXCLUSIVE` read-only fails with an I/O error.)
struct CoreDataFile {
  /// The URI to ATTACH.
  let uri: String
  /// The temporary directory holding a copy, to remove after use.
  let temporaryDirectory: String?
  /// Where external binary data lives: `<dir>/.<store name>_SUPPORT/_EXTERNAL_DATA`.
  let externalDirectory: String
  /// Which of the three ways above was used, for `store.info`.
  let access: String

  static func open(_ path: String) throws -> CoreDataFile {
    let size: Int64
    do {
      size = try UserPath.requireRegularFile(path, what: "the Core Data store")
    } catch let e as FileAccessError where e.reason == .notFound {
      throw StoreError(.notFound, "cannot open Core Data store '\(path)': no such file", ["path": .string(path)])
    } catch let e as FileAccessError {
      throw StoreError(openingStore: e)
    }
    guard size > 0 else { throw StoreError(.notAStore, "'\(path)' is empty, not a Core Data store", ["path": .string(path)]) }
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let external = "\(directory)/.\(name)_SUPPORT/_EXTERNAL_DATA"
    switch access(path) {
    case "immutable":
      return CoreDataFile(uri: uri(path, "mode=ro&immutable=1"), temporaryDirectory: nil, externalDirectory: external, access: "immutable")
    case "readonlyShm":
      return CoreDataFile(
        uri: uri(path, "mode=ro&readonly_shm=1"), temporaryDirectory: nil, externalDirectory: external, access: "readonlyShm")
    default: break
    }
    var template = Array("/tmp/modelstore-coredata-XXXXXX".utf8CString)
    guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
      throw StoreError(
        .storage, "cannot create a temporary directory to read '\(path)' (it has a -wal but no -shm)", ["path": .string(path)])
    }
    let copy = dir + "/store.sqlite"
    guard copyFile(path, copy), copyFile(path + "-wal", copy + "-wal") else {
      removeCopy(dir)
      throw StoreError(.storage, "cannot copy '\(path)' and its -wal to \(dir) for reading", ["path": .string(path)])
    }
    return CoreDataFile(uri: uri(copy, "mode=ro"), temporaryDirectory: dir, externalDirectory: external, access: "copy")
  }

  /// Opens `path` the way its files need now and ATTACHes it as `schemaName`. The writer
  /// may be between states (its last connection checkpoints, then removes `-wal` and
  /// `-shm`: a `-wal` or `-shm` chosen for `readonlyShm` can be gone when SQLite opens it,
  /// and is then not created but fails the ATTACH; a `-wal` chosen for `copy` can be gone
  /// before it is copied), so a failure that may come from such a race is retried with a
  /// fresh choice after 1 ms, up to 50 times (about 50 ms), before it is reported; a missing
  /// file or one that is not a database is reported at once. `beforeAttach` runs between
  /// the choice and the ATTACH (tests stage the race with it). On failure nothing stays
  /// attached and no copy is left.
  static func attach(
    _ path: String, as schemaName: String, on c: any DatabaseConnection, beforeAttach: (() -> Void)? = nil
  ) throws -> CoreDataFile {
    var attempt = 0
    while true {
      do {
        let file = try open(path)
        beforeAttach?()
        do {
          try c.run("ATTACH DATABASE ? AS \(Identifier.quote(schemaName))", [.text(file.uri)])
        } catch {
          file.cleanUp()
          throw error
        }
        return file
      } catch {
        attempt += 1
        guard attempt < 50, mayComeFromARace(error) else { throw error }
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        nanosleep(&pause, nil)
      }
    }
  }

  /// False for what no writer's timing explains: the file is missing, empty, or not a
  /// database.
  private static func mayComeFromARace(_ error: Error) -> Bool {
    if let e = error as? StoreError, e.kind == .notFound || e.kind == .notAStore || e.kind == .invalidArgument { return false }
    if let e = error as? any DatabaseError, e.isNotADatabase { return false }
    return true
  }

  /// Which of the three ways above the files at `path` need now.
  static func access(_ path: String) -> String {
    if (fileSize(path + "-wal") ?? 0) == 0 { return "immutable" }
    return fileSize(path + "-shm") != nil ? "readonlyShm" : "copy"
  }

  /// Removes the temporary copy, if any.
  func cleanUp() {
    if let temporaryDirectory { Self.removeCopy(temporaryDirectory) }
  }

  private static func removeCopy(_ dir: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(dir + "/store.sqlite" + suffix) }
    rmdir(dir)
  }

  /// A `file:` URI with every byte outside the unreserved set percent-encoded.
  static func uri(_ path: String, _ query: String) -> String {
    var out = "file:"
    for b in path.utf8 {
      let plain =
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 45 || b == 46 || b == 95 || b == 126 || b == 47
      if plain {
        out.unicodeScalars.append(Unicode.Scalar(b))
      } else {
        let hex = Array("0123456789ABCDEF".utf8)
        out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
      }
    }
    return out + "?" + query
  }

  static func fileSize(_ path: String) -> Int64? {
    var st = stat()
    guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(st.st_size)
  }

  /// The whole file, or nil when it cannot be read.
  static func readFile(_ path: String) -> [UInt8]? {
    let fd = Glibc.open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = read(fd, &chunk, chunk.count)
      if n < 0 { return nil }
      if n == 0 { return out }
      out.append(contentsOf: chunk[0..<n])
    }
  }

  private static func copyFile(_ from: String, _ to: String) -> Bool {
    let input = Glibc.open(from, O_RDONLY)
    guard input >= 0 else { return false }
    defer { close(input) }
    let output = Glibc.open(to, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard output >= 0 else { return false }
    defer { close(output) }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let n = read(input, &chunk, chunk.count)
      if n < 0 { return false }
      if n == 0 { return true }
      guard write(output, chunk, n) == n else { return false }
    }
  }
}
