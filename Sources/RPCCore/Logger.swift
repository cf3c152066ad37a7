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
  /// The most detailed level also kept for the client (`window/logMessage`), -1 for none.
  private let forwardValue = Atomic(-1)
  /// Lines kept for the client until the server's thread sends them (`takeForwarded`).
  private let forwarded = Mutex(Forwarded())
  struct Forwarded {
    var lines: [(Level, String)] = []
    var dropped = 0
  }
  /// Lines kept for the client at most, between two sends; later ones are counted only.
  static let forwardLimit = 1000

  public init(level: Level = .warning) {
    levelValue = Atomic(level.rawValue)
  }

  /// Keeps the lines at `level` or more severe for the client as well (nil: none), with
  /// or without the stderr level allowing them.
  public func forward(at level: Level?) {
    forwardValue.store(level?.rawValue ?? -1, ordering: .relaxed)
  }

  /// True while lines are kept for the client; a cheap check for the server's hot path.
  var isForwarding: Bool { forwardValue.load(ordering: .relaxed) >= 0 }

  /// The lines kept for the client since the last call, and how many were dropped.
  func takeForwarded() -> Forwarded {
    forwarded.withLock { f in
      defer { f = Forwarded() }
      return f
    }
  }

  public func log(_ l: Level, _ message: @autoclosure () -> String) {
    let toStderr = l <= level
    let toClient = l.rawValue <= forwardValue.load(ordering: .relaxed)
    guard toStderr || toClient else { return }
    let text = message()
    if toClient {
      forwarded.withLock { f in
        if f.lines.count < Self.forwardLimit { f.lines.append((l, text)) } else { f.dropped += 1 }
      }
    }
    guard toStderr else { return }
    let bytes = Array("modelstore[\(getpid())] \(l.label): \(text)\n".utf8)
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
