import Handlers

// The help of `modelstore` and of each command (`modelstore CMD --help`): usage, what it
// does, its options, an example, and its exit statuses.

enum CommandHelp {
  static let exitStatuses = """
    EXIT STATUS
      0  done
      1  the work failed (the message says why; nothing was changed unless it says so)
      2  wrong arguments (nothing was done)

    """

  static let overview = """
    modelstore \(Session.version): SwiftData / Core Data model semantics over JSON-RPC 2.0 on stdio.

    USAGE
      modelstore serve [--store PATH | --memory] [options]    serve one client on stdin/stdout
      modelstore query STORE ENTITY [PREDICATE] [--sort KEY[,-KEY]] [--limit N] [--format table|json|ndjson|csv]
      modelstore info STORE [--json]                          entities and counts, versions, history size
      modelstore export --store PATH [--out FILE|-] [--format ndjson|json] [--csv] [--entity E]... [--where PRED] [--with-related]
      modelstore import --store PATH FILE|- [--mode insert|upsert|replace] [--csv --entity E]
      modelstore migrate --store PATH (--to SCHEMA.json | --plan PLAN.json) [--dry-run] [--allow-data-loss] [--no-backup] [--json]
      modelstore copy --from SOURCE --to TARGET [--history] [--force]   copy a whole store (a file, a PostgreSQL schema)
      modelstore upgrade --store PATH                         upgrade a formatVersion 1 file in place (a backup first)
      modelstore import-coredata STORE [--model PATH [--model-version NAME]] --store OUT   copy a Core Data SQLite store into a ModelStore file
      modelstore xcdatamodel PATH [--audit | --generate TARGET [--out DIR]] [--report]   read a Core Data model
      modelstore diagram STORE|SCHEMA.json|MODEL.xcdatamodeld [--format mermaid|dot|svg|png] [--out FILE] [--version NAME] [--plan FROM TO]
      modelstore protocol --json                              print the protocol description (protocol.json)
      modelstore studio --store PATH [--format coredata [--model PATH]] [--read-only] [--port N] [--open]   browse a store in a local web page
      modelstore --version | --help | help COMMAND

    Every command takes --help. Long work (import, export, migrate, copy, upgrade,
    import-coredata) shows progress on stderr when it is a terminal, or with --progress.

    SERVE OPTIONS
      --store PATH              open (or create) the store file at PATH
      --memory                  use an in-memory store (the default when no --store is given)
      --read-only               open the store read-only; every write fails with kind readOnly
      --no-create               refuse to create PATH when it does not exist
      --no-history              commits write no history (live queries follow the file by a cheap check instead)
      --history-retention KEEP  keep the newest N history transactions (100000) or those younger
                                than a duration (90s, 30m, 12h, 7d, 2w); default forever
      --format coredata         PATH is a Core Data SQLite store: browse and query it in place, read-only
      --model MODEL             with --format coredata: its .xcdatamodeld / .xcdatamodel, for exact names and types
      --model-version NAME      with --model: the version the store was written with (else the one that fits best)
      --version-order A,B,C     with --model: the versions' names, oldest first (else read from the names)
      --max-message-bytes N     largest accepted message (default 67108864 = 64 MiB)
      --max-depth N             deepest accepted nesting of arrays/objects (default 64)
      --log-level LEVEL         error | warning | info | debug (default warning); logs go to stderr

    Messages are one JSON text per line; a first line starting with 'Content-Length:'
    switches the session to LSP-style header framing. See protocol.md.

    EXAMPLE
      printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"store.info"}' | modelstore serve --store tasks.store

    """

