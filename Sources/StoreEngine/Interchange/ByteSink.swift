import FileAccess

#if canImport(Glibc)
  import Glibc
#endif

/// Where an export writes its bytes. Writes are appended in order; `finish` flushes.
public protocol ByteSink: AnyObject {
  func write(_ bytes: [UInt8]) throws
  func finish() throws
  /// Called when the export failed: drop what was written (a partial file is removed).
  func abandon()
}

/// Collects the export in memory for an inline reply, refusing to grow past `limit` so
/// that a large store never builds a huge reply (the caller is told to give a path).
public final class MemorySink: ByteSink {
  public private(set) var bytes: [UInt8] = []
  public let limit: Int

  public init(limit: Int) { self.limit = limit }

  public func write(_ chunk: [UInt8]) throws {
    guard bytes.count + chunk.count <= limit else {
      throw StoreError(
        .invalidArgument,
        "the export is larger than the inline limit of \(limit) bytes; give \(place: ErrorPlace(.path)) to write it to a file",
        ["limit": .int(Int64(limit))], about: ErrorPlace(.path))
    }
    bytes.append(contentsOf: chunk)
  }

  public func finish() throws {}
  public func abandon() { bytes = [] }
}

/// Writes to a file descriptor through a fixed buffer, so memory stays the same whatever
/// the size of the export. `create(path:)` makes a new file and refuses an existing one.
public final class FileSink: ByteSink {
  private let fd: Int32
  private let path: String?
  private let ownsDescriptor: Bool
  private var buffer: [UInt8] = []
  private static let capacity = 1 << 16

  /// A sink writing to an open descriptor it does not own (standard output).
  public init(descriptor: Int32) {
    fd = descriptor
    path = nil
    ownsDescriptor = false
    buffer.reserveCapacity(Self.capacity)
  }

  private init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
    ownsDescriptor = true
    buffer.reserveCapacity(Self.capacity)
  }

  /// Creates `path` (mode 0644), which must not exist yet, not even as a dangling link:
  /// an export never overwrites.
  /// `place` names the request member in errors (`params.path`, `--out`).
  public static func create(path: String, place: ErrorPlace) throws -> FileSink {
    do {
      return FileSink(fd: try UserPath.createNew(path, what: "the export file"), path: path)
    } catch let e as FileAccessError {
      throw StoreError(e, place: place)
    }
  }

  public func write(_ chunk: [UInt8]) throws {
    if buffer.count + chunk.count > Self.capacity { try flush() }
    if chunk.count >= Self.capacity {
      try writeAll(chunk)
    } else {
      buffer.append(contentsOf: chunk)
    }
  }

  public func finish() throws {
    try flush()
    if ownsDescriptor {
      let rc = close(fd)
      if rc != 0 { throw ioError("close") }
    }
  }

  public func abandon() {
    buffer = []
    guard ownsDescriptor else { return }
    close(fd)
    if let path { unlink(path) }
  }

  private func flush() throws {
    guard !buffer.isEmpty else { return }
    try writeAll(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  private func writeAll(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          throw ioError("write")
        }
        offset += n
      }
    }
  }

  private func ioError(_ what: String) -> StoreError {
    let text = String(cString: strerror(errno))
    return StoreError(.storage, "cannot \(what) '\(path ?? "standard output")': \(text)", ["path": .string(path ?? "-")])
  }
}
