/*
 * cmd_serve.c: `sqe serve`: the coordinator process. For now it opens the embedded database and
 * serves the Trino client protocol on loopback.
 *
 *   sqe serve [--bind ADDR] [--trino-port N] [--threads N] [--http-threads N]
 *             [--drain-timeout SECONDS] [--max-sql-bytes N]
 *
 * SIGTERM or SIGINT starts a graceful shutdown: new statements are refused, running queries keep
 * going and their clients keep fetching until they are done or the drain deadline passes; then
 * the server stops.
 *
 * INTERFACE: cli_serve_main.
 * NOTES: the options live in serve_options, which the TOML configuration ([coordinator]) will
 * fill later. Without authentication the server refuses non-loopback addresses. Signals are
 * blocked in every thread (set before any thread starts) and taken synchronously with sigwait
 * by the main thread, so no handler runs inside the engine or libmicrohttpd.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "server/trino/trino_server.h"

typedef struct serve_options {
    trino_server_options trino;
    int threads;              /* engine worker threads; 0 = one per core */
    uint32_t drain_timeout_s; /* graceful shutdown deadline */
} serve_options;

static const char serve_usage[] =
    "usage: sqe serve [options]\n"
    "\n"
    "Serves the embedded in-memory database over the Trino client protocol (HTTP).\n"
    "\n"
    "options:\n"
    "      --bind ADDR           address to listen on (default 127.0.0.1; loopback only for now)\n"
    "      --trino-port N        Trino HTTP port (default 8080; 0 = any free port)\n"
    "      --threads N           engine worker threads (default: one per core)\n"
    "      --http-threads N      HTTP thread pool size (default: max(8, 2 x cores))\n"
    "      --drain-timeout SEC   graceful shutdown deadline in seconds (default 30)\n"
    "      --max-sql-bytes N     largest statement accepted (default 1048576)\n"
    "  -h, --help                show this help\n"
    "\n"
    "SIGTERM or SIGINT drains: new statements are refused, running ones finish (up to the\n"
    "deadline), then the server exits. Connect with any Trino client, e.g.\n"
    "  trino --server http://127.0.0.1:8080 --user me\n";

/* Matches "--name VALUE" or "--name=VALUE". Returns 1 and sets *value when it matches, -1 when
 * the value is missing, 0 when argv[*i] is another option. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value) {
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) == 0 && arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (strcmp(arg, name) != 0) return 0;
    if (*i + 1 >= argc) return -1;
    *value = argv[++*i];
    return 1;
}

static int parse_uint(const char *text, unsigned long long max, unsigned long long *out) {
    if (!text || !*text || strspn(text, "0123456789") != strlen(text)) return -1;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno || v > max) return -1;
    *out = v;
    return 0;
}

static int is_loopback(const char *addr) {
    return strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0;
}

/* Parses the options; returns 0, 2 after a usage error, or 3 for --help. */
static int parse_options(int argc, char **argv, serve_options *opt) {
    trino_server_options_init(&opt->trino);
    opt->threads = 0;
    opt->drain_timeout_s = 30;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(serve_usage, stdout);
            return 3;
        }
        static const char *const names[] = {"--bind",         "--trino-port",    "--threads",
                                             "--http-threads", "--drain-timeout", "--max-sql-bytes"};
        int which = -1, m = 0;
        for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++) {
            m = option_value(argc, argv, &i, names[k], &value);
            if (m) {
                which = k;
                break;
            }
        }
        if (m < 0) {
            fprintf(stderr, "sqe serve: option %s needs a value\n", arg);
            return 2;
        }
        if (which < 0) {
            fprintf(stderr, "sqe serve: unknown option '%s'\n\n%s", arg, serve_usage);
            return 2;
        }
        unsigned long long v = 0;
        switch (which) {
        case 0:
            if (!is_loopback(value)) {
                fprintf(stderr, "sqe serve: --bind %s: only loopback addresses (127.x.x.x, ::1) "
                                "are allowed until authentication is configured\n", value);
                return 2;
            }
            opt->trino.bind_address = value;
            continue;
        case 1:
            if (parse_uint(value, 65535, &v)) break;
            opt->trino.port = (uint16_t)v;
            continue;
        case 2:
            if (parse_uint(value, 1024, &v)) break;
            opt->threads = (int)v;
            continue;
        case 3:
            if (parse_uint(value, 1024, &v)) break;
            opt->trino.http_threads = (uint32_t)v;
            continue;
        case 4:
            if (parse_uint(value, 86400, &v)) break;
            opt->drain_timeout_s = (uint32_t)v;
            continue;
        case 5:
            if (parse_uint(value, (unsigned long long)1 << 30, &v) || v == 0) break;
            opt->trino.max_sql_bytes = (size_t)v;
            continue;
        }
        fprintf(stderr, "sqe serve: invalid value '%s' for %s\n", value, names[which]);
        return 2;
    }
    return 0;
}

int cli_serve_main(int argc, char **argv) {
    serve_options opt;
    int prc = parse_options(argc, argv, &opt);
    if (prc == 3) return 0;
    if (prc) return prc;

    /* Block the shutdown signals before any thread exists: every thread inherits the mask and
     * only sigwait below receives them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    sqe_error err;
    memset(&err, 0, sizeof err);
    sqe_db_options dbo = {.threads = opt.threads, .memory_limit = 0};
    sqe_db *db = NULL;
    if (sqe_db_open(&dbo, &db, &err) != SQE_OK) {
        fprintf(stderr, "sqe serve: cannot open the database: %s\n", err.message);
        return 1;
    }
    trino_server *srv = NULL;
    if (trino_server_create(db, &opt.trino, &srv, &err) != SQE_OK) {
        fprintf(stderr, "sqe serve: Trino HTTP: %s\n", err.message);
        sqe_db_close(db);
        return 1;
    }
    const char *addr = opt.trino.bind_address;
    fprintf(stderr, "sqe serve: Trino protocol on http://%s%s%s:%u (anonymous, loopback only)\n",
            strchr(addr, ':') ? "[" : "", addr, strchr(addr, ':') ? "]" : "",
            trino_server_port(srv));
    fflush(stderr);

    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    fprintf(stderr, "sqe serve: %s received, draining (up to %u s)\n",
            sig == SIGTERM ? "SIGTERM" : "SIGINT", opt.drain_timeout_s);
    fflush(stderr);

    uint32_t left = trino_server_drain(srv, opt.drain_timeout_s * 1000);
    if (left)
        fprintf(stderr, "sqe serve: %u queries still running at the deadline; canceling\n", left);
    trino_server_destroy(srv);
    sqe_db_close(db);
    fprintf(stderr, "sqe serve: stopped\n");
    return 0;
}
