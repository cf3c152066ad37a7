#if canImport(Glibc)
  import Glibc
#endif

/// What wakes a server whose live queries follow a store (`Server.watchChanges`): the
/// store's files, or a descriptor that becomes readable when another process committed.
public enum ChangeSource: Sendable {
  /// Nothing but the fallback check: an in-memory store, which no other process writes.
  case none
  /// Files any process on this machine writes (a SQLite store and its `-wal`), watched
  /// with inotify; a commit becomes visible a moment after its last write, so the server
  /// looks again a few times after each wake-up (`Server.followUpMilliseconds`).
  case files([String])
  /// A descriptor that becomes readable when another process may have committed (a
  /// PostgreSQL connection listening for the store's notifications, which arrive once
  /// the commit is visible).
  case descriptor(DescriptorSource)
}

/// A descriptor to wait on and what to do when it is readable. Both closures are called on
/// the watcher's thread only, one at a time.
public struct DescriptorSource: Sendable {
  /// The descriptor to wait on; -1 while there is none (a connection being made again):
  /// `read` is then called every `retryMilliseconds`.
  public var descriptor: @Sendable () -> Int32
  /// Reads what arrived; true when something may have changed.
  public var read: @Sendable () -> Bool
  public static let retryMilliseconds: Int32 = 1000

  public init(descriptor: @escaping @Sendable () -> Int32, read: @escaping @Sendable () -> Bool) {
    self.descriptor = descriptor
    self.read = read
  }
}

/// What a `ChangeWatcher` waits on.
protocol WatchedDescriptor: AnyObject, Sendable {
  /// The descriptor to wait on; -1 while there is none (`read` is then retried).
  var descriptor: Int32 { get }
  /// Reads what arrived; true when something changed.
  func read() -> Bool
  /// Releases what it holds (after the watcher's thread ended).
  func close()
}

/// Calls `onChange` (on its own thread) whenever its source reports a change. The thread
/// sleeps in `poll()` on the source's descriptor and a stop pipe, so watching costs
/// nothing while nothing changes.
/// `@unchecked Sendable`: every stored property but `thread` is a constant; `thread` is set
/// by `start` before the watching thread runs and read by `stop` on the same thread.
final class ChangeWatcher: @unchecked Sendable {
  private let source: any WatchedDescriptor
  /// Written to stop the thread.
  private let stopPipe: (read: Int32, write: Int32)
  private let onChange: @Sendable () -> Void
  private var thread = pthread_t()

  /// Starts watching `source`; nil (and `source` closed) when no thread can be started.
  static func start(_ source: any WatchedDescriptor, onChange: @escaping @Sendable () -> Void) -> ChangeWatcher? {
    var p: [Int32] = [0, 0]
    guard pipe(&p) == 0 else {
      source.close()
      return nil
    }
    for end in p { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let watcher = ChangeWatcher(source: source, stopPipe: (p[0], p[1]), onChange: onChange)
    let box = Unmanaged.passRetained(watcher).toOpaque()
    guard
      pthread_create(
        &watcher.thread, nil,
        { raw in
          let w = Unmanaged<ChangeWatcher>.fromOpaque(raw!).takeRetainedValue()
          w.loop()
          return nil
        }, box) == 0
    else {
      Unmanaged<ChangeWatcher>.fromOpaque(box).release()
      watcher.closeDescriptors()
      return nil
    }
    return watcher
  }

  private init(source: any WatchedDescriptor, stopPipe: (read: Int32, write: Int32), onChange: @escaping @Sendable () -> Void) {
    self.source = source
    self.stopPipe = stopPipe
    self.onChange = onChange
  }

  /// Ends the thread and releases the descriptors; returns once the thread has ended.
  func stop() {
    var byte: UInt8 = 1
    _ = write(stopPipe.write, &byte, 1)
    pthread_join(thread, nil)
    closeDescriptors()
  }

  private func closeDescriptors() {
    source.close()
    close(stopPipe.read)
    close(stopPipe.write)
  }

  private func loop() {
    while true {
      let fd = source.descriptor
      var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
      // No descriptor just now (poll ignores -1): try reading again after a while.
      let n = poll(&fds, 2, fd < 0 ? DescriptorSource.retryMilliseconds : -1)
      if n < 0 && errno == EINTR { continue }
      if n < 0 || fds[1].revents != 0 { return }
      guard fd < 0 || fds[0].revents != 0 else { continue }
      if source.read() { onChange() }
    }
  }
}

/// A `DescriptorSource` as the watcher reads it.
final class ExternalDescriptor: WatchedDescriptor {
  let source: DescriptorSource
  init(_ source: DescriptorSource) { self.source = source }
  var descriptor: Int32 { source.descriptor() }
  func read() -> Bool { source.read() }
  func close() {}
}

/// Files watched with inotify on their directories (so a file created later, like a `-wal`
/// SQLite makes on the first write, is seen too), filtered by name: a change is a write,
/// creation, replacement or removal of one of them, by any process.
/// `@unchecked Sendable`: constants, and a buffer only the watcher's thread uses.
final class FileChangeWatcher: WatchedDescriptor, @unchecked Sendable {
  private let inotify: Int32
  /// Watch descriptor -> names of the watched files in that directory.
  private let names: [Int32: Set<String>]
  private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

  /// Watches `paths` and calls `onChange` on the watcher's thread; nil where inotify is
  /// unavailable (callers then poll).
  static func start(_ paths: [String], onChange: @escaping @Sendable () -> Void) -> ChangeWatcher? {
    guard let files = FileChangeWatcher(paths) else { return nil }
    return ChangeWatcher.start(files, onChange: onChange)
  }

  private init?(_ paths: [String]) {
    guard !paths.isEmpty else { return nil }
    let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard fd >= 0 else { return nil }
    var byDirectory: [String: Set<String>] = [:]
    for path in paths {
      let slash = path.lastIndex(of: "/")
      let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
      byDirectory[directory, default: []].insert(slash.map { String(path[path.index(after: $0)...]) } ?? path)
    }
    let mask = UInt32(IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE)
    var names: [Int32: Set<String>] = [:]
    for (directory, files) in byDirectory {
      let wd = inotify_add_watch(fd, directory, mask)
      guard wd >= 0 else {
        Glibc.close(fd)
        return nil
      }
      names[wd] = files
    }
    inotify = fd
    self.names = names
  }

  var descriptor: Int32 { inotify }

  func read() -> Bool {
    var relevant = false
    while true {
      let got = Glibc.read(inotify, &buffer, buffer.count)
      if got <= 0 { break }
      relevant = relevant || matches(count: got)
    }
    return relevant
  }

  func close() { Glibc.close(inotify) }

  /// Whether the events in `buffer` name a watched file.
  private func matches(count: Int) -> Bool {
    let header = MemoryLayout<inotify_event>.size
    var offset = 0
    var found = false
    buffer.withUnsafeBytes { raw in
      while offset + header <= count {
        let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
        let nameBytes = raw[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
        if let wanted = names[wd], wanted.contains(String(decoding: nameBytes, as: UTF8.self)) { found = true }
        offset += header + length
      }
    }
    return found
  }
}
