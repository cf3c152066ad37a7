import FileAccess
import JSONCore

extension StoreError {
  /// A file the user named could not be used; `place` is the param or flag that named it.
  init(_ e: FileAccessError, place: ErrorPlace? = nil) {
    var details: JSONObject = ["path": .string(UserPath.printable(e.path)), "reason": .string(e.reason.rawValue)]
    if let limit = e.limit { details["limit"] = .int(Int64(limit)) }
    let kind: Kind
    switch e.reason {
    case .notFound: kind = .notFound
    case .io: kind = .storage
    case .invalidPath, .exists, .notRegularFile, .danglingLink, .tooLarge: kind = .invalidArgument
    }
    // `data.path` is the file's path here, not the place.
    if let place { self.init(kind, at: place, e.message, details, placeInData: false) } else { self.init(kind, e.message, details) }
  }

  /// As `init(_:place:)` for a file to open as a store: a directory or device is `notAStore`.
  init(openingStore e: FileAccessError) {
    self.init(e)
    if e.reason == .notRegularFile { kind = .notAStore }
  }
}

/// Decides whether a file may be opened as a ModelStore store by reading its first bytes,
/// before SQLite opens it: SQLite opened read-write checkpoints and deletes another
/// program's `-wal`, and opened read-only it still writes `-shm`, so a file that is then
/// refused would already have been changed. Only a ModelStore store (application_id
/// 'MSTO' in the header), a new or 0-byte file, or an SQLite database without a single
/// table reaches SQLite.
enum StoreFileCheck {
  /// SQLite's file header: the magic string, and where the application id and page 1's
  /// b-tree cell count sit (https://sqlite.org/fileformat.html, "The Database Header").
  private static let magic = Array("SQLite format 3\0".utf8)
  private static let headerBytes = 108

  static func check(_ path: String, readOnly: Bool, create: Bool) throws {
    let what = "the store file"
    let size: Int64
    do {
      switch try UserPath.status(path) {
      case .missing:
        if readOnly || !create { throw StoreError(.notFound, "\(what) '\(path)' does not exist", ["path": .string(path)]) }
        return
      case .regular(let s): size = s
      default: try UserPath.requireRegularFile(path, what: what); return
      }
    } catch let e as FileAccessError {
      throw StoreError(openingStore: e)
    }
    let walSize: Int64
    if case .regular(let s)? = try? UserPath.status(path + "-wal") { walSize = s } else { walSize = 0 }
    guard size > 0 else {
      if walSize > 0 {
        throw StoreError(
          .notAStore, "'\(path)' is empty but has a non-empty '-wal' beside it: not a ModelStore store (left untouched)",
          ["path": .string(path)])
      }
      return
    }
    let header = try readHeader(path)
    guard header.count >= 100, Array(header[0..<16]) == magic else {
      throw StoreError(.notAStore, "'\(path)' is not a ModelStore store (not an SQLite database)", ["path": .string(path)])
    }
    let appID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    if appID == UInt32(bitPattern: Store.applicationID) { return }
    let page1Cells = header.count >= headerBytes ? Int(header[103]) << 8 | Int(header[104]) : 1
    if page1Cells == 0 && walSize == 0 { return }  // an SQLite database without tables: made a store
    throw StoreError(
      .notAStore, "'\(path)' is an SQLite database but not a ModelStore store (application_id is not 'MSTO'); it was not opened",
      ["path": .string(path)])
  }

  private static func readHeader(_ path: String) throws -> [UInt8] {
    do {
      return try UserPath.readHead(path, count: headerBytes, what: "the store file")
    } catch let e as FileAccessError {
      throw StoreError(e)
    }
  }
}
