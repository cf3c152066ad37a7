import Foundation
import XCTest

@testable import RPCCore

#if canImport(Glibc)
  import Glibc
#endif

/// The wake-up path of live queries: a write to a watched file (by anyone) wakes the
/// server's input with one `.wake`; writes to other files in the directory do not.
final class FileChangeWatcherTests: XCTestCase {
  func testAWriteToAWatchedFileWakesTheQueueAndOthersDoNot() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let store = dir.appendingPathComponent("a.store").path
    // No input descriptor (-1, which poll() ignores): only wake-ups count.
    let input = InputChannel(fd: -1, maxMessageBytes: 1 << 20, onFraming: { _ in }, onCancelCandidate: { _, _ in })
    guard let watcher = FileChangeWatcher.start([store, store + "-wal"], onChange: { input.wake() }) else {
      throw XCTSkip("inotify is not available here")
    }
    defer { watcher.stop() }

    // Another file in the same directory: no wake-up within a bound that would have
    // caught one (the watched write below arrives well within it).
    try Data("x".utf8).write(to: dir.appendingPathComponent("other.txt"))
    XCTAssertFalse(input.wait(timeoutMilliseconds: 200))

    // A file created after the watch started (as SQLite creates a -wal) counts.
    try Data("frames".utf8).write(to: URL(fileURLWithPath: store + "-wal"))
    XCTAssertTrue(input.wait(timeoutMilliseconds: 10_000))
    XCTAssertEqual(describe([input.take(), input.take()].compactMap { $0 }), ["wake"], "many events, one wake-up")
  }
}
