import XCTest

@testable import CoreDataTooling

/// The XML reader on its own: the constructs Core Data files use, and precise errors.
final class XMLReaderTests: XCTestCase {
  func testElementsAttributesAndText() throws {
    let root = try XMLReader.parse(
      """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model a="1" b='two'>
          <entity name="Task"><attribute name="title"/></entity>
          <note>hello <b>bold</b> world</note>
      </model>
      """)
    XCTAssertEqual(root.name, "model")
    XCTAssertEqual(root[attribute: "a"], "1")
    XCTAssertEqual(root[attribute: "b"], "two")
    XCTAssertNil(root[attribute: "c"])
    XCTAssertEqual(root.children.map(\.name), ["entity", "note"])
    XCTAssertEqual(root.children[0].children[0][attribute: "name"], "title")
    XCTAssertEqual(root.children[1].text, "hello  world")
    XCTAssertEqual(root.children[1].children[0].text, "bold")
    XCTAssertEqual(root.line, 2)
    XCTAssertEqual(root.column, 1)
    XCTAssertEqual(root.children[0].line, 3)
    XCTAssertEqual(root.children[0].column, 5)
    XCTAssertEqual(root.children[0].children[0].column, 25)
  }

  func testReferencesCommentsCDATAAndDoctype() throws {
    let root = try XMLReader.parse(
      """
      <!-- leading comment -->
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd" [
        <!ENTITY x "y"> <!-- a ] inside a comment -->
      ]>
      <r v="a &lt; b &amp;&amp; c &gt; d &quot;q&quot; &apos;s&apos; &#65;&#x42;&#x1F600;">x<!-- skipped -->y<![CDATA[<not> &markup;]]><?pi data?>z&#xE9;</r>
      <!-- trailing comment --><?trailing pi?>
      """)
    XCTAssertEqual(root[attribute: "v"], "a < b && c > d \"q\" 's' AB\u{1F600}")
    XCTAssertEqual(root.text, "xy<not> &markup;zé")
  }

  func testAttributeValueNormalizationAndLineEnds() throws {
    let root = try XMLReader.parse("<r v=\"a\tb\r\nc\nd\">one\r\ntwo\rthree</r>")
    XCTAssertEqual(root[attribute: "v"], "a b c d")
    XCTAssertEqual(root.text, "one\ntwo\nthree")
  }

  func testByteOrderMarkAndNonASCIIColumns() throws {
    let root = try XMLReader.parse(Array("\u{FEFF}<r>".utf8) + Array("\n  <é n=\"ü\"/></r>".utf8))
    XCTAssertEqual(root.children[0].name, "é")
    XCTAssertEqual(root.children[0][attribute: "n"], "ü")
    XCTAssertEqual(root.children[0].line, 2)
    XCTAssertEqual(root.children[0].column, 3)
    XCTAssertThrowsError(try XMLReader.parse("<r>é<</r>")) { e in
      XCTAssertEqual((e as? XMLError)?.column, 6, "columns count characters, not bytes")
    }
  }

