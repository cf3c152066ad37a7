import DatabaseKit

/// The store's own SQL functions on PostgreSQL, which cannot call back into the server
/// process as SQLite calls the Swift functions the engine registers: `ms_fold`,
/// `ms_regexp` and `ms_bucket` (and `ms_number`, `ms_integer_sum`, `ms_int_real_cmp`,
/// PostgresDialect+Numbers.swift), with the signatures the engine's SQL calls them by,
/// created in the store's schema (the first of `search_path`). protocol.md, "PostgreSQL
/// engine: what differs", says where their answers differ from the Swift ones.
extension PostgresDialect {
  public func storeSetupStatements(folding: TextFoldingTable) -> [String] {
    [
      Self.diacriticsFunction(folding), Self.foldFunction, Self.regexpFunction, Self.padFunction, Self.bucketArithmeticFunction,
      Self.bucketFunction, Self.numberFunction, Self.integerSumFunction, Self.integerRealComparisonFunction,
    ]
  }

  /// `ms_fold(text, flags)`: `[d]` through `ms_fold_diacritics`, `[c]` as
  /// uppercase-then-lowercase with ICU's full case mappings (`ß` → `ss`), as Swift's
  /// `uppercased().lowercased()`, which has no final sigma (ICU's `lower` writes `ς` at
  /// the end of a word, Swift `σ` everywhere); ASCII text is lowercased directly. The
  /// result compares by code point (`COLLATE "C"`).
  static let foldFunction = """
    CREATE OR REPLACE FUNCTION ms_fold(s text, flags integer) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $ms$
    SELECT CASE WHEN flags & 2 = 0 OR octet_length(s) = length(s) THEN
      CASE WHEN flags & 1 = 0 THEN s COLLATE "C" WHEN octet_length(s) = length(s) THEN lower(s COLLATE "C")
        ELSE translate(lower(upper(s COLLATE "und-x-icu")), 'ς', 'σ') COLLATE "C" END
    ELSE
      CASE WHEN flags & 1 = 0 THEN ms_fold_diacritics(s) COLLATE "C"
        ELSE translate(lower(upper(ms_fold_diacritics(s) COLLATE "und-x-icu")), 'ς', 'σ') COLLATE "C" END
    END
    $ms$
    """

  /// `ms_fold_diacritics(text)`: `[d]` with the engine's own table (each precomposed
  /// letter to its base letter, combining marks dropped), as a JSON object; each distinct
  /// non-ASCII character of the text is looked up once and replaced everywhere (a letter's
  /// base is never a key, so the order of the replacements does not matter). `translate`
  /// with the whole table is exact too, but scans it for every character (about 200 µs
  /// for 50 characters, against 10 µs here).
  static func diacriticsFunction(_ table: TextFoldingTable) -> String {
    var map = "{"
    var first = true
    // (Not `map.count`, which counts the characters of the whole text for each entry.)
    func entry(_ key: Unicode.Scalar, _ value: String) {
      if !first { map += "," }
      first = false
      map += "\"\(key)\":\"\(value)\""
    }
    for (letter, base) in table.baseLetters { entry(letter, String(base)) }
    for v in table.droppedMarks { if let u = Unicode.Scalar(v) { entry(u, "") } }
    map += "}"
    return """
      CREATE OR REPLACE FUNCTION ms_fold_diacritics(s text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $ms$
      DECLARE c text; b text;
      BEGIN
        FOR c IN SELECT DISTINCT m[1] FROM regexp_matches(s, E'([^\\\\x01-\\\\x7f])', 'g') AS m LOOP
          b := \(quoted(map))::jsonb ->> c;
          IF b IS NOT NULL THEN s := replace(s, c, b); END IF;
        END LOOP;
        RETURN s;
      END
      $ms$
      """
  }

