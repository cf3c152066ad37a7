#ifndef MODELSTORE_CMICROHTTPD_SHIM_H
#define MODELSTORE_CMICROHTTPD_SHIM_H
// GNU libmicrohttpd (Debian's libmicrohttpd-dev), for the HTTPServer module. Swift cannot
// call C's variadic functions, so the ones the server needs (starting a daemon with its
// options, asking it for its port, a connection for its socket) are wrapped here with
// fixed arguments. Nothing else
// lives on the C side.
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// libmicrohttpd's decoding of %HH escapes in the path and the query arguments, except
/// that a text holding an escaped NUL (`%00`) is left as it came: decoded, the C string
/// handed to the server would end at the NUL, so `/assets/main.js%00.png` would name
/// `/assets/main.js`. Left undecoded it names no page or argument the server knows.
static inline size_t ms_mhd_unescape(void *cls, struct MHD_Connection *connection, char *text) {
  (void)cls;
  (void)connection;
  if (strstr(text, "%00") != NULL) return strlen(text);
  return MHD_http_unescape(text);
}

/// Starts a daemon that listens on 127.0.0.1:port only (port 0: a free port the kernel
/// picks), with its own listening thread and one thread per connection (a handler may
/// block: a request waits for its session, an event stream for its next event), which wait
/// with poll(), not select(): select() refuses descriptors past 1023, and the process may
/// hold more (store connections, pipes) before the daemon makes its sockets. HTTP is
/// parsed strictly (MHD_OPTION_STRICT_FOR_CLIENT 1), escapes decoded by `ms_mhd_unescape`. NULL when it cannot start (the port
/// is taken, no thread); libmicrohttpd then logs why on stderr.
static inline struct MHD_Daemon *ms_mhd_start_loopback(
    uint16_t port, MHD_AccessHandlerCallback handler, void *handler_cls, MHD_RequestCompletedCallback completed,
    void *completed_cls, unsigned int connection_limit, unsigned int timeout_seconds) {
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, port, NULL, NULL, handler,
      handler_cls, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address, MHD_OPTION_NOTIFY_COMPLETED, completed,
      completed_cls, MHD_OPTION_CONNECTION_LIMIT, connection_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
      MHD_OPTION_STRICT_FOR_CLIENT, (int)1, MHD_OPTION_UNESCAPE_CALLBACK, ms_mhd_unescape, NULL, MHD_OPTION_END);
}

/// The port the daemon listens on (the one the kernel picked for port 0); 0 if unknown.
static inline uint16_t ms_mhd_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info ? info->port : 0;
}

/// The socket of a connection (-1 if unknown): a handler that waits polls it to notice
/// that the client left.
static inline int ms_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info ? info->connect_fd : -1;
}

#endif
