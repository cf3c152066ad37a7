#if canImport(Glibc)
  import Glibc
#endif

/// How messages are delimited on the wire. Chosen once, from the first bytes read.
public enum Framing: Sendable {
  /// One JSON text per `\n`-terminated line (`\r\n` accepted, blank lines skipped).
  case lines
  /// LSP base protocol: `Content-Length: N\r\n` headers, a blank line, N bytes.
  case headers
}

/// Splits the bytes of the input into messages (`consume`, then `finish` at end of input).
/// It only frames: `InputChannel` reads the bytes and queues what comes out.
final class FrameReader {
  private let maxMessageBytes: Int
  /// Called for every message whose text mentions `$/cancelRequest`, as soon as it is framed.
  private let onCancelCandidate: ([UInt8], Int) -> Void
  private var nextSeq = 0
  private(set) var framing: Framing = .lines
  private var framingDecided = false
  private var onFraming: (Framing) -> Void

  init(maxMessageBytes: Int, onFraming: @escaping (Framing) -> Void, onCancelCandidate: @escaping ([UInt8], Int) -> Void) {
    self.maxMessageBytes = maxMessageBytes
    self.onFraming = onFraming
    self.onCancelCandidate = onCancelCandidate
  }

  // Line-mode state.
  private var pending: [UInt8] = []
  private var discarding = false
  private var discarded = 0
  // Header-mode state.
  private var headerBuffer: [UInt8] = []
  /// After a malformed header block: how many bytes of `content-length:` the skipped
  /// input has matched so far; nil while the stream is in step.
  private var resyncMatched: Int?
  /// The block being read began at a `Content-Length:` found while skipping: if it is not
  /// a good block, it was text inside the skipped body, and skipping goes on from there.
  private var blockFromResync = false

  private func emit(_ message: [UInt8], _ batch: inout [InboundItem]) {
    let seq = nextSeq
    nextSeq += 1
    if Self.mentionsCancel(message) { onCancelCandidate(message, seq) }
    batch.append(.message(message, seq: seq))
  }

  private static let cancelMarker = Array("$/cancelRequest".utf8)

  /// A cheap pre-filter run on every message: is the text `$/cancelRequest` in it?
  static func mentionsCancel(_ m: [UInt8]) -> Bool {
    guard m.count >= cancelMarker.count, m.count < 4096 else { return false }
    return m.withUnsafeBytes { buf in
      cancelMarker.withUnsafeBytes { marker in
        let base = buf.baseAddress!
        let last = buf.count - marker.count
        var i = 0
        // `$` is rare in ordinary requests: memchr finds each one, the rest is compared there.
        while i <= last, let found = memchr(base + i, 0x24, last - i + 1) {
          let at = base.distance(to: UnsafeRawPointer(found))
          if memcmp(base + at, marker.baseAddress!, marker.count) == 0 { return true }
          i = at + 1
        }
        return false
      }
    }
  }

  /// Bytes seen before the framing is decided.
  private var probe: [UInt8] = []
  private static let headerPrefix = Array("content-length:".utf8)

  func consume(_ bytes: UnsafeRawBufferPointer, _ batch: inout [InboundItem]) {
    guard framingDecided else {
      probe.append(contentsOf: bytes)
      guard let decided = Self.decideFraming(probe) else { return }
      framing = decided
      framingDecided = true
      onFraming(decided)
      let saved = probe
      probe = []
      saved.withUnsafeBytes { consume($0, &batch) }
      return
    }
    switch framing {
    case .lines: consumeLines(bytes, &batch)
    case .headers: consumeHeaders(bytes, &batch)
    }
  }

  /// Headers when the first non-blank bytes are a header name (letters, digits and `-`)
  /// and `:`, as `Content-Length:` or `Content-Type:` (no JSON text starts so); lines when
  /// another byte comes first; nil while too few bytes have arrived to tell.
  static func decideFraming(_ probe: [UInt8]) -> Framing? {
    guard let first = probe.firstIndex(where: { !isBlank($0) }) else { return nil }
    for i in first..<probe.count {
      let c = probe[i]
      if c == 0x3A { return i > first ? .headers : .lines }
      if !isHeaderNameByte(c) { return .lines }
    }
    return probe.count - first > maxHeaderBlock ? .lines : nil
  }

