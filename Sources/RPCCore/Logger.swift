import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Logging to stderr only: stdout carries nothing but protocol messages.
public final class Logger: Sendable {
  public enum Level: Int, Comparable, CaseIterable, Sendable {
    case error = 0, warning, info, debug
    public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    public init?(name: String) {
      switch name.lowercased() {
      case "error": self = .error
      case "warning", "warn": self = .warning
      case "info": self = .info
      case "debug": self = .debug
      default: return nil
      }
    }
    var label: String { ["error", "warning", "info", "debug"][rawValue] }
  }

  /// The most detailed level written; may be changed while other threads log.
  public var level: Level {
    get { Level(rawValue: levelValue.load(ordering: .relaxed)) ?? .warning }
    set { levelValue.store(newValue.rawValue, ordering: .relaxed) }
  }
  private let levelValue: Atomic<Int>
  /// Held while a line is written, so lines from two threads never interleave.
  private let writing = Mutex(())

  public init(level: Level = .warning) {
    levelValue = Atomic(level.rawValue)
  }

  public func log(_ l: Level, _ message: @autoclosure () -> String) {
    guard l <= level else { return }
    let line = "modelstore[\(getpid())] \(l.label): \(message())\n"
    let bytes = Array(line.utf8)
    writing.withLock { _ in _ = bytes.withUnsafeBytes { FileDescriptor.writeAll(2, $0) } }
  }

  public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
  public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
  public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
  public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}

/// Raw file descriptor I/O that survives partial writes and signals.
public enum FileDescriptor {
  /// Writes every byte unless the peer is gone; false when the write failed for good.
  @discardableResult
  public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return false
      }
      offset += n
    }
    return true
  }
}
