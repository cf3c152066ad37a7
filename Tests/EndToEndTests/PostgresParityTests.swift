import Foundation
import JSONCore
import TestSupport
import XCTest

/// The same session against a file store and a PostgreSQL store (`MODELSTORE_TEST_PG`,
/// started by `make test`; skipped without it) gives the same replies: folded and
/// wildcard comparisons, MATCHES, ANY, includes and ordered to-many ids, aggregates (a sum
/// of no doubles is 0 on both), sections by week in a zone, a uniqueness refused with the
/// object that holds the value, long IN lists of uuids, division by zero, export, history,
/// and migrations (renames, a retyped attribute, a to-one becoming many-to-many, a unique
/// index the stored objects break, then hold). Only what names the store or the time
/// differs, and `store.check`'s integrity list (SQLite's `integrity_check`).
final class PostgresParityTests: XCTestCase {
  private var schemas: [PostgresTestSchema] = []
  private var directory: TemporaryDirectory?

  override func tearDown() {
    for s in schemas { s.drop() }
    schemas = []
    directory?.remove()
  }

  /// The replies of `steps` (method and params as JSON text) on a new store at `location`.
  private func replies(_ steps: [(String, String)], at location: String) throws -> [String] {
    let server = try ServerProcess(arguments: ["serve", "--store", location])
    var out: [String] = []
    for (method, params) in steps {
      guard case .object(let p) = try JSONParser.parse(params) else { throw XCTSkip("bad params in the test: \(params)") }
      var reply = try server.request(method, p, timeout: 60)
      reply["id"] = nil
      out.append(Self.normalized(JSONWriter.encodeString(.object(reply))))
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    return out
  }

  /// Timestamps and the store's location blanked.
  private static func normalized(_ reply: String) -> String {
    var s = reply
    for pattern in [#""timestamp":"[^"]*""#, #""createdAt":"[^"]*""#, #""appliedAt":"[^"]*""#] {
      s = s.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
    }
    return s
  }

  private func compare(_ steps: [(String, String)], _ label: String) throws {
    let schema = try PostgresTestSchema(label)
    schemas.append(schema)
    let dir = try TemporaryDirectory("pg-parity")
    directory = dir
    let lite = try replies(steps, at: dir.file("\(label).store"))
    let pg = try replies(steps, at: schema.storeURL)
    for (i, (a, b)) in zip(lite, pg).enumerated() where steps[i].0 != "store.check" {
      XCTAssertEqual(a, b, "step \(i) \(steps[i].0): SQLite and PostgreSQL differ")
    }
  }

  func testQueriesGiveTheSameReplies() throws {
    let schema = """
      {"version":"1.0.0","entities":[
       {"name":"Author","attributes":[{"name":"name","type":"string","unique":true},{"name":"born","type":"date","optional":true}],
        "relationships":[{"name":"books","destination":"Book","toMany":true,"inverse":"author","ordered":true}]},
       {"name":"Book","attributes":[{"name":"title","type":"string"},{"name":"pages","type":"int","optional":true},
        {"name":"price","type":"decimal","optional":true},{"name":"rating","type":"double","optional":true},
        {"name":"uid","type":"uuid","optional":true},{"name":"done","type":"bool","default":false}],
        "relationships":[{"name":"author","destination":"Author","inverse":"books"},{"name":"tags","destination":"Tag","toMany":true,"inverse":"books"}]},
       {"name":"Tag","attributes":[{"name":"label","type":"string"}],"relationships":[{"name":"books","destination":"Book","toMany":true,"inverse":"tags"}]}]}
      """
    let uuids = (0..<600).map { String(format: "\"123E4567-E89B-12D3-A456-%012X\"", $0) }.joined(separator: ",")
    try compare(
      [
        ("model.define", "{\"schema\":\(schema)}"),
        (
          "context.save",
          """
          {"changes":[
           {"op":"insert","entity":"Author","ref":"$a","values":{"name":"Émile Zola","born":"1840-04-02T00:00:00Z"}},
           {"op":"insert","entity":"Author","ref":"$b","values":{"name":"Gauß"}},
           {"op":"insert","entity":"Tag","ref":"$t","values":{"label":"classic"}},
           {"op":"insert","entity":"Book","values":{"title":"Straße","pages":120,"price":"12.50","uid":"123E4567-E89B-12D3-A456-000000000007","author":"$a","tags":["$t"]}},
           {"op":"insert","entity":"Book","values":{"title":"Élan","pages":7,"price":"9.99","rating":2.5,"author":"$a"}},
           {"op":"insert","entity":"Book","values":{"title":"a*b","pages":0,"author":"$b","done":true}}]}
          """
        ),
        (
          "query.fetch",
          #"{"entity":"Book","where":"title ==[cd] 'STRASSE' OR title LIKE 'a\\**' OR title MATCHES[c] 'é.*'","sort":[{"key":"pages","ascending":false}],"toMany":"ids"}"#
        ),
        ("query.fetch", #"{"entity":"Author","where":"ANY books.pages > 100","include":["books"],"toMany":"ids"}"#),
        (
          "query.aggregate",
          #"{"entity":"Book","aggregates":[{"fn":"sum","key":"rating","as":"r"},{"fn":"avg","key":"pages","as":"a"},{"fn":"sum","key":"pages","as":"p"},{"fn":"max","key":"title","as":"m"}],"groupBy":[{"keyPath":"author.name"}],"sort":[{"key":"r"}]}"#
        ),
        ("query.fetch", #"{"entity":"Author","sectionBy":{"keyPath":"born","bucket":"week","timeZone":"Europe/Paris"}}"#),
        ("objects.insert", #"{"entity":"Author","values":{"name":"Gauß"}}"#),
        ("query.count", "{\"entity\":\"Book\",\"where\":\"uid IN %@\",\"args\":[[\(uuids)]]}"),
        ("query.ids", #"{"entity":"Book","where":"price > 10 AND pages / 0 == nil","offset":0}"#),
        ("query.fetch", #"{"entity":"Book","sort":[{"key":"rating"},{"key":"title","caseInsensitive":true}],"offset":1}"#),
        ("export.json", "{}"),
        ("history.fetch", "{}"),
      ], "queries")
  }

  func testMigrationsGiveTheSameReplies() throws {
    let v1 = """
      {"version":"1.0.0","entities":[
       {"name":"Author","attributes":[{"name":"name","type":"string"},{"name":"rank","type":"int","optional":true},{"name":"old","type":"string","optional":true}],
        "relationships":[{"name":"books","destination":"Book","toMany":true,"inverse":"author"}]},
       {"name":"Book","attributes":[{"name":"title","type":"string"},{"name":"pages","type":"int","optional":true},{"name":"code","type":"string","optional":true}],
        "relationships":[{"name":"author","destination":"Author","inverse":"books"}]},
       {"name":"Novel","parent":"Book","attributes":[{"name":"genre","type":"string","optional":true}],"relationships":[]}]}
      """
    let v2 = """
      {"version":"2.0.0","entities":[
       {"name":"Writer","originalName":"Author","attributes":[{"name":"fullName","type":"string","originalName":"name"},
        {"name":"rank","type":"string","optional":true},{"name":"active","type":"bool","default":true}],
        "relationships":[{"name":"works","destination":"Book","toMany":true,"inverse":"authors","originalName":"books"}]},
       {"name":"Book","attributes":[{"name":"title","type":"string","indexed":true},{"name":"pages","type":"int","optional":true},
        {"name":"code","type":"string","optional":true,"unique":true},{"name":"score","type":"double","default":1.5}],
        "relationships":[{"name":"authors","destination":"Writer","toMany":true,"inverse":"works","originalName":"author"}]},
       {"name":"Novel","parent":"Book","attributes":[{"name":"genre","type":"string","optional":true}],"relationships":[]}]}
      """
    var changes = [
      #"{"op":"insert","entity":"Author","ref":"$a","values":{"name":"Zola","rank":3,"old":"x"}}"#,
      #"{"op":"insert","entity":"Author","ref":"$b","values":{"name":"Austen","rank":1}}"#,
    ]
    for i in 0..<6 {
      changes.append(
        "{\"op\":\"insert\",\"entity\":\"\(i % 2 == 1 ? "Novel" : "Book")\",\"values\":{\"title\":\"t\(i)\",\"pages\":\(i * 10),\"code\":\"\(i < 2 ? "dup" : "c\(i)")\",\"author\":\"\(i < 3 ? "$a" : "$b")\"}}"
      )
    }
    let apply = "{\"schemas\":[\(v1),\(v2)],\"backup\":false"
    try compare(
      [
        ("model.define", "{\"schema\":\(v1)}"),
        ("context.save", "{\"changes\":[\(changes.joined(separator: ","))]}"),
        ("migration.apply", apply + "}"),
        ("migration.apply", apply + ",\"allowDataLoss\":true}"),
        ("objects.update", #"{"id":"Book/1","values":{"code":"c0"}}"#),
        ("migration.apply", apply + ",\"allowDataLoss\":true}"),
        ("query.fetch", #"{"entity":"Writer","toMany":"ids","sort":["fullName"]}"#),
        ("query.fetch", #"{"entity":"Book","toMany":"ids","where":"ANY authors.fullName BEGINSWITH 'Z'"}"#),
        ("objects.update", #"{"id":"Novel/2","values":{"code":"c0"}}"#),
        ("store.check", "{}"),
      ], "migrations")
  }
}
