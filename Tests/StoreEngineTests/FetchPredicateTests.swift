import JSONCore
import XCTest

@testable import StoreEngine

final class FetchPredicateTests: XCTestCase {
  private var lib: Library!

  override func setUpWithError() throws { lib = try Library() }
  override func tearDown() { lib = nil }

  func testEqualityAndInequality() throws {
    XCTAssertEqual(try lib.books("title == 'Emma'"), [lib.emma])
    XCTAssertEqual(try lib.books("title = \"Emma\""), [lib.emma])
    XCTAssertEqual(try lib.books("title != 'Emma'"), [lib.germinal, lib.nana, lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("title <> 'Emma'").count, 4)
    XCTAssertEqual(try lib.books("'Emma' == title"), [lib.emma], "constant on the left is mirrored")
  }

  func testNotEqualIncludesNil() throws {
    // NSPredicate semantics: a nil isbn is != "111".
    XCTAssertEqual(try lib.books("isbn != '111'"), [lib.nana, lib.emma, lib.persuasion, lib.strasse])
  }

  func testOrderingOperators() throws {
    XCTAssertEqual(try lib.books("pages > 474"), [lib.germinal])
    XCTAssertEqual(try lib.books("pages >= 474"), [lib.germinal, lib.emma])
    XCTAssertEqual(try lib.books("pages < 249"), [lib.strasse])
    XCTAssertEqual(try lib.books("pages <= 249"), [lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("pages =< 249").count, 2)
    XCTAssertEqual(try lib.books("pages => 474").count, 2)
    XCTAssertEqual(try lib.books("300 < pages"), [lib.germinal, lib.nana, lib.emma], "mirrored")
    XCTAssertEqual(try lib.books("rating > 4"), [lib.germinal, lib.emma])
    XCTAssertEqual(try lib.books("rating > 4.2"), [lib.germinal])
    XCTAssertEqual(try lib.books("pages > 473.5"), [lib.germinal, lib.emma], "double against an int attribute")
  }

  func testDates() throws {
    XCTAssertEqual(try lib.books("published < '1850-01-01'"), [lib.emma])
    XCTAssertEqual(try lib.books("published >= '1880-01-01T00:00:00Z'"), [lib.germinal, lib.nana])
    XCTAssertEqual(try lib.books("published == '1880-01-01T01:00:00+01:00'"), [lib.nana], "offsets are normalised")
    XCTAssertEqual(try lib.authors("born < '1800-01-01'"), [lib.austen], "pre-1970 dates compare correctly")
  }

  func testDecimalsCompareNumerically() throws {
    XCTAssertEqual(try lib.books("price == '12.5'"), [lib.germinal], "canonical form")
    XCTAssertEqual(try lib.books("price == 100"), [lib.strasse])
    XCTAssertEqual(try lib.books("price > '10'"), [lib.germinal, lib.strasse], "12.50 and 100 exceed 10; 9.99 does not")
    XCTAssertEqual(try lib.books("price < 11"), [lib.nana, lib.emma])
  }

  func testBooleans() throws {
    XCTAssertEqual(try lib.books("available == NO"), [lib.nana])
    XCTAssertEqual(try lib.books("available == false"), [lib.nana])
    XCTAssertEqual(try lib.books("available == YES").count, 4)
    XCTAssertEqual(try lib.books("available == 0"), [lib.nana])
  }

  func testNilComparisons() throws {
    XCTAssertEqual(try lib.books("price == nil"), [lib.persuasion])
    XCTAssertEqual(try lib.books("rating == NULL"), [lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("author == nil"), [lib.strasse])
    XCTAssertEqual(try lib.books("author != nil").count, 4)
    XCTAssertEqual(try lib.books("published != nil"), [lib.germinal, lib.nana, lib.emma])
    XCTAssertEqual(try lib.books("nil == isbn"), [lib.persuasion, lib.strasse])
    let e = expectStoreError(.predicate) { try lib.books("pages > nil") }
    XCTAssertTrue(e?.message.contains("cannot be ordered against nil") ?? false)
  }

  func testCaseAndDiacriticFolding() throws {
    XCTAssertEqual(try lib.books("title ==[c] 'EMMA'"), [lib.emma])
    XCTAssertEqual(try lib.books("title == 'EMMA'"), [])
    XCTAssertEqual(try lib.books("title ==[c] 'STRASSE'"), [lib.strasse], "ß folds to ss")
    XCTAssertEqual(try lib.authors("name ==[d] 'Emile Zola'"), [lib.zola])
    XCTAssertEqual(try lib.authors("name ==[d] 'emile zola'"), [], "[d] alone keeps case")
    XCTAssertEqual(try lib.authors("name ==[cd] 'emile zola'"), [lib.zola])
    XCTAssertEqual(try lib.authors("name ==[cd] 'OE KENZABURO'"), [lib.oe])
    XCTAssertEqual(try lib.authors("name ==[c] 'émile zola'"), [lib.zola])
    XCTAssertEqual(try lib.authors("name == 'Emile Zola'"), [])
    XCTAssertEqual(try lib.books("title !=[c] 'emma'").count, 4)
  }

  func testDecomposedInputMatchesPrecomposedStoredText() throws {
    // "É" typed as E + U+0301: [d] drops the mark.
    XCTAssertEqual(try lib.authors("name ==[cd] %@", ["E\u{301}mile zola"]), [lib.zola])
  }

  func testStringOperators() throws {
    XCTAssertEqual(try lib.books("title BEGINSWITH 'Ge'"), [lib.germinal])
    XCTAssertEqual(try lib.books("title BEGINSWITH 'ge'"), [])
    XCTAssertEqual(try lib.books("title BEGINSWITH[c] 'ge'"), [lib.germinal])
    XCTAssertEqual(try lib.books("title ENDSWITH 'ma'"), [lib.emma])
    XCTAssertEqual(try lib.books("title ENDSWITH[c] 'SION'"), [lib.persuasion])
    XCTAssertEqual(try lib.books("title CONTAINS 'an'"), [lib.nana])
    XCTAssertEqual(try lib.books("title CONTAINS[c] 'E'"), [lib.germinal, lib.emma, lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.authors("name CONTAINS[cd] 'zabu'"), [lib.oe])
    XCTAssertEqual(try lib.authors("name BEGINSWITH[cd] 'emi'"), [lib.zola])
    XCTAssertEqual(try lib.books("title beginswith 'N'"), [lib.nana], "keywords are case-insensitive")
  }

  func testLike() throws {
    XCTAssertEqual(try lib.books("title LIKE 'G*l'"), [lib.germinal])
    XCTAssertEqual(try lib.books("title LIKE 'N?na'"), [lib.nana])
    XCTAssertEqual(try lib.books("title LIKE 'n*'"), [])
    XCTAssertEqual(try lib.books("title LIKE[c] 'n*'"), [lib.nana])
    XCTAssertEqual(try lib.books("title LIKE '*'").count, 5)
    XCTAssertEqual(try lib.books("title LIKE 'Emma' AND pages > 100"), [lib.emma], "LIKE combined with another comparison")
  }

  func testInAndBetween() throws {
    XCTAssertEqual(try lib.books("title IN {'Emma', 'Nana', 'Missing'}"), [lib.nana, lib.emma])
    XCTAssertEqual(try lib.books("title IN[c] {'emma'}"), [lib.emma])
    XCTAssertEqual(try lib.books("pages IN %@", [[120, 249]]), [lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("title IN {}"), [])
    XCTAssertEqual(try lib.books("pages BETWEEN {400, 500}"), [lib.nana, lib.emma])
    XCTAssertEqual(try lib.books("pages BETWEEN %@", [[448, 474]]), [lib.nana, lib.emma], "bounds are inclusive")
    XCTAssertEqual(try lib.books("published BETWEEN {'1800-01-01', '1882-01-01'}"), [lib.nana, lib.emma])
    XCTAssertEqual(try lib.books("author IN {'Author/2', 'Author/4'}"), [lib.emma, lib.persuasion])
    expectStoreError(.predicate) { try lib.books("pages IN 5") }
    XCTAssertThrowsError(try lib.books("pages BETWEEN %@", [[1]])) { XCTAssertTrue($0 is PredicateError, "\($0)") }
  }

  func testToOneKeyPaths() throws {
    XCTAssertEqual(try lib.books("author.country == 'UK'"), [lib.emma, lib.persuasion])
    XCTAssertEqual(try lib.books("author.name BEGINSWITH 'J' AND pages > 300"), [lib.emma])
    XCTAssertEqual(try lib.books("author.country == 'UK' OR author.country == 'France'").count, 4, "one join serves both")
    XCTAssertEqual(try lib.books("author.country == nil"), [lib.strasse], "no author: the join yields nil")
    XCTAssertEqual(try lib.books("author == 'Author/1'"), [lib.germinal, lib.nana])
    XCTAssertEqual(try lib.books("author == %@", ["Author/2"]), [lib.emma, lib.persuasion])
    XCTAssertEqual(try lib.books("author.born < '1800-01-01'"), [lib.emma, lib.persuasion])
    XCTAssertEqual(try lib.store.count(FetchRequest(entity: "Book", predicate: try PredicateParser.parse("author.country == 'UK'"))), 2)
  }

  func testCountOfToMany() throws {
    XCTAssertEqual(try lib.authors("books.@count == 2"), [lib.zola, lib.austen])
    XCTAssertEqual(try lib.authors("books.@count == 0"), [lib.oe, lib.anon])
    XCTAssertEqual(try lib.store.idsWhere("Tag", "books.@count >= 2"), [lib.classic, lib.french], "many-to-many counts")
    XCTAssertEqual(try lib.books("tags.@count == 0"), [lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("author.books.@count > 1"), [lib.germinal, lib.nana, lib.emma, lib.persuasion])
  }

  func testLogicalOperators() throws {
    XCTAssertEqual(try lib.books("NOT (pages > 300)"), [lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("!(pages > 300) && title BEGINSWITH 'P'"), [lib.persuasion])
    XCTAssertEqual(try lib.books("pages < 200 || pages > 500"), [lib.germinal, lib.strasse])
    XCTAssertEqual(try lib.books("(pages < 200 OR pages > 500) AND available == YES"), [lib.germinal, lib.strasse])
    XCTAssertEqual(try lib.books("TRUEPREDICATE").count, 5)
    XCTAssertEqual(try lib.books("FALSEPREDICATE"), [])
    XCTAssertEqual(try lib.books("NOT FALSEPREDICATE").count, 5)
  }

  func testFormatArguments() throws {
    XCTAssertEqual(try lib.books("title == %@", ["Emma"]), [lib.emma])
    XCTAssertEqual(try lib.books("%K == %@", ["title", "Nana"]), [lib.nana])
    XCTAssertEqual(try lib.books("%K == %@", ["author.country", "UK"]), [lib.emma, lib.persuasion])
    XCTAssertEqual(try lib.books("pages > %d AND title BEGINSWITH %@", [400, "G"]), [lib.germinal])
    XCTAssertEqual(try lib.books("rating > %f", [4]), [lib.germinal, lib.emma])
  }

  func testPredicateErrorsAreReportedAsPredicateKind() throws {
    let unknown = expectStoreError(.predicate) { try lib.books("colour == 'red'") }
    XCTAssertEqual(unknown?.details["offset"], 0)
    XCTAssertEqual(unknown?.details["entity"], "Book")
    XCTAssertTrue(unknown?.message.contains("'colour' is not an attribute or relationship of entity 'Book'") ?? false, unknown?.message ?? "")
    let deep = expectStoreError(.predicate) { try lib.books("pages > 1 AND author.nickname == 'x'") }
    XCTAssertEqual(deep?.details["offset"], 14)
    XCTAssertTrue(deep?.message.contains("reached through 'author'") ?? false)
    expectStoreError(.predicate) { try lib.books("title.length == 3") }
    expectStoreError(.predicate) { try lib.books("tags.name == 'classic'") }
    expectStoreError(.predicate) { try lib.books("ANY title == 'classic'") }
    expectStoreError(.predicate) { try lib.books("title MATCHES 'E(.*'") }
    expectStoreError(.predicate) { try lib.books("pages ==[c] 3") }
    expectStoreError(.predicate) { try lib.books("pages BEGINSWITH '1'") }
    expectStoreError(.predicate) { try lib.books("title == pages") }
    expectStoreError(.predicate) { try lib.books("meta == 'x'") }
    expectStoreError(.predicate) { try lib.books("title == 5") }
    expectStoreError(.predicate) { try lib.books("author == 'Book/1'") }
    expectStoreError(.predicate) { try lib.books("author == 'nonsense'") }
    expectStoreError(.predicate) { try lib.books("published > 'yesterday'") }
    expectStoreError(.predicate) { try lib.books("SELF == 'Author/1'") }
  }

  func testAttributeNamedLikeAKeywordIsReachableWithHash() throws {
    let store = try makeStore(schema(entity("Rule", [attr("like", "string"), attr("size", "int")])))
    let a = try store.add("Rule", ["like": "x", "size": 1])
    try store.add("Rule", ["like": "y", "size": 2])
    XCTAssertEqual(try store.idsWhere("Rule", "%K == 'x'", ["like"]), [a], "through %K")
    XCTAssertEqual(try store.idsWhere("Rule", "#like == 'x'"), [a], "through the documented # escape")
  }

  func testTransientAttributesCannotBeQueried() throws {
    let store = try makeStore(schema(entity("Doc", [attr("text", "string"), attr("draft", "string", optional: true, transient: true)])))
    expectStoreError(.predicate) { try store.idsWhere("Doc", "draft == 'x'") }
    expectStoreError(.validation) { try store.idsWhere("Doc", sort: [SortKey(keyPath: "draft")]) }
  }

  func testUnknownEntity() throws {
    expectStoreError(.notFound) { try lib.store.fetch(FetchRequest(entity: "Magazine")) }
    expectStoreError(.notFound) { try lib.store.count(FetchRequest(entity: "Magazine")) }
  }

  func testUpdateWhere() throws {
    let updated = try lib.store.updateWhere(
      FetchRequest(entity: "Book", predicate: try PredicateParser.parse("pages < 300")), values: ["available": false])
    XCTAssertEqual(updated, [lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("available == NO"), [lib.nana, lib.persuasion, lib.strasse])
    expectStoreError(.validation) {
      try lib.store.updateWhere(FetchRequest(entity: "Book"), values: ["pages": "many"])
    }
    XCTAssertEqual(try lib.books("pages == 592"), [lib.germinal], "all or nothing")
    // Relationship values keep inverses in step.
    _ = try lib.store.updateWhere(
      FetchRequest(entity: "Book", predicate: try PredicateParser.parse("author == nil")), values: ["author": .string(lib.anon)])
    XCTAssertEqual(strings(try lib.store.value(lib.anon, "books")), [lib.strasse])
  }
}
