#ifndef MODELSTORE_CSQLITE_JOURNAL_VFS_H
#define MODELSTORE_CSQLITE_JOURNAL_VFS_H
// A VFS that is the default (unix) one except for statement journals' files.
#include <sqlite3.h>

/// The unix VFS's write keeps only the low 17 bits of its count (`nBuf &= 0x1ffff` in
/// seekAndWriteFd: SQLite's own writes are a page, 64 KiB at most) and reports a write that
/// came out short as SQLITE_FULL. A statement journal kept in memory
/// (`SQLITE_CONFIG_STMTJRNL_SPILL`) is one chunk of the spill size, which SQLite writes to
/// the temporary file with one call when the journal spills: past 128 KiB that write came
/// out short (a 4 MiB chunk wrote nothing) and the statement failed with SQLITE_FULL,
/// errno 0. This VFS is the unix one, except that a statement journal's file writes in
/// pieces of 64 KiB; every other file is opened by the unix VFS as it is, untouched.
typedef struct cs_split_file {
  sqlite3_file base;
  sqlite3_file *real; /* the unix file, in the space right after this header */
} cs_split_file;

#define CS_REAL(f) (((cs_split_file *)(f))->real)
static int cs_split_close(sqlite3_file *f) { return CS_REAL(f)->pMethods->xClose(CS_REAL(f)); }
static int cs_split_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return CS_REAL(f)->pMethods->xRead(CS_REAL(f), b, n, o); }
static int cs_split_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  const char *p = (const char *)b;
  while (n > 0) {
    int k = n < 65536 ? n : 65536;
    int rc = CS_REAL(f)->pMethods->xWrite(CS_REAL(f), p, k, o);
    if (rc != SQLITE_OK) return rc;
    p += k;
    o += k;
    n -= k;
  }
  return SQLITE_OK;
}
static int cs_split_truncate(sqlite3_file *f, sqlite3_int64 s) { return CS_REAL(f)->pMethods->xTruncate(CS_REAL(f), s); }
static int cs_split_sync(sqlite3_file *f, int flags) { return CS_REAL(f)->pMethods->xSync(CS_REAL(f), flags); }
static int cs_split_size(sqlite3_file *f, sqlite3_int64 *s) { return CS_REAL(f)->pMethods->xFileSize(CS_REAL(f), s); }
static int cs_split_lock(sqlite3_file *f, int l) { return CS_REAL(f)->pMethods->xLock(CS_REAL(f), l); }
static int cs_split_unlock(sqlite3_file *f, int l) { return CS_REAL(f)->pMethods->xUnlock(CS_REAL(f), l); }
static int cs_split_reserved(sqlite3_file *f, int *r) { return CS_REAL(f)->pMethods->xCheckReservedLock(CS_REAL(f), r); }
static int cs_split_control(sqlite3_file *f, int op, void *a) { return CS_REAL(f)->pMethods->xFileControl(CS_REAL(f), op, a); }
static int cs_split_sector(sqlite3_file *f) { return CS_REAL(f)->pMethods->xSectorSize(CS_REAL(f)); }
static int cs_split_device(sqlite3_file *f) { return CS_REAL(f)->pMethods->xDeviceCharacteristics(CS_REAL(f)); }
#undef CS_REAL

static const sqlite3_io_methods cs_split_methods = {
  1, cs_split_close, cs_split_read, cs_split_write, cs_split_truncate, cs_split_sync, cs_split_size,
  cs_split_lock, cs_split_unlock, cs_split_reserved, cs_split_control, cs_split_sector, cs_split_device,
};

static int cs_split_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
  sqlite3_vfs *unix_vfs = (sqlite3_vfs *)vfs->pAppData;
  if (!(flags & SQLITE_OPEN_SUBJOURNAL)) return unix_vfs->xOpen(unix_vfs, name, f, flags, out);
  cs_split_file *s = (cs_split_file *)f;
  s->real = (sqlite3_file *)(s + 1);
  int rc = unix_vfs->xOpen(unix_vfs, name, s->real, flags, out);
  /* SQLite calls xClose whenever pMethods is set, even after a failed open. */
  s->base.pMethods = s->real->pMethods ? &cs_split_methods : 0;
  return rc;
}

/// Registers the VFS above as the default, wrapping the default one (once, at start-up,
/// after sqlite3_config: finding the default VFS initializes SQLite).
static inline int cs_register_journal_vfs(void) {
  sqlite3_vfs *unix_vfs = sqlite3_vfs_find(0);
  if (!unix_vfs) return SQLITE_ERROR;
  sqlite3_vfs *vfs = (sqlite3_vfs *)sqlite3_malloc(sizeof(sqlite3_vfs));
  if (!vfs) return SQLITE_NOMEM;
  *vfs = *unix_vfs;
  vfs->szOsFile = (int)sizeof(cs_split_file) + unix_vfs->szOsFile;
  vfs->zName = "modelstore-unix";
  vfs->pAppData = unix_vfs;
  vfs->xOpen = cs_split_open;
  return sqlite3_vfs_register(vfs, 1);
}

#endif
