import XCTest

@testable import PostgresCore

final class PostgresURLTests: XCTestCase {
  func testURIsLoseTheirSchemaParameterAndKeepTheRest() throws {
    let u = try PostgresURL("postgresql://app@db.example:5433/shop?schema=tasks&sslmode=require")
    XCTAssertEqual(u.schema, "tasks")
    XCTAssertEqual(u.conninfo, "postgresql://app@db.example:5433/shop?sslmode=require")
    XCTAssertEqual(u.redacted, "postgresql://app@db.example:5433/shop?schema=tasks&sslmode=require")
    XCTAssertTrue(u.isURI)
    let plain = try PostgresURL("postgres:///shop")
    XCTAssertEqual(plain.schema, "public")
    XCTAssertEqual(plain.conninfo, "postgres:///shop")
    // Percent-encoding in the schema name, and a socket folder as the host parameter.
    let encoded = try PostgresURL("postgresql:///db?host=/run/pg&schema=My%20Store")
    XCTAssertEqual(encoded.schema, "My Store")
    XCTAssertEqual(encoded.conninfo, "postgresql:///db?host=/run/pg")
  }

  func testPasswordsAreRedactedInEveryForm() throws {
    let u = try PostgresURL("postgresql://app:s%40cret@host/db?password=other&schema=s")
    XCTAssertEqual(u.redacted, "postgresql://app:***@host/db?password=***&schema=s")
    XCTAssertFalse(u.redacted.contains("cret"))
    XCTAssertEqual(u.scrubbed("failed for s%40cret and s@cret and other"), "failed for *** and *** and ***")
    let k = try PostgresURL("postgresql:host=/tmp dbname=x password='a b\\'c' schema=s")
    XCTAssertEqual(k.redacted, "postgresql:host=/tmp dbname=x password=*** schema=s")
    XCTAssertEqual(k.schema, "s")
    XCTAssertEqual(k.conninfo, "host=/tmp dbname=x password='a b\\'c'")
    XCTAssertEqual(k.scrubbed("it was a b'c"), "it was ***")
  }

  func testKeywordStringsAreReadAsLibpqReadsThem() throws {
    let k = try PostgresURL("host = /tmp  dbname='my db' schema = 'x y'")
    XCTAssertEqual(k.schema, "x y")
    XCTAssertEqual(k.conninfo, "host=/tmp dbname='my db'")
    XCTAssertFalse(k.isURI)
    XCTAssertEqual(try PostgresURL("postgresql:service=shop").conninfo, "service=shop")
    XCTAssertEqual(try PostgresURL("postgresql:").conninfo, "")
  }

  func testOnlyThePostgresPrefixesNameAServer() {
    for s in ["postgresql://h/db", "postgres://h/db", "postgresql:dbname=x", "postgres:"] { XCTAssertTrue(PostgresURL.names(s), s) }
    for s in ["store.msto", "./postgresql://x", "file:x?mode=memory", "dbname=x", "PostgreSQL://h"] {
      XCTAssertFalse(PostgresURL.names(s), s)
    }
  }

  func testMalformedURLsAreRefusedWithTheReason() {
    let cases: [(String, String)] = [
      ("postgresql://h/db?schema=a&schema=b", "gives 'schema' twice"),
      ("postgresql://h/db?schema=", "'schema' is empty"),
      ("postgresql://h/db?schema=\(String(repeating: "x", count: 64))", "longer than PostgreSQL's 63 bytes"),
      ("postgresql://h/db?sslmode", "has no '='"),
      ("postgresql://h/db?schema=%zz", "malformed percent-encoding"),
      ("postgresql://h/db?schema=%ff", "does not decode to UTF-8"),
      ("postgresql://h/db?colour=blue", "invalid URI query parameter"),
      ("postgresql://h/db#frag", "no fragment"),
      ("postgresql://h/my db", "cannot contain spaces"),
      ("postgresql:dbname", "not followed by '='"),
      ("postgresql:dbname='x", "no closing quote"),
      ("postgresql:colour=blue", "invalid connection option"),
      ("postgresql:schema=a schema=b", "gives 'schema' twice"),
    ]
    for (text, reason) in cases {
      guard let e = postgresError({ try PostgresURL(text) }) else { continue }
      XCTAssertTrue(e.message.hasPrefix("malformed PostgreSQL URL: "), "\(text): \(e.message)")
      XCTAssertTrue(e.message.contains(reason), "\(text): \(e.message)")
    }
  }

  func testALibpqMessageQuotingThePasswordIsScrubbed() {
    // libpq quotes the token it cannot read, which can be the password.
    let e = postgresError { try PostgresURL("postgresql://u:pa%zzss@h/db") }
    XCTAssertNotNil(e)
    XCTAssertFalse(e?.message.contains("pa%zzss") ?? true, e?.message ?? "")
  }
}
