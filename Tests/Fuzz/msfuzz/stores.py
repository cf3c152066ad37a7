"""Where the campaigns' servers keep their stores: SQLite (in memory or a file of the fuzz
directory) or PostgreSQL (a fresh schema of a cluster per server, dropped after).

A target gives the arguments of each server (`session_args`), fresh ones for a replay of
the same messages (`replay_args`: the minimiser must start from an empty store), the
locations `store.open` is sent to (`location`), and removes what a server left behind
(`release`)."""

import os
import re
import subprocess
import urllib.parse

URL_ARG = re.compile(r"^postgres(ql)?:")


class SQLiteTarget:
    """Stores in memory, or in a new file of the fuzz directory (3 sessions in 10)."""

    name = "sqlite"

    def __init__(self, fuzz_dir):
        self.dir = fuzz_dir

    def session_args(self, rng):
        return ["--store", self.dir.fresh(".store")] if rng.random() < 0.3 else ["--memory"]

    def plain_args(self):
        return ["--memory"]

    def replay_args(self, args):
        return args

    def location(self, rng):
        return self.dir.write_path(rng)

    def release(self, args):
        pass

    def release_all(self):
        pass

    def describe(self, args):
        return ""


def psql_binary():
    for path in ["/usr/bin/psql"] + sorted(
            (os.path.join("/usr/lib/postgresql", v, "bin", "psql") for v in os.listdir("/usr/lib/postgresql"))
            if os.path.isdir("/usr/lib/postgresql") else [], reverse=True):
        if os.access(path, os.X_OK):
            return path
    return "psql"


def with_parameter(url, name, value):
    """`url` with one more parameter, in the URL's own form (a URI's query, or a keyword
    string's `name=value`)."""
    if url.startswith(("postgresql://", "postgres://")):
        return url + ("&" if "?" in url else "?") + "%s=%s" % (name, urllib.parse.quote(value, safe=""))
    return url + " %s='%s'" % (name, value.replace("\\", "\\\\").replace("'", "\\'"))


def raw(url, parameter):
    """`url` (a URI) with `parameter` appended as it is, percent signs and all."""
    return url + ("&" if "?" in url else "?") + parameter


