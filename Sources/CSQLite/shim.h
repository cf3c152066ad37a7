#ifndef MODELSTORE_CSQLITE_SHIM_H
#define MODELSTORE_CSQLITE_SHIM_H
// The SQLite API that Swift cannot import directly: variadic configuration
// calls and the SQLITE_TRANSIENT destructor macro.
#include <sqlite3.h>
#include <string.h>

#include "journal_vfs.h"

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

/// Process-wide settings, made before the first connection opens (later, SQLite refuses
/// them with SQLITE_MISUSE and keeps its defaults): no memory statistics, so that each of
/// SQLite's allocations skips a global mutex and its counters (nothing here reads them, and
/// no soft heap limit is set); a statement or savepoint journal kept in memory up to
/// `spill` bytes (SQLite's default is 64 KiB: past it the journal becomes a temporary file
/// and stays one until the transaction ends, so every later savepoint of a long client
/// transaction wrote each page it changed there with a system call); and the VFS that
/// writes such a journal's file in pieces the unix VFS takes (journal_vfs.h), without which
/// a spill above 128 KiB fails with SQLITE_FULL.
static inline int cs_configure_process(int spill) {
  int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  if (rc == SQLITE_OK) rc = sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, spill);
  if (rc == SQLITE_OK) rc = cs_register_journal_vfs();
  return rc;
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

/// Copies the WAL-index header of `db`'s main database into `out` (48 bytes): the header
/// at the start of its shared memory (sqlite.org/walformat.html, "The WAL-Index Header"),
/// kept in two copies that every commit rewrites (the second copy, a memory barrier, the
/// first), read here without a lock as SQLite's readers first read them (the first copy, a
/// barrier, the second). Returns 1 when the copies agree, 0 when they differ (a writer is
/// rewriting them) or no shared memory is mapped. Call only on a connection in WAL mode
/// that has read the database, so that the mapping exists (xShmMap would create it).
static inline int cs_wal_index_header(sqlite3 *db, unsigned char *out) {
  sqlite3_file *file = 0;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file || !file->pMethods
      || file->pMethods->iVersion < 2 || !file->pMethods->xShmMap || !file->pMethods->xShmBarrier)
    return 0;
  void volatile *shm = 0;
  if (file->pMethods->xShmMap(file, 0, 32768, 0, &shm) != SQLITE_OK || !shm) return 0;
  const volatile unsigned char *p = (const volatile unsigned char *)shm;
  unsigned char second[48];
  file->pMethods->xShmBarrier(file);
  for (int i = 0; i < 48; i++) out[i] = p[i];
  file->pMethods->xShmBarrier(file);
  for (int i = 0; i < 48; i++) second[i] = p[48 + i];
  return memcmp(out, second, 48) == 0;
}

#endif
