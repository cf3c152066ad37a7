import JSONCore
import XCTest

@testable import RPCCore

final class CancelLogTests: XCTestCase {
  func testACancellationWaitsUntilTheDispatcherPassesItsPosition() {
    var log = CancelLog()
    log.append(.int(7), seq: 5)
    log.append(.string("a"), seq: 6)
    log.append(.int(7), seq: 9)
    XCTAssertTrue(log.contains(.int(7)))
    XCTAssertFalse(log.contains(.double(7)), "7 and 7.0 are different ids")
    log.spend(through: 5)
    XCTAssertTrue(log.contains(.int(7)), "the one at 9 still waits")
    XCTAssertTrue(log.contains(.string("a")))
    log.spend(through: 8)
    XCTAssertFalse(log.contains(.string("a")))
    XCTAssertTrue(log.contains(.int(7)))
    log.spend(through: 9)
    XCTAssertFalse(log.contains(.int(7)))
    XCTAssertTrue(log.isEmpty)
  }

  func testAMillionCancellationsAgeOutInOrder() {
    var log = CancelLog()
    for seq in 0..<1_000_000 {
      log.append(.int(Int64(seq % 3)), seq: seq)
      if seq % 1000 == 999 { log.spend(through: seq - 500) }
    }
    XCTAssertTrue(log.contains(.int(0)))
    log.spend(through: 999_999)
    XCTAssertTrue(log.isEmpty)
    XCTAssertFalse(log.contains(.int(0)))
  }
}
