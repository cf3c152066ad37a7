import Foundation
import JSONCore
import XCTest

/// A request held while it provably runs, whatever the machine's speed, so that what the
/// test writes meanwhile (a cancel, more requests, the end of the input) is read while it
/// runs: on SQLite the server is stopped (SIGSTOP) after a share of the CPU time the
/// request takes (CPU time, unlike wall-clock time, does not grow while a process waits for
/// the processor, so it measures how far the request's work has gone); on PostgreSQL, where
/// the work is the database server's, the request's statement waits for a lock that a psql
/// session of the test holds on its table (seen waiting in `pg_locks`).
public struct HeldRequest {
  public let id: JSONValue
  let server: ServerProcess
  let lock: ServerProcess?

  /// Lets the request go on: the server resumes (SQLite), or, once it has read what the
  /// test wrote, the lock is let go (PostgreSQL).
  public func release(file: StaticString = #filePath, line: UInt = #line) {
    guard let lock else { return server.resume() }
    _ = server.waitUntilInputIsRead()  // false once the test closed the input (its end is read in order)
    lock.sendLine("COMMIT;")
    lock.closeInput()
    XCTAssertEqual(lock.waitForExit(), 0, lock.stderr, file: file, line: line)
  }
}

extension ServerProcess {
  /// `method` held while it runs (`HeldRequest`). `cpu`: the CPU time the whole request
  /// takes this server (SQLite); `table`: the table its statement reads (PostgreSQL: when
  /// it ran once before, its execution waits under the lock, else its preparation). Nil
  /// when an attempt on SQLite must start again (`stopMidway`).
  public func hold(
    _ method: String, _ params: JSONObject, cpu: TimeInterval, table: String, file: StaticString = #filePath, line: UInt = #line
  ) throws -> HeldRequest? {
    guard TestEngine.isPostgres else {
      return try stopMidway(method, params, cpu: cpu, file: file, line: line).map { HeldRequest(id: $0, server: self, lock: nil) }
    }
    let schema = try XCTUnwrap(self.schema, "a server on PostgreSQL serves a schema of its own", file: file, line: line)
    let psql = try ServerProcess(
      arguments: ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", schema.clusterURL], executable: PostgresTestCluster.psql)
    psql.sendLine("BEGIN; LOCK TABLE \"\(schema.name)\".\"\(table)\" IN ACCESS EXCLUSIVE MODE; SELECT 'locked';")
    XCTAssertEqual(psql.readLine(timeout: 60), "locked", "psql: \(psql.stderr)", file: file, line: line)
    let id = sendRequest(method, params)
    let waiting = """
      SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE NOT l.granted AND c.relname = '\(table)' AND n.nspname = '\(schema.name)'
      """
    let deadline = Date().addingTimeInterval(60)  // a bound for failures only
    while try PostgresTestCluster.psql(waiting, url: schema.clusterURL).stdout == "0" {
      if Date() > deadline {
        XCTFail("\(method) never waited for the lock; stderr: \(stderr)", file: file, line: line)
        break
      }
      usleep(5_000)
    }
    return HeldRequest(id: id, server: self, lock: psql)
  }

  /// `hold`, then `$/cancelRequest` for the request; returns its reply (nil as `hold`). On
  /// PostgreSQL the reply is read before the lock is let go: the cancel must stop the
  /// statement waiting for it (a read; a write is never cancelled on the server, and would
  /// wait for the lock until `lock_timeout`).
  public func cancelWhileRunning(
    _ method: String, _ params: JSONObject, cpu: TimeInterval, table: String, file: StaticString = #filePath, line: UInt = #line
  ) throws -> JSONObject? {
    guard let held = try hold(method, params, cpu: cpu, table: table, file: file, line: line) else { return nil }
    sendNotification("$/cancelRequest", ["id": held.id])
    guard held.lock != nil else {
      held.release(file: file, line: line)
      return try reply(to: held.id, file: file, line: line)
    }
    let reply = try reply(to: held.id, file: file, line: line)
    held.release(file: file, line: line)
    return reply
  }

  /// The CPU time the server spends on `body`.
  public func cpuSpent<T>(_ body: () throws -> T) throws -> (T, TimeInterval) {
    let before = try XCTUnwrap(cpuSeconds, "cannot read the server's CPU time")
    let value = try body()
    return (value, try XCTUnwrap(cpuSeconds) - before)
  }

  /// Reads messages until the reply to `id` (skipping `$/progress`).
  public func reply(to id: JSONValue, timeout: TimeInterval = 120, file: StaticString = #filePath, line: UInt = #line) throws
    -> JSONObject
  {
    while true {
      let message = try XCTUnwrap(try readReply(timeout: timeout), "no reply to \(id); stderr: \(stderr)", file: file, line: line)
      if message["method"] == "$/progress" { continue }
      XCTAssertEqual(message["id"], id, "\(message)", file: file, line: line)
      return message
    }
  }

  /// Sends `method` with a `workDoneToken` (its `begin` report is written before the method
  /// runs) and stops the server once it has spent a twentieth of `cpu` (the CPU time the
  /// whole request takes) on it, with nothing written since `begin`: the request is running
  /// with most of its work ahead. Returns its id with the server stopped: what the test
  /// writes now is read within microseconds of work after `resume()`. Nil when the stop
  /// landed past half of `cpu` (the server ran on while the test waited for the processor):
  /// that attempt proves nothing, and the server is killed (its store may have changed) for
  /// the caller to start again.
  public func stopMidway(
    _ method: String, _ params: JSONObject, cpu: TimeInterval, file: StaticString = #filePath, line: UInt = #line
  ) throws -> JSONValue? {
    // CPU time is counted in clock ticks (10 ms): a twentieth of the request must be one.
    XCTAssertGreaterThanOrEqual(cpu, 0.2, "\(method) takes too little CPU time to be stopped midway", file: file, line: line)
    var params = params
    params["workDoneToken"] = "midway"
    let id = sendRequest(method, params)
    let begin = try XCTUnwrap(try readReply(timeout: 60), "no begin report", file: file, line: line)
    XCTAssertEqual(begin["params"]?["value"]?["kind"], "begin", "\(begin)", file: file, line: line)
    let start = try XCTUnwrap(cpuSeconds, file: file, line: line)
    var spent = 0.0
    let deadline = Date().addingTimeInterval(120)  // a bound for failures only
    while true {
      XCTAssertTrue(pause(), "the server did not stop", file: file, line: line)
      spent = (cpuSeconds ?? start) - start
      if spent >= cpu / 20 || unreadOutput != 0 { break }
      if Date() > deadline {
        XCTFail("the server spent \(spent) s of CPU in 120 s", file: file, line: line)
        break
      }
      resume()
      usleep(500)
    }
    guard unreadOutput == 0 && spent <= cpu / 2 else {
      print("stopMidway: the stop came after \(spent) s of \(cpu) s of CPU; starting again")
      kill(process.processIdentifier, SIGKILL)
      resume()
      _ = waitForExit()
      return nil
    }
    print("stopMidway: \(method) stopped after \(Int(spent * 1000)) of \(Int(cpu * 1000)) ms of CPU")
    return id
  }
}
