import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Every reply of every golden transcript, as the server sends it, checked against the
/// result schema protocol.json gives for its method (`ResultSchemaChecker`): a result
/// whose shape drifts from its description fails here, even where the transcript masks a
/// value with `<any>`.
final class GoldenResultSchemaTests: XCTestCase {
  func testEveryGoldenReplyMatchesItsDescribedResult() throws {
    signal(SIGPIPE, SIG_IGN)
    let checker = ResultSchemaChecker.shared
    var checked: Set<String> = []
    var replies = 0
    for file in Transcript.files(in: GoldenTranscriptTests.goldenDirectory) {
      let transcript = try Transcript(file)
      guard transcript.runsOnThisEngine else { continue }
      let run = Replay(transcript, update: false).run()
      var methods: [String: String] = [:]  // request id (as JSON text) -> method, as sent so far
      for (step, outputs) in zip(transcript.steps, run.outputs) {
        if let text = step.send, let sent = try? JSONParser.parse(text) {
          for request in sent.arrayValue ?? [sent] {
            if let id = request["id"], let method = request["method"]?.stringValue { methods[JSONWriter.encodeString(id)] = method }
          }
        }
        for raw in outputs {
          guard let reply = try? JSONParser.parse(raw, maxDepth: 100_000) else { continue }
          for message in reply.arrayValue ?? [reply] {
            // A server-to-client request (a migration hook) has a method; it is no reply.
            guard message["method"] == nil, let result = message["result"], let id = message["id"],
              let method = methods[JSONWriter.encodeString(id)]
            else {
              continue
            }
            replies += 1
            checked.insert(method)
            for p in checker.problems(method: method, result: result) {
              recordFailure(withDescription: "\(transcript.name): \(p)", inFile: file.path, atLine: step.line ?? 1, expected: true)
            }
          }
        }
      }
    }
    XCTAssertGreaterThan(replies, 100, "the transcripts answered too few requests to check")
    print(
      "GoldenResultSchemaTests: \(replies) replies of \(checked.count) methods checked; methods no transcript answers: \(Set(checker.results.keys).subtracting(checked).sorted())"
    )
  }
}

/// The checker itself: a result that drifts from its description is reported, at its path.
final class ResultSchemaCheckerTests: XCTestCase {
  func testADriftedResultIsReported() throws {
    let checker = ResultSchemaChecker.shared
    XCTAssertEqual(checker.problems(method: "objects.delete", result: ["deleted": ["Note/1"]]), [])
    XCTAssertEqual(
      checker.problems(method: "objects.delete", result: ["deleted": [1]]),
      ["objects.delete: result.deleted[0]: expected string, got integer 1"])
    XCTAssertEqual(
      checker.problems(method: "objects.delete", result: ["deleted": [], "count": 0]),
      ["objects.delete: result: member 'count' is not described"])
    XCTAssertEqual(checker.problems(method: "query.count", result: [:]), ["query.count: result: missing member 'count'"])
    // An object's attribute members are open; its _id and _entity are not optional.
    XCTAssertEqual(checker.problems(method: "objects.update", result: ["_id": "Note/1", "_entity": "Note", "text": "t"]), [])
    XCTAssertEqual(
      checker.problems(method: "objects.update", result: ["_id": "Note/1", "text": "t"]),
      ["objects.update: result: missing member '_entity'"])
    XCTAssertFalse(checker.problems(method: "objects.get", result: ["objects": [["_id": "Note/1"]]]).isEmpty)
    XCTAssertEqual(checker.problems(method: "shutdown", result: .null), [])
  }
}