class PostgresTarget:
    """A fresh schema of the cluster at `cluster_url` for every server (`msfz_PID_N`), the
    session's own schema or another fresh one for `store.open`, now and then a hostile
    location (a malformed URL, a database or role that does not exist, a schema that is not
    a store); every schema of the run starts with `prefix` and is dropped after its server
    ends (`release`) and at the end of the run (`release_all`)."""

    name = "postgresql"

    def __init__(self, cluster_url, tag=None):
        self.cluster = cluster_url
        self.prefix = "msfz_%s_" % (tag if tag is not None else os.getpid())
        self.serial = 0
        self.current = None  # the schema of the server running now
        self.psql = psql_binary()
        self.host = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(cluster_url).query)).get("host", "") \
            if cluster_url.startswith(("postgresql://", "postgres://")) else ""

    def fresh_schema(self):
        self.serial += 1
        return "%s%d" % (self.prefix, self.serial)

    def url(self, schema):
        return with_parameter(self.cluster, "schema", schema)

    def session_args(self, rng):
        self.current = self.fresh_schema()
        return ["--store", self.url(self.current)]

    def plain_args(self):
        return self.session_args(None)

    def replay_args(self, args):
        """The same arguments with the store in a new schema."""
        return [self.url(self.fresh_schema()) if URL_ARG.match(a) else a for a in args]

    def location(self, rng):
        r = rng.random()
        if r < 0.45 and self.current:
            return self.url(self.current)
        if r < 0.7:
            return self.url(self.fresh_schema())
        return self.hostile(rng)

    def hostile(self, rng):
        """A location the server must refuse precisely (or open as a new store), without
        waiting on the network: only this cluster's socket, a missing socket folder, and a
        TCP port nobody listens on."""
        c, p = self.cluster, self.prefix
        name = p + "h%d" % rng.randrange(1000)
        cases = [
            with_parameter(c, "schema", ""), with_parameter(c, "schema", p + "x" * 64),
            with_parameter(with_parameter(c, "schema", name), "schema", name + "b"),
            with_parameter(c, "bogus", "1"), raw(c, "schema=%zz"), raw(c, "schema=" + name + "%"),
            with_parameter(c, "schema", name + "\u00e9t\u00e9\U0001f600"), with_parameter(c, "schema", name + '"; x'),
            with_parameter(c, "schema", name + "'"), with_parameter(c, "schema", name + "MiXed"),
            raw(c, "schema=" + name + "%00x"), with_parameter(c, "schema", "pg_catalog"),
            with_parameter(c, "schema", "information_schema"), with_parameter(c, "schema", "pg_toast"),
            with_parameter(c.replace("/postgres?", "/msfz_no_such_db?", 1), "schema", name),
            with_parameter(c.replace("user=postgres", "user=ms_rejected_user"), "schema", name),
            with_parameter(c.replace("user=postgres", "user=ms_password_user"), "schema", name),
            with_parameter(with_parameter(c.replace("user=postgres", "user=ms_password_user"), "password", "wrong"),
                           "schema", name),
            with_parameter(c.replace("user=postgres", "user=msfz_no_such_role"), "schema", name),
            with_parameter(c.replace(self.host, "/nonexistent/socket/dir") if self.host else raw(c, "host=/nonexistent"),
                           "schema", name),
            "postgresql://127.0.0.1:1/postgres?connect_timeout=2&schema=" + name,
            with_parameter(with_parameter(c, "connect_timeout", "0"), "schema", name),
            with_parameter(with_parameter(c, "sslmode", "require"), "schema", name),
            with_parameter(with_parameter(c, "sslmode", "bogus"), "schema", name),
            with_parameter(with_parameter(c, "options", "-c search_path=pg_catalog"), "schema", name),
            with_parameter(with_parameter(c, "options", "-c default_transaction_read_only=on"), "schema", name),
            with_parameter(with_parameter(c, "target_session_attrs", "read-write"), "schema", name),
            "postgresql:host=%s user=postgres dbname=postgres schema=%s" % (self.host or "/tmp", name),
            "postgresql:host=%s schema='%s' schema=%s" % (self.host or "/tmp", name, name),
            "postgresql:host='%s dbname=postgres schema=%s" % (self.host or "/tmp", name),
            "postgresql:", "postgres:", "postgresql://", "postgresql://[::1", "postgresql://@/?schema=" + name,
            "postgresql://%zz@x/?schema=" + name, "postgresql:service=msfz_no_such_service schema=" + name,
            "POSTGRESQL:///postgres", "postgresql:///postgres?host=" + "x" * 2000,
        ]
        return rng.choice(cases)

    def release(self, args):
        """Drops the schema of the server that ran with `args` (it has ended), and the
        backups a migration made beside it."""
        for a in args:
            m = re.search(r"[?&]schema=(%s\d+)(&|$)" % re.escape(self.prefix), a)
            if m:
                self.drop("nspname = '{0}' OR starts_with(nspname, '{0}_before_')".format(m.group(1)))

    def release_all(self):
        """Drops every schema of the run (its servers have ended): the servers' stores,
        their backups, the schemas `store.open` made, hostile names."""
        self.drop("starts_with(nspname, '%s')" % self.prefix)

    def drop(self, condition):
        sql = ("SET lock_timeout = '30s'; DO $$DECLARE s text; BEGIN FOR s IN SELECT nspname FROM "
               "pg_catalog.pg_namespace WHERE %s LOOP EXECUTE format('DROP SCHEMA %%I CASCADE', s); END LOOP; END$$"
               % condition)
        try:
            self.run_sql(sql)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("fuzz: could not drop the run's schemas (%s); they are dropped at the end" % e, flush=True)

    def run_sql(self, sql):
        r = subprocess.run([self.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", self.cluster, "-c", sql],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("psql failed: %s" % r.stderr.decode("utf-8", "replace").strip())
        return r.stdout.decode("utf-8", "replace").strip()

    def check(self):
        """Raises when the cluster cannot be reached (before the run starts)."""
        self.run_sql("SELECT 1")

    def describe(self, args):
        return " (PostgreSQL: the store is a schema of the cluster; replay into a fresh one)"
