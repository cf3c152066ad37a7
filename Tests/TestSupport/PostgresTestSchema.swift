import Foundation
import XCTest

/// The PostgreSQL cluster the tests may use: `MODELSTORE_TEST_PG`, a libpq URL that
/// `make test` exports (scripts/pg-cluster.sh starts the cluster and removes it at the end).
public enum PostgresTestCluster {
  /// The cluster's URL, nil when the variable is unset or empty.
  public static var url: String? {
    guard let u = ProcessInfo.processInfo.environment["MODELSTORE_TEST_PG"], !u.isEmpty else { return nil }
    return u
  }

  /// The cluster's URL, or a skip that says how to get one.
  public static func requireURL() throws -> String {
    guard let url else {
      throw XCTSkip(
        "MODELSTORE_TEST_PG is unset: run `make test`, or start a cluster with `scripts/pg-cluster.sh start DIR` and export MODELSTORE_TEST_PG=$(scripts/pg-cluster.sh url DIR)"
      )
    }
    return url
  }

  /// `url` with one more query parameter.
  public static func adding(_ parameter: String, to url: String) -> String {
    url + (url.contains("?") ? "&" : "?") + parameter
  }

  /// The psql shell that comes with PostgreSQL's client package.
  public static let psql = URL(fileURLWithPath: "/usr/bin/psql")

  /// Runs `sql` on the cluster with psql (no `.psqlrc`, stop at the first error,
  /// unaligned rows without headers); stdout trimmed.
  @discardableResult
  public static func psql(_ sql: String, url: String? = nil) throws -> RunResult {
    let target = try url ?? requireURL()
    var r = try runProgram(psql, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", target, "-c", sql])
    r.stdout = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    if r.status != 0 { XCTFail("psql failed (\(r.status)): \(r.stderr) for \(sql)") }
    return r
  }
}

/// A fresh schema in the test cluster for one test: `storeURL` names a new, empty store
/// there (`?schema=NAME`). `drop()` (from `tearDown` or a `defer`, or at deinit) removes
/// the schema with everything in it. Throws `XCTSkip` when no cluster is configured.
public final class PostgresTestSchema {
  public let name: String
  /// The cluster's URL (no schema).
  public let clusterURL: String
  /// The URL of a store in this schema.
  public var storeURL: String { PostgresTestCluster.adding("schema=\(name)", to: clusterURL) }
  private var dropped = false

  /// The key of the store's write lock, as protocol.md gives it: the 64-bit FNV-1a hash of
  /// `modelstore:` followed by the schema's name, as a signed integer.
  public var writeLockKey: Int64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in "modelstore:\(name)".utf8 {
      h ^= UInt64(b)
      h = h &* 0x0000_0100_0000_01B3
    }
    return Int64(bitPattern: h)
  }

  public init(_ label: String = "t") throws {
    clusterURL = try PostgresTestCluster.requireURL()
    let safe = label.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
    name = "ms_\(String(safe.prefix(24)))_\(getpid())_\(UUID().uuidString.prefix(8).lowercased())"
  }

  /// The schema `name` of the cluster at `clusterURL`, made by the code under test (a
  /// migration's backup), dropped as the others are.
  public init(adopting name: String, clusterURL: String) {
    self.clusterURL = clusterURL
    self.name = name
  }

  deinit { drop() }

  /// Runs `sql` with this schema first on the search path.
  @discardableResult
  public func psql(_ sql: String) throws -> RunResult {
    try PostgresTestCluster.psql("SET search_path TO \"\(name)\"; " + sql, url: clusterURL)
  }

  public func drop() {
    guard !dropped else { return }
    dropped = true
    _ = try? runProgram(
      PostgresTestCluster.psql, ["-X", "-q", "-d", clusterURL, "-c", "SET lock_timeout = '10s'; DROP SCHEMA IF EXISTS \"\(name)\" CASCADE"])
  }
}