  /// Each command's one-line summary and help text.
  static let commands: [String: (summary: String, text: String)] = [
    "query": (
      "print the objects of an entity that match a predicate",
      """
      USAGE
        modelstore query STORE ENTITY [PREDICATE] [options]

      Prints the objects of ENTITY (and of its sub-entities) that match PREDICATE, an
      NSPredicate-style filter (protocol.md, "Predicates"), as query.fetch returns them.
      Read-only: the store is never written.

      OPTIONS
        --sort KEY[,-KEY]...   order by these key paths; '-' before a key sorts it descending
        --limit N              at most N objects
        --offset N             skip the first N objects
        --select KEY[,KEY]...  only these keys (_id always comes)
        --format FORMAT        table (default), json (one array), ndjson (one object a line), csv
        --coredata             STORE is a Core Data SQLite store, read in place

      EXAMPLE
        modelstore query tasks.store Task "priority >= 2 AND title CONTAINS[c] 'report'" --sort -priority,title --limit 10

      """
    ),
    "info": (
      "what a store holds",
      """
      USAGE
        modelstore info STORE [--json] [--coredata]

      Prints what STORE holds: its format and format version, its schema version and hash,
      the objects of each entity, the history transactions it keeps, its size. Read-only.

      OPTIONS
        --json       print it as one JSON object (store.info's members, plus history)
        --coredata   STORE is a Core Data SQLite store, read in place

      EXAMPLE
        modelstore info tasks.store

      """
    ),
    "export": (
      "write a store's objects to a file",
      """
      USAGE
        modelstore export --store PATH [options]

      Writes the store's objects in the interchange format (protocol.md, "Interchange
      format"): a header with the schema, then the objects; or with --csv one entity's
      attribute values as CSV with a header row. A summary goes to stderr.

      OPTIONS
        --out FILE, -o FILE   write to FILE ('-' or no --out: standard output); FILE must not
                              exist unless --force is given
        --force               replace FILE if it exists (written aside, renamed over it at the end)
        --format ndjson|json  the interchange layout (default ndjson)
        --csv                 CSV of one --entity: _id and its stored attributes (not relationships)
        --entity E            only objects of E and its sub-entities (repeatable)
        --where PRED          only objects matching PRED (with exactly one --entity)
        --with-related        also every object the chosen ones reach through relationships:
                              each relationship (to-one and to-many, either side) of every
                              object included is followed, transitively, until nothing new is
                              reached, so the file refers to no object outside it and imports
                              into an empty store
        --progress            show progress on stderr even when it is not a terminal

      EXAMPLE
        modelstore export --store tasks.store --entity Task --where "priority >= 2" --with-related --out urgent.ndjson

      """
    ),
    "import": (
      "read objects from a file into a store",
      """
      USAGE
        modelstore import --store PATH FILE|- [options]

      Reads an interchange file ('-': standard input) into the store, all or nothing; the
      store is created if it does not exist (and removed again if the import fails: a file,
      or a PostgreSQL schema the command created and nobody wrote to since). With
      --csv, FILE is CSV of one entity: its header row names the columns, each a stored
      attribute of the entity (or '_id'); values are converted by the attribute's type; an
      empty field is no value, a quoted empty field ("") the empty string. The store must
      already have a schema. Errors name the line (and the CSV column).

      OPTIONS
        --mode MODE        insert (default: new ids), upsert (match on a uniqueness constraint),
                           replace (empty the file's entities first, keep the file's ids)
        --csv              FILE is CSV
        --entity E         the entity of a CSV file's records
        --progress         show progress on stderr even when it is not a terminal

      EXAMPLE
        modelstore import --store copy.store urgent.ndjson

      """
    ),
    "migrate": (
      "migrate a store to another schema version",
      """
      USAGE
        modelstore migrate --store PATH (--to SCHEMA.json | --plan PLAN.json) [options]

      Migrates the store to the schema version SCHEMA.json holds (a lightweight stage from
      the store's version), or along PLAN.json's {schemas, stages}; '-' reads it from
      standard input. Prints the plan and what was done; a backup of the file is written
      first (PATH.before-FROM-to-TO.backup; for a PostgreSQL store, the schema
      SCHEMA_before_FROM_to_TO beside it) and removed again if the migration is refused
      before any stage is applied.

      OPTIONS
        --dry-run           run every stage inside a transaction that is rolled back: the plan only
        --allow-data-loss   accept stages that drop stored data (removed attributes, relationships,
                            entities with objects)
        --no-backup         write no backup first
        --json              print the result as JSON (migration.apply's result)
        --progress          show progress on stderr even when it is not a terminal

      EXAMPLE
        modelstore migrate --store tasks.store --to TaskV2.json --dry-run

      """
    ),
    "copy": (
      "copy a whole store into a new one: a file and a PostgreSQL schema, either way",
      """
      USAGE
        modelstore copy --from SOURCE --to TARGET [--history] [--force] [--progress]

      Copies the store SOURCE into a new store TARGET; each is a store file or a PostgreSQL
      URL (postgresql://...?schema=NAME), so a store moves from a file to a server, back,
      or within one engine. The copy keeps object ids, entity codes, the schema and every
      version it held, and the largest keys ever given; the history only with --history
      (without it the copy's history starts empty, its tokens going on after the
      source's). SOURCE is read in one snapshot, never written, a page of rows at a time.
      All or nothing: a PostgreSQL TARGET is made and filled in one transaction; a file
      TARGET is written as TARGET.partial-PID and renamed when whole. A failure or Ctrl-C
      leaves no TARGET (a second Ctrl-C ends at once: a file's TARGET.partial-PID stays).
      A summary goes to stderr.

      OPTIONS
        --history    copy the history transactions too
        --force      replace TARGET if it holds a ModelStore store (never anything else; a
                     file no process has open: no TARGET-wal or TARGET-shm beside it)
        --progress   show progress on stderr even when it is not a terminal

      EXAMPLE
        modelstore copy --from tasks.store --to 'postgresql://app@db.example/shop?schema=tasks' --history

      """
    ),
    "upgrade": (
      "upgrade a store file of an older format",
      """
      USAGE
        modelstore upgrade --store PATH [--progress]

      Upgrades a store file of formatVersion 1 to the current format in place (what opening
      it for writing does anyway), after copying it to PATH.format1-backup.

      EXAMPLE
        modelstore upgrade --store old.store

      """
    ),
    "import-coredata": (
      "copy a Core Data store into a ModelStore file",
      """
      USAGE
        modelstore import-coredata STORE --store OUT [--model PATH [--model-version NAME] [--version-order A,B,C]] [--progress]

      Copies a Core Data SQLite store (a simulator's .sqlite, with its -wal) into the
      ModelStore file OUT, all or nothing, and prints the objects per entity. The schema
      is inferred from the store's tables, or read from --model (a .xcdatamodeld,
      .xcdatamodel or contents file): of its versions, the one --model-version names, else
      the one whose properties fit the store's columns best; the command prints which and
      why, with a confidence. --version-order gives the versions' names oldest first. An
      OUT the command created (a file, or a PostgreSQL schema) is removed again if the
      import fails.

      EXAMPLE
        modelstore import-coredata Tasks.sqlite --store tasks.store

      """
    ),
    "studio": (
      "browse, query and edit a store in a local web page",
      """
      USAGE
        modelstore studio --store PATH [--format coredata [--model PATH [--model-version NAME] [--version-order A,B,C]]]
                          [--read-only] [--port N] [--open]

      Serves the store to a web page on 127.0.0.1 only, until Ctrl-C (SIGINT) or SIGTERM.
      Prints the page's URL on stdout; it holds a secret token that every request needs
      (the page keeps it in a cookie), so only who has the URL can reach the store. The
      page talks JSON-RPC as 'serve' does (POST /rpc) and receives live-query updates as
      Server-Sent Events (GET /events): protocol.md, "HTTP transport". Each open page has
      a session of its own; the page reaches no file but the store.

      OPTIONS
        --store PATH          the store to serve (it must exist): a file or a postgresql:// URL
        --format coredata     PATH is a Core Data SQLite store, read in place (read-only)
        --model MODEL         with --format coredata: its .xcdatamodeld / .xcdatamodel, for the
                              model's names, types and relationships (else inferred from the columns)
        --model-version NAME  with --model: the version the store was written with (else the one that fits best)
        --version-order A,B,C with --model: the versions' names, oldest first (else read from the names)
        --read-only           the page cannot write: every write is refused (readOnly)
        --port N              listen on port N (default: a free port)
        --open                open the URL with xdg-open
        --log-level LEVEL     error | warning (default) | info | debug, on stderr

      EXAMPLES
        modelstore studio --store tasks.store --read-only --open
        modelstore studio --format coredata --store Recipes.sqlite --model Recipes.xcdatamodeld

      """
    ),
    "xcdatamodel": (
      "read a Core Data model",
      """
      USAGE
        modelstore xcdatamodel PATH [--audit [--cloudkit] [--compare PATH2]] [--generate TARGET [--base-name NAME] [--out DIR [--force]]] [--report]
                               [--model-version NAME] [--version-order A,B,C]

      PATH is a .xcdatamodeld bundle, a .xcdatamodel directory or a 'contents' file.
      Prints the current version's schema as JSON (or the audit report, or the generated
      files, or with --report the whole import result) on stdout, and the findings on
      stderr: every version's errors, the printed version's warnings, and a summary that
      names the versions with errors. TARGET is swiftdata, coredata, typescript or python.
      --out writes the files into DIR, refusing to replace one that exists unless --force
      is given. --model-version prints (or audits) that version instead of the current one.
      --version-order gives the versions' names oldest first (else they are ordered by the
      version numbers in their names, the current version's name family last). Exit status
      1 when the printed version (or the bundle) has an error; errors of other versions
      are reported but do not fail the command.

      EXAMPLE
        modelstore xcdatamodel Tasks.xcdatamodeld --generate swiftdata --out Generated

      """
    ),
    "diagram": (
      "draw an entity-relationship diagram of a model, or of a migration",
      """
      USAGE
        modelstore diagram INPUT [--format mermaid|dot|svg|png] [--out FILE [--force]] [--version NAME | --plan FROM TO] [--coredata]

      Draws the model of INPUT as model.diagram does (protocol.md): entities with their
      attributes (type, optional ?, unique, indexed, transient), inheritance, and each
      relationship with its inverse, multiplicity, delete rule and ordered. INPUT is
        a store file             its current schema; --version / --plan name versions it has held
        SCHEMA.json (or -)       a schema, or a plan {"schemas": [...]} whose versions --plan names
        MODEL.xcdatamodeld       a Core Data model (a .xcdatamodel directory or a contents file too):
                                 its current version; --version / --plan name its versions
      With --coredata INPUT is a Core Data SQLite store, whose model is drawn.

      OPTIONS
        --format FORMAT     mermaid (a Mermaid classDiagram, the default), dot (Graphviz DOT),
                            svg or png (drawn by Graphviz's dot: Debian package graphviz)
        --out FILE          write to FILE (standard output when absent or -); an existing FILE
                            is refused unless --force is given
        --version NAME      draw this version instead of the current one
        --plan FROM TO      draw the migration from version FROM to version TO side by side:
                            renames, additions, removals and changes marked, ⚠ where stored
                            data may be lost
        --coredata          INPUT is a Core Data SQLite store

      EXAMPLE
        modelstore diagram tasks.store --format svg --out tasks.svg
        modelstore diagram Tasks.xcdatamodeld --plan "Tasks 2" "Tasks 3" --format png --out plan.png

      """
    ),
    "protocol": (
      "print the protocol description",
      """
      USAGE
        modelstore protocol --json

      Prints the machine-readable protocol description (OpenRPC style: methods, params,
      results) generated from the server's params types; protocol.json is its output.

      EXAMPLE
        modelstore protocol --json > protocol.json

      """
    ),
  ]

  /// The help of `command` (the overview for `serve` or an unknown one), with the exit
  /// statuses.
  static func text(_ command: String) -> String {
    guard let help = commands[command] else { return overview + exitStatuses }
    return "modelstore \(command): \(help.summary)\n\n" + help.text + exitStatuses
  }
}