  /// `ms_regexp(pattern, text, flags, offset, place, node)`: the whole text against the
  /// pattern, as NSPredicate's MATCHES, in PostgreSQL's regular expressions (AREs): the
  /// pattern goes between `\A(?:` and `)\Z`, ICU's leading options `(?ismx)` become
  /// embedded options (`.` stops at a newline unless `s`; `^`/`$` at lines with `m`), the
  /// text is matched under ICU's character classes and case folding (`COLLATE
  /// "und-x-icu"`), `[c]` is case-insensitive, `[d]` folds both sides with `ms_fold`. The
  /// last three arguments (where the comparison is, for the Swift function's errors) are
  /// not used: PostgreSQL's own error names the bad pattern.
  static let regexpFunction = """
    CREATE OR REPLACE FUNCTION ms_regexp(pattern text, subject text, flags integer, "offset" bigint, place text, node bigint)
    RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $ms$
    DECLARE
      body text := pattern;
      lead text := substring(pattern FROM '^[(][?]([imsx]+)[)]');
      options text := '';
    BEGIN
      IF pattern IS NULL OR subject IS NULL THEN RETURN NULL; END IF;
      IF lead IS NOT NULL THEN body := substr(pattern, length(lead) + 4); END IF;
      lead := coalesce(lead, '');
      options := CASE WHEN strpos(lead, 's') > 0 AND strpos(lead, 'm') > 0 THEN 'w'
        WHEN strpos(lead, 's') > 0 THEN 's' WHEN strpos(lead, 'm') > 0 THEN 'n' ELSE 'p' END;
      IF strpos(lead, 'i') > 0 OR flags & 1 <> 0 THEN options := options || 'i'; END IF;
      IF strpos(lead, 'x') > 0 THEN options := options || 'x'; body := body || E'\\n'; END IF;
      IF flags & 2 <> 0 THEN
        body := ms_fold(body, 2);
        subject := ms_fold(subject, 2);
      END IF;
      RETURN (subject COLLATE "und-x-icu") ~ ('(?' || options || E')\\\\A(?:' || body || E')\\\\Z');
    END
    $ms$
    """

  /// `ms_bucket(seconds, unit, zone)`: the key of the day, ISO week, month or year holding
  /// a date on a zone's wall clock, as the Swift function writes it. Between the years 1
  /// and 9999 (with ten days to spare) it is PostgreSQL's `to_char` of the wall-clock time
  /// (`AT TIME ZONE` an IANA name, or an interval for `±HH:MM`, whose sign a zone name
  /// would read the POSIX way); elsewhere `ms_bucket_arithmetic`.
  static let bucketFunction = """
    CREATE OR REPLACE FUNCTION ms_bucket(seconds double precision, unit text, zone text)
    RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $ms$
    SELECT CASE WHEN seconds >= -62134732800 AND seconds < 253401436800 AND unit IN ('day', 'week', 'month', 'year') THEN
      to_char(CASE WHEN zone IN ('UTC', 'GMT', 'Z') THEN to_timestamp(floor(seconds)) AT TIME ZONE 'UTC'
        WHEN left(zone, 1) IN ('+', '-') THEN to_timestamp(floor(seconds)) AT TIME ZONE CAST(substr(zone, 1, 3) || ':'
          || coalesce(nullif(substr(replace(zone, ':', ''), 4, 2), ''), '00') AS interval)
        ELSE to_timestamp(floor(seconds)) AT TIME ZONE zone END,
        CASE unit WHEN 'day' THEN 'YYYY-MM-DD' WHEN 'week' THEN 'IYYY-"W"IW' WHEN 'month' THEN 'YYYY-MM' ELSE 'YYYY' END)
    ELSE ms_bucket_arithmetic(seconds, unit, zone) END
    $ms$
    """

