import DatabaseKit

#if canImport(Glibc)
  import Glibc
#endif

/// Follows a Core Data store that another program (the app) keeps changing, without
/// writing anything beside it: a change shows as a new size, mtime or inode of the file
/// or its `-wal` (or one appearing or going). `immutable` and `copy` access cannot see
/// later commits, so then the file is attached again, in whichever of `CoreDataFile`'s
/// three ways fits the files as they are now (with `immutable=1` a fresh ATTACH reads
/// the new content). `readonlyShm` reads new commits by itself and is kept.
final class CoreDataFollower {
  let path: String
  let schemaName: String
  private(set) var file: CoreDataFile
  private var signature: [FileSignature?]
  private var dataVersion: SQLValue?

  /// `signature` is taken before `file` was attached, so a commit landing in between is
  /// seen by the first `check`.
  init(path: String, schemaName: String, file: CoreDataFile, signature: [FileSignature?]) {
    self.path = path
    self.schemaName = schemaName
    self.file = file
    self.signature = signature
  }

  static func signature(_ path: String) -> [FileSignature?] {
    [path, path + "-wal", path + "-shm"].map(FileSignature.of)
  }

  /// Whether the files changed since the last call; attaches them again when needed (outside
  /// any transaction: SQLite refuses ATTACH inside one). When that fails (the writer was
  /// between states of its files) the next call tries again.
  func check(_ c: any DatabaseConnection) throws -> Bool {
    let now = Self.signature(path)
    if now == signature {
      guard file.access == "readonlyShm" else { return false }
      let version = try c.scalar("PRAGMA \(Identifier.quote(schemaName)).data_version")
      defer { dataVersion = version }
      return dataVersion != nil && version != dataVersion
    }
    signature = [nil, nil, nil]
    dataVersion = nil
    if file.access != "readonlyShm" || CoreDataFile.access(path) != "readonlyShm" {
      c.clearCache()
      // Fails only when an earlier attempt left nothing attached.
      try? c.run("DETACH DATABASE \(Identifier.quote(schemaName))")
      file.cleanUp()
      try attachAgain(c)
    }
    signature = now
    if file.access == "readonlyShm" { dataVersion = try c.scalar("PRAGMA \(Identifier.quote(schemaName)).data_version") }
    return true
  }
}

extension CoreDataFollower {
  /// Attaches the file the way its files need now (`CoreDataFile.attach`, which retries
  /// while the writer is between states).
  fileprivate func attachAgain(_ c: any DatabaseConnection) throws {
    file = try CoreDataFile.attach(path, as: schemaName, on: c)
  }
}

/// What identifies one state of a file without reading it.
struct FileSignature: Equatable {
  let inode: UInt64
  let size: Int64
  let seconds: Int
  let nanoseconds: Int

  static func of(_ path: String) -> FileSignature? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return FileSignature(
      inode: UInt64(st.st_ino), size: Int64(st.st_size), seconds: Int(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))
  }
}
