import Handlers
import JSONCore
import StoreEngine
import XCTest

@testable import RPCCore

/// Every param present is used or refused: a param that only means something beside
/// another one, or that has a type the method cannot use, is refused with -32602 naming
/// it (protocol.md, "Messages"), and the request changes nothing.
final class ParamRuleTests: XCTestCase {
  private static let schema = #"{"version":"1","entities":[{"name":"Item","attributes":[{"name":"title","type":"string"}]}]}"#

  private func makeServer() throws -> Server {
    let server = Server(input: -1, output: -1, log: Logger(level: .error))
    let session = Session(server: server, store: try Store(path: nil))
    server.register(session.methods())
    return server
  }

  private func call(_ server: Server, _ method: String, _ params: String) throws -> JSONValue {
    let text = #"{"jsonrpc":"2.0","id":1,"method":""# + method + #"","params":"# + params + "}"
    // Written and read back, as a client sees it (results may hold pre-encoded objects).
    return try JSONParser.parse(JSONWriter.encode(try XCTUnwrap(server.handle(Array(text.utf8)), "no reply to \(text)")))
  }

  /// (method, params, the param refused, the message after "Invalid params: ").
  private static let cases: [(String, String, String, String)] = {
    let withoutWhere = "given without params.where"
    let token = "expected a string or an integer, got"
    let aggregates = #""aggregates":[{"fn":"count","as":"n"}]"#
    let noXML = "params.name given without params.xml"
    let toMany = "params.toMany: expected one of 'none', 'ids', 'count', got"
    return [
      ("objects.insert", #"{"entity":"Item","values":{"title":"x"},"toMany":"all"}"#, "params.toMany", "\(toMany) 'all'"),
      ("objects.update", #"{"id":"Item/1","values":{"title":"changed"},"toMany":1}"#, "params.toMany", "\(toMany) integer"),
      ("objects.upsert", #"{"entity":"Item","values":{"title":"x"},"toMany":"IDS"}"#, "params.toMany", "\(toMany) 'IDS'"),
      ("objects.get", #"{"id":"Item/1","toMany":["ids"]}"#, "params.toMany", "\(toMany) array"),
      ("query.fetch", #"{"entity":"Item","toMany":"counts"}"#, "params.toMany", "\(toMany) 'counts'"),
      ("query.observe", #"{"entity":"Item","toMany":{}}"#, "params.toMany", "\(toMany) object"),
      ("export.json", #"{"variables":{"x":1}}"#, "params.variables", "params.variables \(withoutWhere)"),
      ("export.json", #"{"entities":["Item"],"args":["a"]}"#, "params.args", "params.args \(withoutWhere)"),
      ("query.aggregate", #"{"entity":"Item","variables":{},"# + aggregates + "}", "params.variables", "params.variables \(withoutWhere)"),
      ("query.fetch", #"{"entity":"Item","variables":{"x":1}}"#, "params.variables", "params.variables \(withoutWhere)"),
      ("query.observe", #"{"entity":"Item","variables":{"x":1}}"#, "params.variables", "params.variables \(withoutWhere)"),
      ("query.count", #"{"entity":"Item","variables":{"x":1}}"#, "params.variables", "params.variables \(withoutWhere)"),
      ("query.ids", #"{"entity":"Item","variables":{"x":1}}"#, "params.variables", "params.variables \(withoutWhere)"),
      ("objects.updateWhere", #"{"entity":"Item","values":{"title":"changed"},"variables":{"x":1}}"#, "params.variables", "params.variables \(withoutWhere)"),
      ("objects.deleteWhere", #"{"entity":"Item","variables":{"x":1}}"#, "params.variables", "params.variables \(withoutWhere)"),
      ("migration.apply", #"{"schemas":["# + schema + #"],"progressToken":1.5}"#, "params.progressToken", "params.progressToken: \(token) number"),
      ("migration.apply", #"{"schemas":["# + schema + #"],"progressToken":{"t":1}}"#, "params.progressToken", "params.progressToken: \(token) object"),
      ("migration.apply", #"{"schemas":["# + schema + #"],"progressToken":true}"#, "params.progressToken", "params.progressToken: \(token) boolean"),
      ("export.json", #"{"progressToken":["t"]}"#, "params.progressToken", "params.progressToken: \(token) array"),
      ("import.json", #"{"data":"","progressToken":false}"#, "params.progressToken", "params.progressToken: \(token) boolean"),
      ("import.coreData", #"{"store":"/nonexistent.sqlite","progressToken":2.0}"#, "params.progressToken", "params.progressToken: \(token) number"),
      ("model.audit", #"{"schema":"# + schema + #","name":"V2"}"#, "params.name", noXML),
      ("model.generate", #"{"target":"python","schema":"# + schema + #","name":"V2"}"#, "params.name", noXML),
      ("model.importXcdatamodel", #"{"path":"/nonexistent.xcdatamodel","name":"V2"}"#, "params.name", noXML),
      (
        "model.generate", #"{"target":"typescript","schema":"# + schema + #","baseName":"Todo"}"#, "params.baseName",
        "params.baseName: only target swiftdata writes versioned schemas to name, not typescript"
      ),
      (
        "model.generate", #"{"target":"swiftdata","schema":"# + schema + #","baseName":"Todo"}"#, "params.baseName",
        "params.baseName: one version of the model is generated, so there are no versioned schemas or migration plan to name"
      ),
    ]
  }()

  func testEachParamAloneIsRefusedByName() throws {
    let server = try makeServer()
    XCTAssertNotNil(try call(server, "model.define", #"{"schema":"# + Self.schema + "}")["result"])
    XCTAssertNotNil(try call(server, "objects.insert", #"{"entity":"Item","values":{"title":"kept"}}"#)["result"])
    for (method, params, path, message) in Self.cases {
      let reply = try call(server, method, params)
      let error = reply["error"]
      XCTAssertEqual(error?["code"], -32602, "\(method) \(params): \(reply)")
      XCTAssertEqual(error?["message"], .string("Invalid params: " + message), "\(method) \(params)")
      XCTAssertEqual(error?["data"]?["path"], .string(path), "\(method) \(params)")
      XCTAssertEqual(error?["data"]?["kind"], "invalidParams", "\(method) \(params)")
    }
    // Nothing was changed, deleted or migrated.
    let fetched = try call(server, "query.fetch", #"{"entity":"Item"}"#)
    XCTAssertEqual(fetched["result"]?["objects"]?.arrayValue?.first?["title"], "kept", "\(fetched)")
    XCTAssertEqual(try call(server, "query.count", #"{"entity":"Item"}"#)["result"]?["count"], 1)
  }

  /// The same params with their companion (or an accepted type) pass the check, so the
  /// refusals above are about the rule and not about the rest of the request.
  func testTheParamsAreAcceptedWhereTheyMeanSomething() throws {
    let server = try makeServer()
    XCTAssertNotNil(try call(server, "model.define", #"{"schema":"# + Self.schema + "}")["result"])
    let accepted: [(String, String)] = [
      ("query.count", #"{"entity":"Item","where":"title == $t","variables":{"t":"x"}}"#),
      ("query.aggregate", #"{"entity":"Item","where":"title == $t","variables":{"t":"x"},"aggregates":[{"fn":"count","as":"n"}]}"#),
      ("export.json", #"{"entities":["Item"],"where":"title == $t","variables":{"t":"x"},"progressToken":"p"}"#),
      ("migration.apply", #"{"schemas":["# + Self.schema + #"],"progressToken":7}"#),
      ("model.audit", #"{"xml":"<model><entity name=\"Note\"><attribute name=\"text\" attributeType=\"String\"/></entity></model>","name":"V2"}"#),
    ]
    for (method, params) in accepted {
      let reply = try call(server, method, params)
      XCTAssertNotNil(reply["result"], "\(method) \(params): \(reply)")
    }
    XCTAssertEqual(
      try call(server, "model.audit", #"{"xml":"<model/>","name":"V2"}"#)["result"]?["current"], "V2", "name names the xml's version")
  }
}