  /// `ms_bucket_arithmetic(seconds, unit, zone)`: `ms_bucket` computed as the Swift
  /// function does (the proleptic Gregorian calendar on whole seconds, years 0 and before
  /// included), for every date with a calendar date. The offset of an IANA zone comes
  /// from PostgreSQL's time zone data; past 287,000 AD an instant is moved back by
  /// 400-year cycles (146,097 days, over which a zone's rules repeat), before 4000 BC it
  /// is read at 4000 BC (before every zone's first transition).
  static let bucketArithmeticFunction = """
    CREATE OR REPLACE FUNCTION ms_bucket_arithmetic(seconds double precision, unit text, zone text)
    RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE AS $ms$
    DECLARE
      t bigint; probe bigint; off bigint; local bigint; days bigint; digits text;
      z bigint; era bigint; doe bigint; yoe bigint; doy bigint; mp bigint; y bigint; m bigint; d bigint;
      wd bigint; thursday bigint; jan1 bigint; week bigint;
    BEGIN
      IF seconds IS NULL OR seconds = 'NaN' OR abs(seconds) >= 1e14 THEN RETURN NULL; END IF;
      IF unit IS NULL OR unit NOT IN ('day', 'week', 'month', 'year') THEN
        RAISE EXCEPTION 'ms_bucket: the unit must be day, week, month or year';
      END IF;
      t := floor(seconds);
      IF zone IN ('UTC', 'GMT', 'Z') THEN
        off := 0;
      ELSIF left(zone, 1) IN ('+', '-') THEN
        digits := replace(substr(zone, 2), ':', '');
        off := (CAST(substr(digits, 1, 2) AS bigint) * 3600
          + CASE WHEN length(digits) = 4 THEN CAST(substr(digits, 3, 2) AS bigint) * 60 ELSE 0 END)
          * CASE WHEN left(zone, 1) = '-' THEN -1 ELSE 1 END;
      ELSE
        probe := t;
        IF probe > 9000000000000 THEN
          probe := probe - ((probe - 9000000000000) / 12622780800 + 1) * 12622780800;
        END IF;
        IF probe < -188000000000 THEN probe := -188000000000; END IF;
        off := CAST(extract(epoch FROM (to_timestamp(probe) AT TIME ZONE zone)) AS bigint) - probe;
      END IF;
      local := t + off;
      days := local / 86400;
      IF local % 86400 <> 0 AND local < 0 THEN days := days - 1; END IF;
      IF unit = 'week' THEN
        wd := (((days % 7) + 11) % 7 + 6) % 7;
        thursday := days - wd + 3;
        days := thursday;
      END IF;
      z := days + 719468;
      era := CASE WHEN z >= 0 THEN z ELSE z - 146096 END / 146097;
      doe := z - era * 146097;
      yoe := (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
      y := yoe + era * 400;
      doy := doe - (365 * yoe + yoe / 4 - yoe / 100);
      mp := (5 * doy + 2) / 153;
      d := doy - (153 * mp + 2) / 5 + 1;
      m := CASE WHEN mp < 10 THEN mp + 3 ELSE mp - 9 END;
      IF m <= 2 THEN y := y + 1; END IF;
      IF unit = 'week' THEN
        z := y - 1;
        era := CASE WHEN z >= 0 THEN z ELSE z - 399 END / 400;
        yoe := z - era * 400;
        jan1 := era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + 306 - 719468;
        week := (thursday - jan1) / 7 + 1;
        RETURN ms_bucket_pad(y, 4) || '-W' || ms_bucket_pad(week, 2);
      END IF;
      RETURN CASE unit
        WHEN 'day' THEN ms_bucket_pad(y, 4) || '-' || ms_bucket_pad(m, 2) || '-' || ms_bucket_pad(d, 2)
        WHEN 'month' THEN ms_bucket_pad(y, 4) || '-' || ms_bucket_pad(m, 2)
        ELSE ms_bucket_pad(y, 4) END;
    END
    $ms$
    """

  /// `ms_bucket_pad(v, width)`: `v` with at least `width` digits, and its sign.
  static let padFunction = """
    CREATE OR REPLACE FUNCTION ms_bucket_pad(v bigint, width integer) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $ms$
    SELECT CASE WHEN v < 0 THEN '-' ELSE '' END || repeat('0', greatest(0, width - length(CAST(abs(v) AS text)))) || CAST(abs(v) AS text)
    $ms$
    """

  /// A standard SQL string literal (quotes doubled).
  private static func quoted(_ s: String) -> String {
    var out = "'"
    for c in s.unicodeScalars {
      if c == "'" { out.unicodeScalars.append(c) }
      out.unicodeScalars.append(c)
    }
    return out + "'"
  }
}
