// The parts of libmicrohttpd Swift cannot call directly: MHD_start_daemon takes its options as C varargs,
// and the daemon's bound port comes back in a union. Everything else Swift calls in <microhttpd.h> itself.
#ifndef EARSHOT_HTTP_H
#define EARSHOT_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon on `host` (a numeric IPv4/IPv6 address or a name that resolves to one) and `port` (0 picks a
/// free one): an epoll event loop on `threads` threads with suspend/resume, at most `connection_limit` connections
/// (`per_ip_limit` from one address), idle ones closed after `timeout_seconds`; `connections` hears each connection
/// start and close. Returns NULL with a reason in `error`
/// when the address cannot be used.
struct MHD_Daemon *earshot_http_start(const char *host, uint16_t port, unsigned connection_limit, unsigned per_ip_limit,
                                      unsigned threads, unsigned timeout_seconds,
                                      MHD_AccessHandlerCallback handler, void *handler_cls,
                                      MHD_RequestCompletedCallback completed, void *completed_cls,
                                      MHD_NotifyConnectionCallback connections, void *connections_cls,
                                      char *error, size_t error_size);

/// The port the daemon listens on (the chosen one when started with port 0).
uint16_t earshot_http_port(struct MHD_Daemon *daemon);

/// A connection's socket (the union of MHD_get_connection_info is out of Swift's reach); -1 when unknown.
int earshot_http_connection_fd(struct MHD_Connection *connection);

/// Gives an upgraded (WebSocket) connection's socket back to libmicrohttpd to close: MHD_upgrade_action takes C
/// varargs, which Swift cannot call.
void earshot_http_upgrade_close(struct MHD_UpgradeResponseHandle *handle);

#endif
