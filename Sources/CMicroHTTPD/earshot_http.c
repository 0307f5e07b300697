#include "earshot_http.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// libmicrohttpd's own unescaping, but for "%00": decoded, a NUL would end the C string the handler is given, and
// "/api/voices/a%00b/enroll" would reach the handler as "/api/voices/a". Left as written, it is an ordinary character
// that no route or name accepts.
static size_t earshot_unescape(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    char *out = text;
    for (const char *in = text; *in != '\0'; ) {
        int high, low;
        if (in[0] == '%' && (high = hex_value(in[1])) >= 0 && (low = hex_value(in[2])) >= 0 && (high | low) != 0) {
            *out++ = (char)(high * 16 + low);
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - text);
}

struct MHD_Daemon *earshot_http_start(const char *host, uint16_t port, unsigned connection_limit, unsigned per_ip_limit,
                                      unsigned threads, unsigned timeout_seconds,
                                      MHD_AccessHandlerCallback handler, void *handler_cls,
                                      MHD_RequestCompletedCallback completed, void *completed_cls,
                                      MHD_NotifyConnectionCallback connections, void *connections_cls,
                                      char *error, size_t error_size) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)port);
    int rc = getaddrinfo(host, service, &hints, &found);
    if (rc != 0 || found == NULL) {
        snprintf(error, error_size, "cannot use address %s: %s", host, gai_strerror(rc));
        return NULL;
    }
    // an event loop on a few threads: an idle or trickling socket costs a descriptor, not a thread; requests whose
    // answer takes time are suspended and resumed when it is ready. poll(), not epoll: libmicrohttpd's epoll mode
    // (edge-triggered) missed a client's half-close in the middle of a request head for ~12 s at a time, where
    // poll sees it at once. Like the rest of libmicrohttpd it takes a half-close as the client leaving.
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_ALLOW_SUSPEND_RESUME | MHD_ALLOW_UPGRADE;
    if (found->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, NULL, NULL, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, found->ai_addr,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, connections, connections_cls,
        MHD_OPTION_UNESCAPE_CALLBACK, earshot_unescape, NULL,
        MHD_OPTION_END);
    freeaddrinfo(found);
    if (daemon == NULL) snprintf(error, error_size, "cannot listen on %s port %u (in use, or not an address of this machine)",
                                 host, (unsigned)port);
    return daemon;
}

uint16_t earshot_http_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void earshot_http_upgrade_close(struct MHD_UpgradeResponseHandle *handle) {
    MHD_upgrade_action(handle, MHD_UPGRADE_ACTION_CLOSE);
}

int earshot_http_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
