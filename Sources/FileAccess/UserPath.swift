#if canImport(Glibc)
  import Glibc
#endif

/// The one place that turns a path a user named (a request param, a command-line
/// argument) into file-system calls. Paths are paths: never SQLite URIs or special names,
/// never cut at a NUL, and a link is only followed to something that exists.
public enum UserPath {
  /// What is at a path, looked at without opening it.
  public enum Status: Equatable {
    case missing
    /// A regular file (through any links), with its size in bytes.
    case regular(size: Int64)
    case directory
    /// A device, FIFO or socket, named for messages ("character device", ...).
    case special(String)
    /// A symbolic link whose target does not exist.
    case danglingLink
  }

  /// Refuses what no system call can take whole: the empty path, and one with a NUL
  /// (C would cut `bk\0.txt` to `bk`).
  public static func check(_ path: String) throws {
    if path.isEmpty { throw FileAccessError(.invalidPath, path: path, "the path is empty") }
    if path.utf8.contains(0) {
      throw FileAccessError(.invalidPath, path: path, "the path '\(printable(path))' contains a NUL character")
    }
  }

  /// The path with NUL shown as `\0`, for messages.
  public static func printable(_ path: String) -> String { path.replacingNULs() }

  public static func status(_ path: String) throws -> Status {
    try check(path)
    var st = stat()
    if stat(path, &st) != 0 {
      let code = errno
      if code == ENOENT {
        var lst = stat()
        return lstat(path, &lst) == 0 ? .danglingLink : .missing
      }
      throw FileAccessError(.io, path: path, "cannot look at '\(path)': \(String(cString: strerror(code)))")
    }
    switch st.st_mode & S_IFMT {
    case S_IFREG: return .regular(size: Int64(st.st_size))
    case S_IFDIR: return .directory
    case S_IFCHR: return .special("character device")
    case S_IFBLK: return .special("block device")
    case S_IFIFO: return .special("FIFO")
    case S_IFSOCK: return .special("socket")
    default: return .special("special file")
    }
  }

  /// The size of the regular file at `path`; `notFound`, `danglingLink` or
  /// `notRegularFile` otherwise. `what` names the file in messages ("the import file").
  @discardableResult
  public static func requireRegularFile(_ path: String, what: String = "the file") throws -> Int64 {
    switch try status(path) {
    case .regular(let size): return size
    case .missing: throw FileAccessError(.notFound, path: path, "\(what) '\(path)' does not exist")
    case .danglingLink: throw FileAccessError(.danglingLink, path: path, "\(what) '\(path)' is a link to a file that does not exist")
    case .directory: throw FileAccessError(.notRegularFile, path: path, "\(what) '\(path)' is a directory, not a file")
    case .special(let kind): throw FileAccessError(.notRegularFile, path: path, "\(what) '\(path)' is a \(kind), not a regular file")
    }
  }

  /// A regular file opened for reading (the descriptor is the caller's to close). The file
  /// is checked again through the descriptor, so a swap between the check and the open
  /// cannot hand over a device.
  public static func openForReading(_ path: String, what: String = "the file") throws -> Int32 {
    try requireRegularFile(path, what: what)
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw ioError(path, "open", what: what) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw FileAccessError(.notRegularFile, path: path, "\(what) '\(path)' is not a regular file")
    }
    // Back to blocking reads (O_NONBLOCK only kept a FIFO swapped in from blocking the open).
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    return fd
  }

  /// The whole regular file, refused past `maxBytes` without reading beyond it.
  public static func readAll(_ path: String, maxBytes: Int, what: String = "the file") throws -> [UInt8] {
    let fd = try openForReading(path, what: what)
    defer { close(fd) }
    var st = stat()
    if fstat(fd, &st) == 0, st.st_size > maxBytes { throw tooLarge(path, maxBytes, what: what) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = try read(fd, &chunk, path, what: what)
      if n == 0 { return out }
      if out.count + n > maxBytes { throw tooLarge(path, maxBytes, what: what) }
      out.append(contentsOf: chunk[0..<n])
    }
  }

  /// The first `count` bytes of the regular file at `path` (fewer when it is shorter).
  public static func readHead(_ path: String, count: Int, what: String = "the file") throws -> [UInt8] {
    let fd = try openForReading(path, what: what)
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: count)
    while out.count < count {
      let n = try read(fd, &chunk, path, what: what)
      if n == 0 { break }
      out.append(contentsOf: chunk[0..<min(n, count - out.count)])
    }
    return out
  }

  /// `read(2)` retried on EINTR.
  public static func read(_ fd: Int32, _ buffer: inout [UInt8], _ path: String, what: String = "the file") throws -> Int {
    while true {
      let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n >= 0 { return n }
      if errno != EINTR { throw ioError(path, "read", what: what) }
    }
  }

  /// Creates a new file and opens it for writing, atomically refusing anything already
  /// at `path`, including a link (dangling or not): nothing existing is ever overwritten.
  public static func createNew(_ path: String, what: String = "the file", mode: mode_t = 0o644) throws -> Int32 {
    try check(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    guard fd >= 0 else {
      let code = errno
      if code == EEXIST {
        var lst = stat()
        let link = lstat(path, &lst) == 0 && lst.st_mode & S_IFMT == S_IFLNK
        throw FileAccessError(
          .exists, path: path, "\(what) '\(path)' already exists\(link ? " (as a symbolic link)" : ""); choose a new path")
      }
      errno = code
      throw ioError(path, "create", what: what)
    }
    return fd
  }

  public static func tooLarge(_ path: String, _ limit: Int, what: String = "the file") -> FileAccessError {
    FileAccessError(.tooLarge, path: path, "\(what) '\(path)' is larger than \(limit) bytes, the most that is read", limit: limit)
  }

  private static func ioError(_ path: String, _ verb: String, what: String) -> FileAccessError {
    let code = errno
    if code == ENOENT { return FileAccessError(.notFound, path: path, "cannot \(verb) \(what) '\(path)': no such file or directory") }
    return FileAccessError(.io, path: path, "cannot \(verb) \(what) '\(path)': \(String(cString: strerror(code)))")
  }
}

extension String {
  fileprivate func replacingNULs() -> String {
    var out = ""
    for scalar in unicodeScalars { if scalar == "\0" { out += "\\0" } else { out.unicodeScalars.append(scalar) } }
    return out
  }
}
