import DatabaseKit
import SQLiteCore

/// The one place the engine names its SQLite implementation of the database seam
/// (besides the Core Data store reader, which reads SQLite files by nature): it opens
/// the connection a `Store` keeps. A second engine adds its opener beside this one.
enum SQLiteDatabase {
  /// Opens the store file at `path` (always a file path, never a URI), or an in-memory
  /// database when `path` is nil.
  static func open(path: String?, readOnly: Bool, create: Bool) throws -> any DatabaseConnection {
    let options = Connection.Options(readOnly: readOnly, create: create)
    return try path.map { try Connection(file: $0, options: options) } ?? Connection(path: ":memory:", options: options)
  }

  /// The name to give SQLite in SQL text (`VACUUM INTO ?`) so that it writes `path` as a file.
  static func fileName(forPath path: String) -> String { Connection.fileName(forPath: path) }
}

extension Store {
  /// The version of the SQLite library the stores use (`store.info`, `initialize`).
  public static var sqliteVersion: String { Connection.libraryVersion }
}
