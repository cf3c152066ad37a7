#if canImport(Glibc)
  import Glibc
#endif

/// Calls `onChange` (on its own thread) whenever one of `paths` is written, created,
/// replaced or removed, by any process: inotify watches on their directories (so a file
/// created later, like a `-wal` SQLite makes on the first write, is seen too), filtered by
/// name. The thread sleeps in `poll()` between events, so watching costs nothing while
/// nothing changes. `start` returns nil where inotify is unavailable (callers then poll).
/// `@unchecked Sendable`: every stored property but `thread` is a constant; `thread` is set
/// by `start` before the watching thread runs and read by `stop` on the same thread.
final class FileChangeWatcher: @unchecked Sendable {
  private let inotify: Int32
  /// Written to stop the thread.
  private let stopPipe: (read: Int32, write: Int32)
  /// Watch descriptor -> names of the watched files in that directory.
  private let names: [Int32: Set<String>]
  private let onChange: @Sendable () -> Void
  private var thread = pthread_t()

  static func start(_ paths: [String], onChange: @escaping @Sendable () -> Void) -> FileChangeWatcher? {
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
        close(fd)
        return nil
      }
      names[wd] = files
    }
    var p: [Int32] = [0, 0]
    guard pipe(&p) == 0 else {
      close(fd)
      return nil
    }
    for end in p { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let watcher = FileChangeWatcher(inotify: fd, stopPipe: (p[0], p[1]), names: names, onChange: onChange)
    let box = Unmanaged.passRetained(watcher).toOpaque()
    guard pthread_create(&watcher.thread, nil, { raw in
      let w = Unmanaged<FileChangeWatcher>.fromOpaque(raw!).takeRetainedValue()
      w.loop()
      return nil
    }, box) == 0 else {
      Unmanaged<FileChangeWatcher>.fromOpaque(box).release()
      watcher.closeDescriptors()
      return nil
    }
    return watcher
  }

  private init(inotify: Int32, stopPipe: (read: Int32, write: Int32), names: [Int32: Set<String>], onChange: @escaping @Sendable () -> Void) {
    self.inotify = inotify
    self.stopPipe = stopPipe
    self.names = names
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
    close(inotify)
    close(stopPipe.read)
    close(stopPipe.write)
  }

  private func loop() {
    var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      fds[0].revents = 0
      fds[1].revents = 0
      let n = poll(&fds, 2, -1)
      if n < 0 && errno == EINTR { continue }
      if n < 0 || fds[1].revents != 0 { return }
      guard fds[0].revents != 0 else { continue }
      var relevant = false
      while true {
        let got = read(inotify, &buffer, buffer.count)
        if got <= 0 { break }
        relevant = relevant || matches(buffer, count: got)
      }
      if relevant { onChange() }
    }
  }

  /// Whether the events in `buffer` name a watched file.
  private func matches(_ buffer: [UInt8], count: Int) -> Bool {
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
