import DatabaseKit

/// Text folding for `[c]`, `[d]` and `[cd]` comparisons, done in Swift and registered in
/// SQLite as `ms_fold(text, flags)` so predicates compare the same way everywhere (an
/// engine that cannot call Swift defines `ms_fold` in SQL from `table`).
///
/// Case: full Unicode case folding approximated as uppercase-then-lowercase, which maps
/// `ß` to `ss` ("STRASSE" ==[c] "straße") as Foundation's case-insensitive compare does.
/// Diacritics: Latin, Greek and Cyrillic letters with marks map to their base letter
/// (canonical decomposition minus combining marks), and combining marks (U+0300–U+036F)
/// are dropped.
public enum TextFolding {
  public static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
    var out = s
    if diacriticInsensitive {
      var scalars = String.UnicodeScalarView()
      for u in s.unicodeScalars {
        if droppedMarks.contains(u.value) { continue }
        if let base = baseLetter[u.value] {
          scalars.append(contentsOf: base.unicodeScalars)
        } else {
          scalars.append(u)
        }
      }
      out = String(scalars)
    }
    if caseInsensitive { out = out.uppercased().lowercased() }
    return out
  }

  /// Combining marks, dropped by `[d]`.
  static let droppedMarks: ClosedRange<UInt32> = 0x300...0x36F

  /// The diacritic folding as data: each precomposed letter and its base letter (one
  /// scalar each), and the marks dropped (`SQLDialect.storeSetupStatements`).
  public static let table = TextFoldingTable(
    baseLetters: baseLetter.sorted { $0.key < $1.key }.map { (Unicode.Scalar($0.key)!, $0.value.unicodeScalars.first!) },
    droppedMarks: droppedMarks)

  /// Precomposed letters with diacritics and their base letters (Latin-1 Supplement,
  /// Latin Extended-A, and the common Latin Extended-B / Additional forms).
  static let baseLetter: [UInt32: String] = {
    var m: [UInt32: String] = [:]
    func add(_ base: String, _ chars: String) { for u in chars.unicodeScalars { m[u.value] = base } }
    add("A", "ÀÁÂÃÄÅĀĂĄǍǞǠǺȀȂȦȺḀẠẢẤẦẨẪẬẮẰẲẴẶ")
    add("a", "àáâãäåāăąǎǟǡǻȁȃȧḁạảấầẩẫậắằẳẵặ")
    add("C", "ÇĆĈĊČ")
    add("c", "çćĉċč")
    add("D", "ĎĐḊḌḎḐḒ")
    add("d", "ďđḋḍḏḑḓ")
    add("E", "ÈÉÊËĒĔĖĘĚȄȆȨḔḖḘḚḜẸẺẼẾỀỂỄỆ")
    add("e", "èéêëēĕėęěȅȇȩḕḗḙḛḝẹẻẽếềểễệ")
    add("G", "ĜĞĠĢǦǴḠ")
    add("g", "ĝğġģǧǵḡ")
    add("H", "ĤĦȞḢḤḦḨḪ")
    add("h", "ĥħȟḣḥḧḩḫẖ")
    add("I", "ÌÍÎÏĨĪĬĮİǏȈȊḬḮỈỊ")
    add("i", "ìíîïĩīĭįıǐȉȋḭḯỉị")
    add("J", "Ĵ")
    add("j", "ĵǰ")
    add("K", "ĶǨḰḲḴ")
    add("k", "ķǩḱḳḵ")
    add("L", "ĹĻĽĿŁḶḸḺḼ")
    add("l", "ĺļľŀłḷḹḻḽ")
    add("N", "ÑŃŅŇǸṄṆṈṊ")
    add("n", "ñńņňǹṅṇṉṋ")
    add("O", "ÒÓÔÕÖØŌŎŐƠǑǪǬǾȌȎȪȬȮȰṌṎṐṒỌỎỐỒỔỖỘỚỜỞỠỢ")
    add("o", "òóôõöøōŏőơǒǫǭǿȍȏȫȭȯȱṍṏṑṓọỏốồổỗộớờởỡợ")
    add("R", "ŔŖŘȐȒṘṚṜṞ")
    add("r", "ŕŗřȑȓṙṛṝṟ")
    add("S", "ŚŜŞŠȘṠṢṤṦṨ")
    add("s", "śŝşšșṡṣṥṧṩ")
    add("T", "ŢŤŦȚṪṬṮṰ")
    add("t", "ţťŧțṫṭṯṱẗ")
    add("U", "ÙÚÛÜŨŪŬŮŰŲƯǓǕǗǙǛȔȖṲṴṶṸṺỤỦỨỪỬỮỰ")
    add("u", "ùúûüũūŭůűųưǔǖǘǚǜȕȗṳṵṷṹṻụủứừửữự")
    add("W", "ŴẀẂẄẆẈ")
    add("w", "ŵẁẃẅẇẉẘ")
    add("Y", "ÝŶŸȲẎỲỴỶỸ")
    add("y", "ýÿŷȳẏẙỳỵỷỹ")
    add("Z", "ŹŻŽẐẒẔ")
    add("z", "źżžẑẓẕ")
    add("Α", "ΆἈἉἊἋἌἍἎἏᾸᾹᾺΆ")
    add("α", "άἀἁἂἃἄἅἆἇὰάᾰᾱᾶ")
    add("Ε", "ΈἘἙἚἛἜἝῈΈ")
    add("ε", "έἐἑἒἓἔἕὲέ")
    add("Η", "ΉἨἩἪἫἬἭἮἯῊΉ")
    add("η", "ήἠἡἢἣἤἥἦἧὴήῆ")
    add("Ι", "ΊΪἸἹἺἻἼἽἾἿῘῙῚΊ")
    add("ι", "ίϊΐἰἱἲἳἴἵἶἷὶίῐῑῒΐῖῗ")
    add("Ο", "ΌὈὉὊὋὌὍῸΌ")
    add("ο", "όὀὁὂὃὄὅὸό")
    add("Υ", "ΎΫὙὛὝὟῨῩῪΎ")
    add("υ", "ύϋΰὐὑὒὓὔὕὖὗὺύῠῡῢΰῦῧ")
    add("Ω", "ΏὨὩὪὫὬὭὮὯῺΏ")
    add("ω", "ώὠὡὢὣὤὥὦὧὼώῶ")
    add("Е", "ЀЁ")
    add("е", "ѐё")
    add("И", "ЍЙ")
    add("и", "ѝй")
    add("Г", "Ѓ")
    add("г", "ѓ")
    add("К", "Ќ")
    add("к", "ќ")
    add("У", "Ў")
    add("у", "ў")
    add("І", "Ї")
    add("і", "ї")
    return m
  }()
}
