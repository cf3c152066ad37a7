import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// The full predicate language against the library fixture (Helpers.swift): Author.books
/// is a to-many with a to-one inverse (Book.author), Book.tags ↔ Tag.books a many-to-many
/// in a join table.
final class PredicateLanguageTests: XCTestCase {
  private var lib: Library!

  override func setUpWithError() throws { lib = try Library() }
  override func tearDown() { lib = nil }

  private func tags(_ p: String, _ args: [JSONValue] = []) throws -> [String] { try lib.store.idsWhere("Tag", p, args) }

  /// The predicate error `p` raises over `entity`, with its offset.
  private func failure(_ entity: String, _ p: String, _ args: [JSONValue] = [], file: StaticString = #filePath, line: UInt = #line)
    -> (message: String, offset: Int?)
  {
    guard let e = expectStoreError(.predicate, { try lib.store.idsWhere(entity, p, args) }, file: file, line: line) else { return ("", nil) }
    if case .int(let o)? = e.details["offset"] { return (e.message, Int(o)) }
    return (e.message, nil)
  }

  // MARK: - Quantifiers

  func testAnyOverAToManyWithInverse() throws {
    XCTAssertEqual(try lib.authors("ANY books.title == 'Emma'"), [lib.austen])
    XCTAssertEqual(try lib.authors("SOME books.pages > 500"), [lib.zola])
    XCTAssertEqual(try lib.authors("ANY books.title BEGINSWITH[c] 'n'"), [lib.zola])
  }

  func testAnyOverAManyToMany() throws {
    XCTAssertEqual(try lib.books("ANY tags.name == 'french'"), [lib.germinal, lib.nana])
    XCTAssertEqual(try tags("ANY books.title IN {'Emma', 'Nana'}"), [lib.classic, lib.french])
  }

  func testAnyThroughTwoToManyHopsAndToOnes() throws {
    XCTAssertEqual(try lib.authors("ANY books.tags.name == 'classic'"), [lib.zola, lib.austen])
    XCTAssertEqual(try tags("ANY books.author.country == 'UK'"), [lib.classic])
    XCTAssertEqual(try lib.books("ANY author.books.tags.name == 'french'"), [lib.germinal, lib.nana])
  }

  func testAllIsVacuouslyTrueAndCountsNilAsFailing() throws {
    // Anonymous and Ōe have no books: ALL holds for them, as in NSPredicate.
    XCTAssertEqual(try lib.authors("ALL books.pages > 400"), [lib.zola, lib.oe, lib.anon])
    XCTAssertEqual(try lib.authors("ALL books.price != nil"), [lib.zola, lib.oe, lib.anon], "Persuasion has no price")
    XCTAssertEqual(try lib.authors("ALL books.rating > 1"), [lib.zola, lib.oe, lib.anon], "a nil rating fails ALL")
  }

  func testNone() throws {
    XCTAssertEqual(try lib.authors("NONE books.available == NO"), [lib.austen, lib.oe, lib.anon])
    XCTAssertEqual(try lib.books("NONE tags.name == 'french'"), [lib.emma, lib.persuasion, lib.strasse])
  }

  func testQuantifiedComparisonsAgainstObjects() throws {
    XCTAssertEqual(try lib.books("ANY tags == %@", [.string(lib.classic)]), [lib.germinal, lib.emma])
    XCTAssertEqual(try lib.authors("ANY books IN %@", [ids(lib.nana, lib.emma)]), [lib.zola, lib.austen])
  }

  func testToManyWithoutQuantifierIsAnError() {
    let f = failure("Book", "pages > 1 AND tags.name == 'classic'")
    XCTAssertEqual(f.offset, 24)
    XCTAssertTrue(f.message.contains("'tags.name' goes through a to-many relationship: say ANY, ALL or NONE"), f.message)
  }

  func testQuantifierOnAScalarIsAnError() {
    let f = failure("Book", "ANY title == 'x'")
    XCTAssertEqual(f.offset, 10)
    XCTAssertTrue(f.message.contains("ANY needs a key path through a to-many relationship on its left, but 'title' is not one"), f.message)
  }

  // MARK: - IN and CONTAINS with collections

  func testValueInAToManyKeyPath() throws {
    XCTAssertEqual(try lib.books("%@ IN tags.name", ["classic"]), [lib.germinal, lib.emma])
    XCTAssertEqual(try lib.books("'Tag/2' IN tags"), [lib.germinal, lib.nana])
    XCTAssertEqual(try lib.authors("'Nana' IN books.title"), [lib.zola])
    XCTAssertEqual(try lib.books("tags CONTAINS %@", [.string(lib.french)]), [lib.germinal, lib.nana])
    XCTAssertEqual(try lib.books("NOT ('Tag/2' IN tags)"), [lib.emma, lib.persuasion, lib.strasse])
  }

  func testValueInAStringIsSubstring() throws {
    XCTAssertEqual(try lib.books("'erm' IN title"), [lib.germinal])
    XCTAssertEqual(try lib.books("{'Emma', 'Nana'} CONTAINS title"), [lib.nana, lib.emma])
  }

  // MARK: - SUBQUERY

  func testSubqueryCount() throws {
    XCTAssertEqual(try lib.authors("SUBQUERY(books, $b, $b.pages > 400).@count == 2"), [lib.zola])
    XCTAssertEqual(try lib.authors("SUBQUERY(books, $b, $b.pages > 400 AND $b.available == YES).@count >= 1"), [lib.zola, lib.austen])
    XCTAssertEqual(try lib.books("SUBQUERY(tags, $t, $t.name BEGINSWITH 'c').@count > 0"), [lib.germinal, lib.emma])
  }

  func testSubqueryWithNestedPathsAndOuterKeys() throws {
    // $t.books.@count: a to-many from the variable; `title` refers to the outer Book.
    XCTAssertEqual(try lib.books("SUBQUERY(tags, $t, $t.books.@count == 2).@count == 2"), [lib.germinal])
    XCTAssertEqual(try lib.books("SUBQUERY(tags, $t, ANY $t.books.author.country == 'UK').@count > 0"), [lib.germinal, lib.emma])
    XCTAssertEqual(try lib.authors("SUBQUERY(books, $b, $b.author.name == name AND $b.pages > 460).@count == 1"), [lib.zola, lib.austen])
    XCTAssertEqual(try lib.authors("SUBQUERY(books, $b, $b == %@).@count == 1", [.string(lib.emma)]), [lib.austen])
  }

  func testSubqueryErrors() {
    XCTAssertTrue(failure("Book", "SUBQUERY(author, $a, $a.name == 'x').@count > 0").message.contains("ending in a to-many"))
    let unknown = failure("Author", "SUBQUERY(books, $b, $b.nope == 1).@count > 0")
    XCTAssertTrue(unknown.message.contains("'nope' is not an attribute or relationship of 'Book' (reached through '$b')"), unknown.message)
    XCTAssertEqual(unknown.offset, 20)
    XCTAssertThrowsError(try PredicateParser.parse("SUBQUERY(books, $b, $c.pages == 1).@count > 0"), "$c is not the variable")
    XCTAssertTrue(failure("Author", "SUBQUERY(books, $b, $b.pages > 1) == 1").message.contains("count it with SUBQUERY(...).@count"))
  }

  // MARK: - Collection operators

  func testCountSumAvgMinMax() throws {
    XCTAssertEqual(try lib.authors("books.@count == 2"), [lib.zola, lib.austen])
    XCTAssertEqual(try lib.authors("books.@sum.pages > 1000"), [lib.zola])
    XCTAssertEqual(try lib.authors("books.@sum.pages == 0"), [lib.oe, lib.anon], "the sum of nothing is 0")
    XCTAssertEqual(try lib.authors("books.@avg.pages > 500"), [lib.zola])
    XCTAssertEqual(try lib.authors("books.@min.pages < 300"), [lib.austen])
    XCTAssertEqual(try lib.authors("books.@max.rating >= 4.5"), [lib.zola])
    XCTAssertEqual(try lib.authors("books.@sum.price > 20"), [lib.zola], "decimals fold as numbers")
    XCTAssertEqual(try lib.authors("books.@max.published > CAST('1850-01-01', 'NSDate')"), [lib.zola])
    XCTAssertEqual(try tags("books.@avg.pages > 525"), [lib.classic], "many-to-many")
    XCTAssertEqual(try lib.books("author.books.@sum.pages > 1000"), [lib.germinal, lib.nana], "after a to-one")
  }

  func testCollectionOperatorsCompareWithKeyPaths() throws {
    XCTAssertEqual(try lib.books("pages == author.books.@max.pages"), [lib.germinal, lib.emma])
    XCTAssertEqual(try lib.authors("books.@count == books.@sum.available"), [lib.austen, lib.oe, lib.anon])
  }

  func testCollectionOperatorErrors() {
    XCTAssertTrue(failure("Author", "books.@sum.title > 1").message.contains("@sum needs a number attribute"))
    XCTAssertTrue(failure("Author", "books.@sum > 1").message.contains("@sum needs the key of the values it folds"))
    XCTAssertTrue(failure("Book", "title.@count > 1").message.contains("@count needs a to-many key path"))
    XCTAssertThrowsError(try PredicateParser.parse("books.@median.pages > 1"))
  }

  // MARK: - Key path against key path

  func testKeyPathAgainstKeyPath() throws {
    XCTAssertEqual(try lib.books("published > author.born"), [lib.germinal, lib.nana, lib.emma])
    XCTAssertEqual(try lib.books("pages < rating * 100"), [])
    XCTAssertEqual(try lib.books("rating * 100 > pages"), [])
    XCTAssertEqual(try lib.books("pages > rating * 110"), [lib.germinal, lib.nana, lib.emma])
    XCTAssertEqual(try lib.authors("name ==[cd] name"), [lib.zola, lib.austen, lib.oe, lib.anon])
    XCTAssertEqual(try lib.books("author == author"), try lib.books("TRUEPREDICATE"), "nil == nil holds, as in NSPredicate")
  }

  func testIncomparableKeyPaths() {
    let f = failure("Book", "title == pages")
    XCTAssertTrue(f.message.contains("cannot compare 'title' (string) with 'pages' (int)"), f.message)
    XCTAssertEqual(f.offset, 6)
    XCTAssertTrue(failure("Book", "author == tags.@count").message.contains("cannot compare"))
  }

  // MARK: - SELF, CAST, arithmetic, values on the left

  func testSelf() throws {
    XCTAssertEqual(try lib.books("SELF == %@", [.string(lib.emma)]), [lib.emma])
    XCTAssertEqual(try lib.books("SELF IN %@", [ids(lib.nana, lib.strasse)]), [lib.nana, lib.strasse])
    XCTAssertEqual(try lib.books("NOT (SELF IN %@)", [ids(lib.nana, lib.strasse)]), [lib.germinal, lib.emma, lib.persuasion])
    XCTAssertTrue(failure("Book", "SELF == 'Author/1'").message.contains("compare it with an id such as \"Book/1\""))
  }

  func testCastDates() throws {
    XCTAssertEqual(try lib.books("published < CAST('1850-01-01', 'NSDate')"), [lib.emma])
    // -4e9 seconds from 2001-01-01 is 1874-03-28.
    XCTAssertEqual(try lib.books("published > CAST(-4000000000, 'NSDate')"), [lib.germinal, lib.nana])
    XCTAssertEqual(try lib.books("published BETWEEN {CAST('1879-01-01', 'NSDate'), CAST('1881-01-01', 'NSDate')}"), [lib.nana])
    XCTAssertTrue(failure("Book", "published < CAST('soon', 'NSDate')").message.contains("ISO 8601"))
    XCTAssertEqual(try lib.books("CAST(isbn, 'NSNumber') > 200"), [lib.nana, lib.emma])
  }

  func testArithmetic() throws {
    XCTAssertEqual(try lib.books("pages + 8 == 600"), [lib.germinal])
    XCTAssertEqual(try lib.books("pages / 2 < 125"), [lib.persuasion, lib.strasse])
    XCTAssertEqual(try lib.books("pages -48 == 400"), [lib.nana], "a signed number after a value is subtraction")
    XCTAssertTrue(failure("Book", "title + 1 == 2").message.contains("'+' needs numbers"))
    XCTAssertTrue(failure("Book", "min(pages) == 2").message.contains("function 'min' is not supported"))
  }

  func testValuesOnTheLeft() throws {
    XCTAssertEqual(try lib.books("%@ == title", ["Emma"]), [lib.emma])
    XCTAssertEqual(try lib.books("500 < pages"), [lib.germinal])
    XCTAssertEqual(try lib.books("%@ IN tags.name", ["french"]), [lib.germinal, lib.nana])
    XCTAssertTrue(failure("Book", "'x' BEGINSWITH title").message.contains("the key path must be on the left of BEGINSWITH"))
  }

  // MARK: - MATCHES

  func testMatches() throws {
    XCTAssertEqual(try lib.books("title MATCHES 'E.*'"), [lib.emma])
    XCTAssertEqual(try lib.books("title MATCHES 'e.*'"), [])
    XCTAssertEqual(try lib.books("title MATCHES[c] 'e.*'"), [lib.emma])
    XCTAssertEqual(try lib.books("title MATCHES 'Nan'"), [], "the whole text must match")
    XCTAssertEqual(try lib.books("isbn MATCHES '\\\\d{3}'"), [lib.germinal, lib.nana, lib.emma])
    XCTAssertEqual(try lib.authors("name MATCHES[cd] 'emile.*'"), [lib.zola])
    XCTAssertEqual(try lib.authors("ANY books.title MATCHES '[GN].*'"), [lib.zola])
    XCTAssertEqual(try lib.books("title MATCHES %@", ["P.*n"]), [lib.persuasion])
  }

  func testBadRegexIsAPredicateErrorAtTheOperator() {
    let f = failure("Book", "title MATCHES 'E(.*'")
    XCTAssertEqual(f.offset, 6)
    XCTAssertTrue(f.message.contains("invalid regular expression 'E(.*'"), f.message)
  }

  // MARK: - One statement, indexes

  /// EXPLAIN QUERY PLAN of the compiled WHERE over `entity`.
  private func plan(_ entity: String, _ predicate: String) throws -> [String] {
    let store = lib.store
    let entityPlan = try XCTUnwrap(store.catalog.plans[entity])
    var builder = SQLBuilder(catalog: store.catalog, base: entityPlan)
    let condition = try builder.compile(try PredicateParser.parse(predicate))
    let sql = "SELECT t.\"_pk\" FROM \(entityPlan.table) t\(builder.joinSQL) WHERE \(condition)"
    var details: [String] = []
    try store.connection.prepare("EXPLAIN QUERY PLAN " + sql).forEachRow(builder.args) { details.append($0.text(3)) }
    return details
  }

  func testBeginsWithOnAnIndexedAttributeUsesTheIndex() throws {
    let details = try plan("Book", "isbn BEGINSWITH '22'")
    XCTAssertTrue(details.contains { $0.contains("USING") && $0.contains("INDEX") && $0.contains("isbn") }, "\(details)")
    XCTAssertEqual(try lib.books("isbn BEGINSWITH '22'"), [lib.nana])
    XCTAssertEqual(try lib.books("isbn BEGINSWITH ''"), [], "an empty prefix matches nothing, as Foundation's hasPrefix(\"\")")
    XCTAssertEqual(try lib.books("NOT (isbn BEGINSWITH '')"), try lib.books("TRUEPREDICATE"))
    XCTAssertEqual(try lib.books("title BEGINSWITH 'straß'"), [lib.strasse])
    XCTAssertEqual(try lib.books("title BEGINSWITH[c] 'STRASS'"), [lib.strasse], "folded: the substr form")
  }

  func testToManyLookupsUseTheJoinTableKey() throws {
    let details = try plan("Book", "ANY tags == 'Tag/1'")
    XCTAssertTrue(details.contains { $0.contains("PRIMARY KEY") }, "\(details)")
    XCTAssertTrue(details.contains { $0.contains("CORRELATED") || $0.contains("SUBQUERY") }, "one statement: \(details)")
  }

  // MARK: - Nil through to-ones, folding of textual types, parse errors

  func testCollectionsThroughANilToOneAreNil() throws {
    // straße has no author: its author.books.@count is nil, not 0.
    XCTAssertEqual(try lib.books("author.books.@count == nil"), [lib.strasse])
    XCTAssertEqual(try lib.books("author.books.@count IN {nil, 1}"), [lib.strasse])
    XCTAssertEqual(try lib.books("author.books.@sum.pages < 1"), [])
  }

  func testStringOperatorsFoldDecimalsAsText() throws {
    XCTAssertEqual(try lib.books("price BEGINSWITH[c] '12'"), [lib.germinal])
    XCTAssertEqual(try lib.authors("ANY books.price ENDSWITH[cd] '99'"), [lib.zola])
    expectStoreError(.predicate) { try lib.books("price ==[c] '12.5'") }
  }

  func testParseErrorsOfTheNewConstructsHaveOffsets() {
    func offset(_ s: String) -> Int? {
      do { _ = try PredicateParser.parse(s) } catch let e as PredicateError { return e.offset } catch {}
      return nil
    }
    XCTAssertEqual(offset("SUBQUERY(books, b, b.pages > 1).@count > 0"), 16, "the variable must be $b")
    XCTAssertEqual(offset("books.@median.pages > 1"), 6)
    XCTAssertEqual(offset("@count > 1"), 0)
    XCTAssertEqual(offset("books.@count.pages > 1"), 6, "nothing after @count")
    XCTAssertEqual(offset("SUBQUERY(books, $b, $b.pages > 1"), 32)
    XCTAssertEqual(offset("pages > 1.@count"), 10, "a collection operator needs a collection")
    XCTAssertEqual(offset("pages > 'a'.b"), 12, "no key after a value")
    XCTAssertEqual(offset("x == {1, 2}[FIRST"), 17)
  }
}
