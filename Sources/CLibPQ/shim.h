// libpq, PostgreSQL's client library (Debian's libpq-dev), for PostgresCore alone.
#include <libpq-fe.h>

// The error fields PostgresCore reads (postgres_ext.h defines them as character
// constants, which Swift does not import).
static const int cpq_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int cpq_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int cpq_diag_message_detail = PG_DIAG_MESSAGE_DETAIL;
static const int cpq_diag_constraint_name = PG_DIAG_CONSTRAINT_NAME;

// A notice processor that drops notices (libpq's default prints them to stderr, which a
// server speaking JSON-RPC on stdout/stderr must not get unasked).
static inline void cpq_ignore_notice(void *arg, const char *message) {
  (void)arg;
  (void)message;
}
static inline void cpq_silence_notices(PGconn *conn) { PQsetNoticeProcessor(conn, cpq_ignore_notice, 0); }