  /// Each malformed document fails with its own message at the right line and column.
  func testErrorsCarryLineAndColumn() {
    let cases: [(String, String, Int, Int)] = [
      ("<a>\n  <b></a>", "end tag </a> does not match <b> opened at 2:3", 2, 6),
      ("<a>\n<b>", "the document ends inside <b> (opened at 2:1)", 2, 4),
      ("<a x=\"1\" x=\"2\"/>", "attribute 'x' appears twice in <a>", 1, 10),
      ("<a x=1/>", "the value of attribute 'x' must be quoted", 1, 6),
      ("<a x=\"<\"/>", "'<' is not allowed in the value of attribute 'x'", 1, 7),
      ("<a>&nbsp;</a>", "unknown entity '&nbsp;' (only lt, gt, amp, quot, apos and character references are defined)", 1, 4),
      ("<a>&#0;</a>", "'&#0;' is not a valid character reference", 1, 4),
      ("<a>&#xD800;</a>", "'&#xD800;' is not a valid character reference", 1, 4),
      ("<a>AT&T</a>", "'&' must start an entity or character reference ending in ';'", 1, 6),
      ("<a><!-- open</a>", "comment is not closed", 1, 4),
      ("<a><![CDATA[x</a>", "CDATA section is not closed", 1, 4),
      ("<a/><b/>", "content after the root element <a> ended", 1, 5),
      ("<a/>text", "content after the root element <a> ended", 1, 5),
      ("  \n ", "the document has no root element", 2, 2),
      ("hello", "expected the root element, found text", 1, 1),
      ("<a b=\"1\"c=\"2\"/>", "expected whitespace, '>' or '/>' in the start tag <a>", 1, 9),
      ("<1a/>", "expected an element name after '<'", 1, 2),
      ("<!DOCTYPE x [ <!ENTITY y 'z'>", "<!DOCTYPE> declaration is not closed", 1, 1),
      ("<a><!ELEMENT x></a>", "markup declarations are not allowed inside an element", 1, 4),
    ]
    for (text, message, line, column) in cases {
      XCTAssertThrowsError(try XMLReader.parse(text), text) { e in
        guard let x = e as? XMLError else { return XCTFail("\(text): \(e)") }
        XCTAssertEqual(x.message, message, text)
        XCTAssertEqual("\(x.line):\(x.column)", "\(line):\(column)", text)
      }
    }
  }

  func testDeepNestingIsAnErrorNotACrash() {
    let depth = XMLReader.maxDepth + 10
    let text = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
    XCTAssertThrowsError(try XMLReader.parse(text)) { e in
      XCTAssertEqual((e as? XMLError)?.message, "elements nest deeper than \(XMLReader.maxDepth) levels")
    }
    let ok = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
    XCTAssertNoThrow(try XMLReader.parse(ok))
  }

  func testPropertyList() throws {
    let plist = try PropertyList.parse(
      Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>Model 2.xcdatamodel</string>
        \t<key>n</key><integer> 42 </integer>
        \t<key>list</key><array><true/><false/><real>1.5</real><date>2026-01-01T00:00:00Z</date><data> AAE=\n</data></array>
        </dict>
        </plist>
        """.utf8))
    XCTAssertEqual(plist["_XCCurrentVersionName"]?.stringValue, "Model 2.xcdatamodel")
    XCTAssertEqual(plist["n"], .integer(42))
    XCTAssertEqual(plist["list"], .array([.bool(true), .bool(false), .real(1.5), .date("2026-01-01T00:00:00Z"), .data("AAE=")]))
    XCTAssertNil(plist["missing"])
  }

  func testPropertyListErrors() {
    let cases: [(String, String)] = [
      ("<dict/>", "1:1: expected a <plist> document, found <dict>"),
      ("<plist><dict><key>a</key></dict></plist>", "1:14: <key>a</key> has no value"),
      ("<plist><dict><string>a</string></dict></plist>", "1:14: expected <key> in <dict>, found <string>"),
      ("<plist><integer>x</integer></plist>", "1:8: 'x' is not an integer"),
      ("<plist><thing/></plist>", "1:8: <thing> is not a property list value"),
      ("<plist><dict><key>a</key><true/><key>a</key><true/></dict></plist>", "1:33: key 'a' appears twice"),
      ("<plist/>", "1:1: <plist> must hold exactly one value, found 0"),
    ]
    for (text, expected) in cases {
      XCTAssertThrowsError(try PropertyList.parse(Array(text.utf8)), text) { e in XCTAssertEqual("\(e)", expected, text) }
    }
  }

  func testNaturalOrderOfVersionNames() {
    let names = ["Model 10", "Model", "Model 2", "0.6.10", "0.6", "0.6.7", "Model 9", "0.5"]
    XCTAssertEqual(
      names.sorted(by: ModelFiles.naturalPrecedes), ["0.5", "0.6", "0.6.7", "0.6.10", "Model", "Model 2", "Model 9", "Model 10"])
  }
}
