#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

@testable import RPCCore

/// The wake-up path of live queries: a write to a watched file (by anyone) wakes the
/// dispatcher's queue with one `.wake`; writes to other files in the directory do not.
final class FileChangeWatcherTests: XCTestCase {
  func testAWriteToAWatchedFileWakesTheQueueAndOthersDoNot() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let store = dir.appendingPathComponent("a.store").path
    let queue = MessageQueue()
    guard let watcher = FileChangeWatcher.start([store, store + "-wal"], onChange: { queue.wake() }) else {
      throw XCTSkip("inotify is not available here")
    }
    defer { watcher.stop() }

    // Another file in the same directory: no wake-up within a bound that would have
    // caught one (the watched write below arrives well within it).
    try Data("x".utf8).write(to: dir.appendingPathComponent("other.txt"))
    XCTAssertTrue(queue.takeAll(waitingAtMost: 200).isEmpty)

    // A file created after the watch started (as SQLite creates a -wal) counts.
    try Data("frames".utf8).write(to: URL(fileURLWithPath: store + "-wal"))
    let items = queue.takeAll(waitingAtMost: 10_000)
    XCTAssertEqual(describe(items), ["wake"], "many events, one wake-up")
  }

  func testAWakeIsCoalescedAndComesAfterQueuedMessages() {
    let queue = MessageQueue()
    queue.wake()
    queue.push([.message(Array("{}".utf8), seq: 0)])
    queue.wake()
    XCTAssertEqual(describe(queue.takeAll()), ["message:{}", "wake"])
    XCTAssertTrue(queue.takeAvailable().isEmpty)
  }
}
