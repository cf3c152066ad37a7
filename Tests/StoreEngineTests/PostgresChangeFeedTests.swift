import Foundation
import JSONCore
import StoreEngine
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// How a server's live queries learn of another server's commits to a PostgreSQL store
/// (`Store.changeFeed`): a connection of its own listening on the store's channel, woken by
/// the `NOTIFY` every write transaction commits with, and listening again after its
/// connection was lost. Waits are on the listener's socket, each with a deadline.
final class PostgresChangeFeedTests: XCTestCase {
  private var pg: PostgresTestSchema!
  override func setUpWithError() throws { pg = try PostgresTestSchema("feed") }
  override func tearDown() { pg?.drop() }

  private func notifications(_ store: Store) throws -> ChangeNotifications {
    let feed = try store.changeFeed()
    guard case .notifications(let n) = feed else { throw Failure(description: "a PostgreSQL store's feed is \(feed)") }
    return n
  }

  private struct Failure: Error, CustomStringConvertible { var description: String }

  /// Waits until reading `n` reports a change (each time its descriptor is readable), at
  /// most `seconds`.
  private func changed(_ n: ChangeNotifications, within seconds: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      var p = pollfd(fd: n.descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&p, 1, Int32(max(1, min(1000, deadline.timeIntervalSinceNow * 1000))))
      // A lost connection has no descriptor (-1): reading makes it again.
      if ready > 0 || n.descriptor < 0, n.read() { return true }
    }
    return false
  }

  /// Nothing waiting on the descriptor now.
  private func quiet(_ n: ChangeNotifications) -> Bool {
    var p = pollfd(fd: n.descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, 0) == 0
  }

  func testACommitOfAnotherServerWakesTheListenerAndAReadOnlyOneNothing() throws {
    let observer = try Store(path: pg.storeURL)
    _ = try observer.define(schema(entity("Note", [attr("text", "string")])))
    let writer = try Store(path: pg.storeURL)
    let n = try notifications(observer)
    XCTAssertTrue(quiet(n), "notified before anything was committed")

    _ = try writer.add("Note", ["text": "one"])
    XCTAssertTrue(changed(n), "no notification of another server's commit")
    XCTAssertTrue(quiet(n), "one commit, one notification")

    // A client transaction notifies once, at its commit; one rolled back never.
    _ = try writer.begin()
    _ = try writer.add("Note", ["text": "two"])
    _ = try writer.add("Note", ["text": "three"])
    _ = try writer.commit()
    XCTAssertTrue(changed(n))
    XCTAssertTrue(quiet(n))
    _ = try writer.begin()
    _ = try writer.add("Note", ["text": "undone"])
    _ = try writer.rollback()
    _ = try writer.get(id: "Note/1")
    _ = try writer.add("Note", ["text": "four"])
    XCTAssertTrue(changed(n))
    XCTAssertTrue(quiet(n), "the rolled-back transaction or the read notified")
  }

  func testAListenerWhoseConnectionIsLostListensAgain() throws {
    let observer = try Store(path: pg.storeURL)
    _ = try observer.define(schema(entity("Note", [attr("text", "string")])))
    let writer = try Store(path: pg.storeURL)
    let n = try notifications(observer)
    // The listening connection's server process ends (a restart, a network failure): the
    // only connection of the cluster whose last statement was a LISTEN.
    let ended = try PostgresTestCluster.psql(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN \"modelstore\\_%' AND pid <> pg_backend_pid()",
      url: pg.clusterURL
    ).stdout
    XCTAssertEqual(ended, "1", "the listening connection was not found")
    XCTAssertTrue(changed(n), "a lost connection counts as a change (notifications may have been missed)")
    XCTAssertGreaterThanOrEqual(n.descriptor, 0, "the listener did not connect again")
    _ = try writer.add("Note", ["text": "after"])
    XCTAssertTrue(changed(n), "no notification after listening again")
  }
}