  @inline(__always)
  static func isHeaderNameByte(_ c: UInt8) -> Bool {
    (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2D
  }

  static let maxHeaderBlock = 8192

  /// Space, tab, CR or LF: the bytes skipped before the first message and, in header
  /// framing, before every header block.
  @inline(__always)
  static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

  @inline(__always)
  static func lowercased(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }

  // MARK: - Lines

  private func consumeLines(_ bytes: UnsafeRawBufferPointer, _ batch: inout [InboundItem]) {
    guard let base = bytes.baseAddress else { return }
    var lineStart = 0
    while lineStart < bytes.count, let newline = memchr(base + lineStart, 0x0A, bytes.count - lineStart) {
      let i = base.distance(to: UnsafeRawPointer(newline))
      appendPart(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<i]))
      finishLine(&batch)
      lineStart = i + 1
    }
    if lineStart < bytes.count { appendPart(UnsafeRawBufferPointer(rebasing: bytes[lineStart...])) }
  }

  private func appendPart(_ part: UnsafeRawBufferPointer) {
    if discarding {
      discarded += part.count
      return
    }
    if pending.count + part.count > maxMessageBytes {
      discarding = true
      discarded = pending.count + part.count
      pending = []
      return
    }
    pending.append(contentsOf: part)
  }

  private func finishLine(_ batch: inout [InboundItem]) {
    if discarding {
      batch.append(.tooLarge(discarded))
      discarding = false
      discarded = 0
      return
    }
    var line = pending
    pending = []
    pending.reserveCapacity(256)
    if line.last == 0x0D { line.removeLast() }
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
    emit(line, &batch)
  }

  /// The input ended: what is left of a message becomes one (an unterminated last line)
  /// or an error (a header block or body cut short).
  func finish(_ batch: inout [InboundItem]) {
    if !framingDecided && !probe.isEmpty {
      // A first message that never told (a bare `123`, or a header name cut short):
      // read as a line, whatever it is.
      framingDecided = true
      onFraming(.lines)
      let saved = probe
      probe = []
      saved.withUnsafeBytes { consumeLines($0, &batch) }
    }
    switch framing {
    case .lines:
      if discarding || !pending.isEmpty { finishLine(&batch) }
    case .headers:
      if bodyRemaining > 0 {
        batch.append(.badHeader("input ended \(bodyRemaining) bytes short of the announced Content-Length \(bodyLength)"))
      } else if !headerBuffer.isEmpty {
        // A block starts with its first non-blank byte, so a non-empty buffer is a started block.
        batch.append(.badHeader("input ended inside a header block (\(headerBuffer.count) bytes unread)"))
      }
    }
  }

  // MARK: - Content-Length headers

  private var bodyRemaining = -1  // -1 while reading headers
  private var bodyLength = 0

  private func consumeHeaders(_ bytes: UnsafeRawBufferPointer, _ batch: inout [InboundItem]) {
    var i = 0
    while i < bytes.count {
      if bodyRemaining < 0 {
        let c = bytes[i]
        i += 1
        if let matched = resyncMatched {
          resync(c, matched)
          continue
        }
        if headerBuffer.isEmpty && Self.isBlank(c) { continue }
        headerBuffer.append(c)
        if headerBuffer.count > Self.maxHeaderBlock {
          badHeaderBlock("header block longer than \(Self.maxHeaderBlock) bytes", &batch)
          continue
        }
        if headerBuffer.count >= 4 && headerBuffer.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) {
          parseHeaderBlock(&batch)
        } else if headerBuffer.count >= 2 && headerBuffer.suffix(2).elementsEqual([0x0A, 0x0A]) {
          parseHeaderBlock(&batch)
        }
      } else {
        let take = min(bodyRemaining, bytes.count - i)
        if bodyLength <= maxMessageBytes { pending.append(contentsOf: bytes[i..<(i + take)]) }
        bodyRemaining -= take
        i += take
        if bodyRemaining == 0 {
          if bodyLength > maxMessageBytes { batch.append(.tooLarge(bodyLength)) } else { emit(pending, &batch) }
          pending = []
          bodyRemaining = -1
        }
      }
    }
  }

  /// Reports a malformed header block and skips input up to the next `Content-Length:`:
  /// the length of the body that may follow is unknown, so reading on from here would
  /// take that body (and every later message) for headers.
  ///
  /// A block that began at a `Content-Length:` found while skipping, and is not a good
  /// block, is not reported: it was text inside the skipped body (a JSON text holds
  /// `Content-Length:` only inside a string, where no raw line break can follow, so it
  /// never makes a good block). Skipping goes on from just after its `Content-Length:`,
  /// so a real block that it swallowed is still found.
  private func badHeaderBlock(_ why: String, _ batch: inout [InboundItem]) {
    let rest = blockFromResync ? Array(headerBuffer.dropFirst(Self.headerPrefix.count)) : []
    if !blockFromResync { batch.append(.badHeader(why)) }
    headerBuffer = []
    blockFromResync = false
    resyncMatched = 0
    // At most a block's length, shorter each time: the replay ends.
    rest.withUnsafeBytes { consumeHeaders($0, &batch) }
  }

  /// One skipped byte while looking for `content-length:` (any case). No proper prefix of
  /// that text is also its suffix, so a mismatch restarts the match at this byte.
  private func resync(_ c: UInt8, _ matched: Int) {
    let lower = Self.lowercased(c)
    if lower == Self.headerPrefix[matched] {
      if matched + 1 == Self.headerPrefix.count {
        headerBuffer = Self.headerPrefix
        resyncMatched = nil
        blockFromResync = true
      } else {
        resyncMatched = matched + 1
      }
    } else {
      resyncMatched = lower == Self.headerPrefix[0] ? 1 : 0
    }
  }

  private func parseHeaderBlock(_ batch: inout [InboundItem]) {
    let text = String(decoding: headerBuffer, as: UTF8.self)
    var length: Int?
    for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else {
        badHeaderBlock("header line without ':': \(line.prefix(80))", &batch)
        return
      }
      let name = line[..<colon].lowercased()
      let value = line[line.index(after: colon)...].trimmingSpaces
      if name == "content-length" {
        guard let n = Int(value), n >= 0 else {
          badHeaderBlock("Content-Length is not a number: \(value.prefix(40))", &batch)
          return
        }
        length = n
      }
    }
    guard let n = length else {
      badHeaderBlock("header block without Content-Length", &batch)
      return
    }
    headerBuffer = []
    blockFromResync = false
    if n == 0 {
      emit([], &batch)
      return
    }
    bodyLength = n
    bodyRemaining = n
    pending = []
    if n <= maxMessageBytes { pending.reserveCapacity(n) }
  }
}

extension Substring {
  var trimmingSpaces: String {
    var s = self
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" { s.removeLast() }
    return String(s)
  }
}
