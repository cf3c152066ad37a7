#ifndef MODELSTORE_CSQLITE_SHIM_H
#define MODELSTORE_CSQLITE_SHIM_H
// The SQLite API that Swift cannot import directly: variadic configuration
// calls and the SQLITE_TRANSIENT destructor macro.
#include <sqlite3.h>

/// sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML/DDL, 0): string literals must be
/// single-quoted, so a misquoted identifier fails instead of becoming a string.
static inline void cs_disable_dqs(sqlite3 *db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
}

/// sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1): no writes to shadow tables
/// or schema corruption through SQL.
static inline void cs_enable_defensive(sqlite3 *db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (void *)0);
}

/// SQLITE_TRANSIENT: SQLite copies bound text and blobs before returning.
static inline sqlite3_destructor_type cs_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_bind_text with SQLITE_TRANSIENT.
static inline int cs_bind_text(sqlite3_stmt *s, int i, const char *p, int n) {
  return sqlite3_bind_text(s, i, p, n, SQLITE_TRANSIENT);
}

/// sqlite3_bind_blob with SQLITE_TRANSIENT.
static inline int cs_bind_blob(sqlite3_stmt *s, int i, const void *p, int n) {
  return sqlite3_bind_blob(s, i, p, n, SQLITE_TRANSIENT);
}

#endif
