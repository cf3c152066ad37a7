import Foundation
import TestSupport
import XCTest

@testable import StoreEngine

/// The differential test of the query engine on a PostgreSQL store: the same random
/// predicates, sorts, limits and offsets as `DifferentialQueryTests`, run by a store opened
/// on a schema of the test cluster (the engine's PostgreSQL path end to end: the dialect's
/// SQL, the connection's parameters and values, the store's functions), against the same
/// evaluator. `MODELSTORE_PG_DIFF_CASES` (default 1500) cases; skipped when
/// `MODELSTORE_TEST_PG` is unset.
final class PostgresEngineDifferentialTests: DifferentialQueryTests {
  private var pg: PostgresTestSchema?

  override func makeStore() throws -> Store {
    let schema = try PostgresTestSchema("diff")
    pg = schema
    return try Store(path: schema.storeURL)
  }

  override var cases: Int { PostgresDifferentialTests.caseCount }
  override var engine: String { "PostgreSQL" }
  /// PostgreSQL adds doubles in its own order: the last bits of a sum or average may differ
  /// (protocol.md, "PostgreSQL engine: what differs", pinned by PostgresDialectTests).
  override var exactSumsOfDoubles: Bool { false }

  override func tearDown() {
    pg?.drop()
    super.tearDown()
  }

  // Declared here too: test discovery lists the methods a class declares.
  override func testEngineAgreesWithEvaluator() throws { try super.testEngineAgreesWithEvaluator() }
}
