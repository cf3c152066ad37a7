import Handlers
import JSONCore
import StoreEngine
import XCTest

@testable import RPCCore

/// The members a method accepts are the params its description lists: for every method,
/// an unknown member is refused naming exactly those (the keys its params struct reads),
/// and the method table's names and streamed param are the description's.
final class ParamShapeTests: XCTestCase {
  private func makeSession() throws -> (Server, Session) {
    let server = Server(input: -1, output: -1, log: Logger(level: .error))
    let session = Session(server: server, store: try Store(path: nil))
    server.register(session.methods())
    return (server, session)
  }

  func testAnUnknownMemberIsRefusedNamingTheDescribedParams() throws {
    let (server, session) = try makeSession()
    let description = ProtocolDescription.document(session)
    let methods = try XCTUnwrap(description["methods"]?.arrayValue)
    XCTAssertEqual(methods.compactMap { $0["name"]?.stringValue }, session.methods().names)
    for method in methods {
      let name = try XCTUnwrap(method["name"]?.stringValue)
      guard name != "exit" else { continue }  // ignores its params
      // The members accepted: those described, and those accepted and ignored.
      let params =
        (method["params"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        + (method["x-ignoredParams"]?.arrayValue ?? []).compactMap(\.stringValue)
      let text = #"{"jsonrpc":"2.0","id":1,"method":""# + name + #"","params":{"zzUnknown":1}}"#
      let reply = try JSONParser.parse(JSONWriter.encode(try XCTUnwrap(server.handle(Array(text.utf8)))))
      XCTAssertEqual(reply["error"]?["message"]?.stringValue, "Invalid params: params.zzUnknown: unknown member 'zzUnknown'", name)
      XCTAssertEqual(reply["error"]?["data"]?["expected"]?.stringValue, "one of \(params.sorted().joined(separator: ", "))", name)
    }
  }

  func testTheStreamedParamComesFromTheDescription() throws {
    let (_, session) = try makeSession()
    var streamed: [String: String] = [:]
    for method in ProtocolDescription.document(session)["methods"]?.arrayValue ?? [] {
      for p in method["params"]?.arrayValue ?? [] where p["x-streamed"] == .bool(true) {
        streamed[method["name"]?.stringValue ?? ""] = p["name"]?.stringValue
      }
    }
    XCTAssertEqual(streamed, ["context.save": "changes"])
    XCTAssertEqual(session.methods().streamedParams, streamed)
  }
}
