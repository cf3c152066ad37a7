import Foundation
import Handlers
import StoreEngine
import XCTest

@testable import JSONCore
@testable import RPCCore

/// `MethodPolicy`: the table a restricted transport (`modelstore studio`) serves refuses,
/// from what each params type states, every write under `readOnly`, and under `storeOnly`
/// the session's own lifecycle and every param that names a file; a refused request runs
/// nothing.
final class MethodPolicyTests: XCTestCase {
  static let schema = """
    {"version":"1","entities":[{"name":"Note","attributes":[{"name":"title","type":"string"}]}]}
    """

  private var dir: URL!

  override func setUpWithError() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  override func tearDown() { try? FileManager.default.removeItem(at: dir) }

  /// A server over an in-memory store holding one note, its table restricted by `policy`.
  private func server(_ policy: MethodPolicy) throws -> Server {
    let open = Server(input: -1, output: -1, log: Logger(level: .error))
    let session = Session(server: open, store: try Store(path: nil))
    open.register(session.methods())
    _ = call(open, "model.define", #"{"schema":\#(Self.schema)}"#)
    _ = call(open, "objects.insert", #"{"entity":"Note","values":{"title":"a"}}"#)
    let restricted = Server(input: -1, output: -1, log: Logger(level: .error))
    let shared = Session(server: restricted, store: session.store)
    restricted.register(shared.methods(policy: policy))
    return restricted
  }

  private func call(_ server: Server, _ method: String, _ params: String = "{}") -> JSONValue {
    let text = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
    return server.handle(Array(text.utf8)) ?? .null
  }

  private func count(_ server: Server) -> JSONValue? { call(server, "query.count", #"{"entity":"Note"}"#)["result"]?["count"] }

  func testReadOnlyRefusesEveryWriteAndRunsNothing() throws {
    let s = try server(MethodPolicy(readOnly: true, transport: "modelstore studio"))
    let writes: [(String, String)] = [
      ("objects.insert", #"{"entity":"Note","values":{"title":"b"}}"#),
      ("objects.updateWhere", #"{"entity":"Note","where":"TRUEPREDICATE","values":{"title":"c"}}"#),
      ("objects.deleteWhere", #"{"entity":"Note","where":"TRUEPREDICATE"}"#),
      ("context.save", #"{"changes":[{"op":"insert","entity":"Note","values":{"title":"d"}}]}"#),
      ("transaction.begin", "{}"), ("history.delete", #"{"before":100}"#),
      ("model.define", #"{"schema":{"version":"2","entities":[]}}"#),
      ("import.json", #"{"data":"x"}"#),
    ]
    for (method, params) in writes {
      let error = call(s, method, params)["error"]
      XCTAssertEqual(error?["code"], -32010, method)
      XCTAssertEqual(error?["data"]?["kind"], "readOnly", method)
      XCTAssertEqual(error?["message"]?.stringValue, "modelstore studio serves this store read-only: \(method) writes")
    }
    XCTAssertEqual(count(s), 1, "nothing was written")
    XCTAssertNotNil(call(s, "query.fetch", #"{"entity":"Note"}"#)["result"], "reads run")
    XCTAssertNotNil(call(s, "export.json", "{}")["result"], "an inline export reads")
    // In a batch each element is refused on its own.
    let batch =
      #"[{"jsonrpc":"2.0","id":1,"method":"objects.delete","params":{"id":"Note/1"}},"#
      + #"{"jsonrpc":"2.0","id":2,"method":"query.count","params":{"entity":"Note"}}]"#
    let replies = s.handle(Array(batch.utf8))?.arrayValue
    XCTAssertEqual(replies?[0]["error"]?["code"], -32010)
    XCTAssertEqual(replies?[1]["result"]?["count"], 1)
  }

  func testStoreOnlyRefusesTheSessionsLifecycleAndEveryFile() throws {
    let s = try server(MethodPolicy(storeOnly: true, transport: "modelstore studio"))
    let target = dir.appendingPathComponent("out").path
    let refused: [(String, String, String?)] = [
      ("store.open", #"{"memory":true}"#, nil), ("store.open", #"{"path":"\#(target)"}"#, nil), ("shutdown", "{}", nil),
      ("exit", "{}", nil), ("store.backup", #"{"to":"\#(target)"}"#, "params.to"),
      ("export.json", #"{"path":"\#(target)"}"#, "params.path"), ("import.json", #"{"path":"\#(target)"}"#, "params.path"),
      ("import.coreData", #"{"store":"\#(target)"}"#, "params.store"),
      ("model.importXcdatamodel", #"{"path":"\#(target)"}"#, "params.path"),
      ("model.audit", #"{"xml":"<model/>","compareWith":"\#(target)"}"#, "params.compareWith"),
      ("model.generate", #"{"target":"python","path":"\#(target)"}"#, "params.path"),
    ]
    for (method, params, path) in refused {
      let error = call(s, method, params)["error"]
      XCTAssertEqual(error?["code"], -32016, method)
      XCTAssertEqual(error?["data"]?["kind"], "notAllowed", method)
      XCTAssertEqual(error?["data"]?["path"]?.stringValue, path, method)
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: target), "no file was made")
    XCTAssertEqual(count(s), 1, "the store is still open and unchanged")
    // The same methods without a file run: an inline export, text instead of a path, a schema instead of a model file.
    let export = call(s, "export.json", "{}")
    XCTAssertNotNil(export["result"])
    let data = try XCTUnwrap(export["result"]?["data"]?.stringValue)
    let imported = call(s, "import.json", "{\"data\":\(JSONWriter.encodeString(.string(data)))}")
    XCTAssertNil(imported["error"], "\(imported)")
    XCTAssertEqual(count(s), 2)
    let audit = call(s, "model.audit", #"{"schema":\#(Self.schema),"compareWith":\#(Self.schema)}"#)
    XCTAssertNotNil(audit["result"], "\(audit)")
  }

  /// The members marked as file paths, from the table: a param that opens a file and is
  /// not marked here would reach the file system through the studio.
  func testTheFileParamsOfTheTable() throws {
    let session = Session(server: Server(input: -1, output: -1, log: Logger(level: .error)), store: nil)
    let description = ProtocolDescription.document(session)
    var marked: [String] = []
    for method in description["methods"]?.arrayValue ?? [] {
      for param in method["params"]?.arrayValue ?? [] where "\(param["schema"] ?? .null)".contains("x-filePath") {
        marked.append("\(method["name"]?.stringValue ?? "").\(param["name"]?.stringValue ?? "")")
      }
    }
    XCTAssertEqual(
      marked,
      [
        "store.open.path", "store.open.model", "store.backup.to", "model.importXcdatamodel.path", "model.audit.path",
        "model.audit.compareWith", "model.generate.path", "model.diagram.path", "export.json.path", "import.json.path", "import.coreData.store",
        "import.coreData.model",
      ])
  }
}
