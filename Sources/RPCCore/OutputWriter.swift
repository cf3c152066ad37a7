#if canImport(Glibc)
  import Glibc
#endif

/// Writes the server's output without ever blocking while its input could be read.
///
/// One thread reads and writes (`InputChannel`). A client may write many requests before
/// it reads any reply; if the server then blocked writing replies into a full pipe while
/// the client blocked writing requests into a full pipe, neither would move. So while
/// the input can still be read ahead (`InputChannel.canReadAhead`), the writer waits in
/// `poll()` for the output to take bytes or the input to bring some, reads the input when
/// it does, and writes only as much as the output takes without blocking:
///
/// - a pipe: when `poll` reports room, the kernel has at least one free page (4096
///   bytes); at most that is written, or the whole capacity when the pipe is empty
///   (FIONREAD on the write end counts the unread bytes);
/// - a socket: `send` with MSG_DONTWAIT takes what fits;
/// - anything else (a file, a terminal): plain blocking writes, as they do not wait on
///   the client.
///
/// Once the queue of read-ahead input is full, writes block as before: then the client has
/// written more than the bound without reading, and waits for its replies anyway.
struct OutputWriter {
  private enum Kind {
    case pipe(capacity: Int)
    case socket
    case other
  }

  let fd: Int32
  private let kind: Kind
  private static let page = 4096
  /// F_GETPIPE_SZ (Linux's F_LINUX_SPECIFIC_BASE + 8), which Glibc's module leaves out.
  private static let getPipeSize: Int32 = 1032

  init(fd: Int32) {
    self.fd = fd
    var st = stat()
    guard fstat(fd, &st) == 0 else {
      kind = .other
      return
    }
    switch st.st_mode & S_IFMT {
    case S_IFIFO:
      let capacity = Int(fcntl(fd, Self.getPipeSize))
      kind = capacity >= Self.page ? .pipe(capacity: capacity) : .other
    case S_IFSOCK: kind = .socket
    default: kind = .other
    }
  }

  /// Writes every byte unless the peer is gone; false when the write failed for good.
  /// `input` is read meanwhile while the output is full.
  func write(_ bytes: UnsafeRawBufferPointer, readingMeanwhile input: InputChannel) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let rest = bytes.count - offset
      let at = bytes.baseAddress! + offset
      let n: Int
      if case .other = kind {
        n = Glibc.write(fd, at, rest)
      } else if !input.canReadAhead {
        n = Glibc.write(fd, at, rest)
      } else {
        var fds = (pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: input.fd, events: Int16(POLLIN), revents: 0))
        let ready = withUnsafeMutablePointer(to: &fds) { $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, -1) } }
        if ready < 0 && errno == EINTR { continue }
        if ready > 0 && fds.1.revents != 0 { input.readOnce() }
        // Room, or an error that write() reports (POLLERR once the reader is gone). (poll()
        // fails only without memory: then write as before.)
        if ready > 0 && fds.0.revents == 0 { continue }
        n = ready > 0 ? writeWithoutBlocking(at, rest) : Glibc.write(fd, at, rest)
      }
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return false
      }
      offset += n
    }
    return true
  }

  private func writeWithoutBlocking(_ at: UnsafeRawPointer, _ rest: Int) -> Int {
    switch kind {
    case .pipe(let capacity):
      var chunk = min(rest, Self.page)
      if rest > Self.page {
        var unread: Int32 = 0
        if ioctl(fd, UInt(FIONREAD), &unread) == 0 && unread == 0 { chunk = min(rest, capacity) }
      }
      return Glibc.write(fd, at, chunk)
    case .socket:
      return send(fd, at, rest, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
    case .other:
      return Glibc.write(fd, at, rest)
    }
  }
}
