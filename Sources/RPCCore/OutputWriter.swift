#if canImport(Glibc)
  import Glibc
#endif

/// Writes the server's output without ever blocking while its input could be read.
///
/// One thread reads and writes (`InputChannel`). A client may write many requests before
/// it reads any reply; if the server then blocked writing replies into a full pipe while
/// the client blocked writing requests into a full pipe, neither would move. So while the
/// input can still be read ahead (`InputChannel.canReadAhead`), a write that would block
/// waits in `poll()` for the output to take bytes or the input to bring some, and reads the
/// input when it does:
///
/// - a pipe is written through a descriptor of its own, opened from `/proc/self/fd/N` with
///   O_NONBLOCK (a new open file description of the same pipe, so the flag does not reach
///   whoever shares the original), and a socket with `send(MSG_DONTWAIT)`: a reply costs one
///   system call, and a full output answers EAGAIN instead of blocking;
/// - a pipe that cannot be opened so (no /proc) is polled before each write, and then
///   given at most what it takes without blocking: a free page (4096 bytes) is all `poll`
///   promises, the whole capacity when it is empty (FIONREAD on the write end counts the
///   unread bytes);
/// - anything else (a file, a terminal) is written with plain blocking writes: it does not
///   wait on the client.
///
/// Once the queue of input read ahead is full, writes wait for the output alone: then the
/// client has written more than that bound without reading, and waits for replies anyway.
final class OutputWriter {
  private enum Kind {
    case nonBlockingPipe(Int32)
    case socket
    case polledPipe(capacity: Int)
    case other
  }

  let fd: Int32
  private let kind: Kind
  private static let page = 4096
  /// F_GETPIPE_SZ (Linux's F_LINUX_SPECIFIC_BASE + 8), which Glibc's module leaves out.
  private static let getPipeSize: Int32 = 1032

  /// `reopeningPipes: false` (for tests) takes the path of a system without /proc.
  init(fd: Int32, reopeningPipes: Bool = true) {
    self.fd = fd
    var st = stat()
    guard fstat(fd, &st) == 0 else {
      kind = .other
      return
    }
    switch st.st_mode & S_IFMT {
    case S_IFIFO:
      let own = reopeningPipes ? open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC) : -1
      if own >= 0 {
        kind = .nonBlockingPipe(own)
      } else {
        let capacity = Int(fcntl(fd, Self.getPipeSize))
        kind = capacity >= Self.page ? .polledPipe(capacity: capacity) : .other
      }
    case S_IFSOCK: kind = .socket
    default: kind = .other
    }
  }

  deinit {
    if case .nonBlockingPipe(let own) = kind { close(own) }
  }

  /// Writes every byte unless the peer is gone; false when the write failed for good.
  /// `input` is read meanwhile while the output is full.
  func write(_ bytes: UnsafeRawBufferPointer, readingMeanwhile input: InputChannel) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let at = bytes.baseAddress! + offset
      let rest = bytes.count - offset
      let n: Int
      switch kind {
      case .nonBlockingPipe(let own): n = Glibc.write(own, at, rest)
      case .socket: n = send(fd, at, rest, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
      case .polledPipe(let capacity):
        guard waitForRoom(input) else { continue }
        n = Glibc.write(fd, at, writable(rest, capacity: capacity))
      case .other: n = Glibc.write(fd, at, rest)
      }
      if n >= 0 {
        offset += n
      } else if errno == EAGAIN {
        _ = waitForRoom(input)
      } else if errno != EINTR {
        return false
      }
    }
    return true
  }

  /// Waits until the output takes bytes (or reports an error, which the next write
  /// returns), reading the input whenever it brings some meanwhile; false when it returned
  /// having only read input.
  private func waitForRoom(_ input: InputChannel) -> Bool {
    let reading = input.canReadAhead
    var fds = (
      pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: reading ? input.fd : -1, events: Int16(POLLIN), revents: 0)
    )
    let ready = withUnsafeMutablePointer(to: &fds) { $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, -1) } }
    // poll() fails only without memory or on a signal: try the write (which may block).
    guard ready > 0 else { return errno != EINTR }
    if fds.1.revents != 0 { input.readOnce() }
    return fds.0.revents != 0
  }

  /// How much of `rest` a pipe with room takes without blocking.
  private func writable(_ rest: Int, capacity: Int) -> Int {
    guard rest > Self.page else { return rest }
    var unread: Int32 = 0
    return ioctl(fd, UInt(FIONREAD), &unread) == 0 && unread == 0 ? min(rest, capacity) : Self.page
  }
}
