import Foundation
import JSONCore
import TestSupport
import XCTest

/// A delete's preview lists the objects that stay with a relationship changed in the same
/// order on both engines (`make swift-test-postgresql` runs this on PostgreSQL). The
/// differential fuzzer found them in another order on PostgreSQL, which reads rows of a
/// table without ORDER BY in the order they were last written: the sources of a
/// relationship without inverse are read by key.
final class DeletePreviewParityTests: XCTestCase {
  private let schema: JSONValue = try! JSONParser.parse(
    """
    {"entities":[{"name":"Target","attributes":[{"name":"t","type":"string","optional":true}]},
     {"name":"Source","attributes":[{"name":"n","type":"int","optional":true}],
      "relationships":[{"name":"ref","destination":"Target"},{"name":"refs","destination":"Target","toMany":true}]},
     {"name":"SubSource","parent":"Source","attributes":[]}]}
    """)

  func testTheSourcesOfARelationshipWithoutInverseAreListedByKey() throws {
    let s = try ServerProcess()
    defer {
      s.closeInput()
      _ = s.waitForExit()
    }
    _ = try s.call("model.define", ["schema": schema])
    _ = try s.call("objects.insert", ["entity": "Target", "values": ["t": "x"]])
    _ = try s.call("objects.insert", ["entity": "Target", "values": ["t": "y"]])
    // Both link Target/1 through the to-one and Target/2 through the to-many; the later
    // object links first (a join row written first), then the earlier one is updated
    // (its row written again, last on PostgreSQL).
    _ = try s.call("objects.insert", ["entity": "SubSource", "values": ["n": 1]])
    _ = try s.call("objects.insert", ["entity": "Source", "values": ["n": 2, "ref": "Target/1", "refs": ["Target/2"]]])
    _ = try s.call("objects.update", ["id": "SubSource/1", "values": ["ref": "Target/1", "refs": ["Target/2"]]])
    _ = try s.call("objects.update", ["id": "SubSource/1", "values": ["n": 3]])
    for target in ["Target/1", "Target/2"] {
      let preview = try s.call("objects.delete", ["id": .string(target), "dryRun": true])
      XCTAssertEqual(preview["updated"], ["SubSource/1", "Source/2"], "\(target): \(preview)")
    }
  }
}
