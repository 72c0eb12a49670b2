/*
 * cmd_serve.c: `sqe serve`: the coordinator process. Loads the configuration, builds the server
 * core (authentication, sessions, limits, health), opens the database and serves the Trino HTTP
 * protocol (and Arrow Flight SQL when built with it) until SIGTERM or SIGINT, then drains.
 *
 *   sqe serve [--config FILE] [--bind ADDR] [--trino-port N] [--flight-port N]
 *             [--health-port N] [--threads N] [--http-threads N] [--drain-timeout SECONDS]
 *             [--max-sql-bytes N] [--request-timeout SECONDS]
 *
 * INTERFACE: cli_serve_main.
 * NOTES:
 * - Configuration: defaults (embedded: loopback only, anonymous from loopback only) -> the file
 *   of --config -> SQE_<SECTION>__<KEY> environment variables -> command-line flags. Errors stop
 *   startup with file, line and key (config.h formats them); exit status 2.
 * - Startup order: core (users file, sessions) -> database -> listeners -> ready. /readyz says
 *   503 "starting" until every listener is up and 503 "draining" once a signal arrived.
 * - Signals are blocked in every thread (set before any thread starts) and taken synchronously
 *   with sigwait by the main thread, so no handler runs inside the engine or libmicrohttpd.
 * - Drain: every listener refuses new statements at once, running ones get until one deadline
 *   ([coordinator] shutdown_drain), then are canceled; a watchdog exits the process (status 1)
 *   DRAIN_CANCEL_GRACE_MS after the deadline, or at a second signal, if they have not stopped.
 * - [metrics] health_port: a listener of its own for /healthz and /readyz. If the port comes
 *   only from the defaults and is busy, startup goes on with a warning (two embedded servers on
 *   one machine must not fail); a configured port that is busy is an error.
 * - Catalogs: a [catalog] of type sqlite (or memory) is the database's own; a REST [catalog] and
 *   every [catalogs.NAME] are added by cli_catalogs_attach, so several catalogs can be joined in
 *   one query. The user's bearer token reaches REST catalogs in the principal the core's
 *   authenticate hook gives (srv_core.c), which each session runs as.
 * - Safety (docs/security.md): unsupported settings are refused (config_check_supported); as
 *   root the server warns, and refuses to start in production mode; object-store calls
 *   without an identity get no credentials (io_forbid_ambient_credentials); the database gets
 *   the path policy and limits of serve_settings.c before any listener starts.
 * - Flight SQL: started when the build defines SQE_WITH_FLIGHT (src/server/flight builds and
 *   links); otherwise a configured flight_sql_port is reported as not available.
 */
#include <errno.h>
#include <openssl/crypto.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_catalogs.h"
#include "cli/serve_settings.h"
#include "common/clock.h"
#include "common/config.h"
#include "io/io.h"
#include "server/core/srv_core.h"
#include "server/trino/trino_server.h"
#ifdef SQE_WITH_FLIGHT
#include "server/flight/flight_server.h"
#endif

/* How long canceled queries get to stop after the drain deadline before the process exits
 * without waiting for them (a query that cannot stop must not keep the process alive). */
#define DRAIN_CANCEL_GRACE_MS 5000

/* system.runtime.sessions: the engine asks for the live sessions of both front ends (Trino's
 * open queries, Flight's sessions). The front ends are attached once created and detached
 * (write lock: no listing still runs in them) before they are destroyed. */
typedef struct serve_sessions {
    pthread_rwlock_t lock;
    trino_server *trino;
#ifdef SQE_WITH_FLIGHT
    flight_server *flight;
#endif
} serve_sessions;

static int serve_list_sessions(void *ud, sqe_session_emit emit, void *ctx, sqe_error *err) {
    serve_sessions *ss = ud;
    int rc = SQE_OK;
    pthread_rwlock_rdlock(&ss->lock);
    if (ss->trino) rc = trino_server_list_sessions(ss->trino, emit, ctx, err);
#ifdef SQE_WITH_FLIGHT
    if (!rc && ss->flight) rc = flight_server_list_sessions(ss->flight, emit, ctx, err);
#endif
    pthread_rwlock_unlock(&ss->lock);
    return rc;
}

static uint32_t remaining_ms(int64_t until) {
    int64_t left = until - clock_mono_ms();
    return left > 0 ? (uint32_t)left : 0;
}

/* The drain's backstop: once the deadline plus DRAIN_CANCEL_GRACE_MS has passed, or a second
 * SIGTERM/SIGINT arrives, the process exits (status 1) whatever is still running. */
typedef struct drain_watchdog {
    sigset_t set;
    uint32_t ms;
} drain_watchdog;

static void *drain_watchdog_main(void *arg) {
    drain_watchdog *w = arg;
    struct timespec ts = {w->ms / 1000, (long)(w->ms % 1000) * 1000000L};
    int sig;
    while ((sig = sigtimedwait(&w->set, NULL, &ts)) < 0 && errno == EINTR) {
    }
    fprintf(stderr, "sqe serve: %s; exiting without waiting for running queries\n",
            sig > 0 ? "second signal received" : "queries did not stop by the drain deadline");
    fflush(stderr);
    _exit(1);
    return NULL;
}

static void start_drain_watchdog(const sigset_t *set, uint32_t drain_ms) {
    static drain_watchdog w;
    w.set = *set;
    uint64_t ms = (uint64_t)drain_ms + DRAIN_CANCEL_GRACE_MS;
    w.ms = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    pthread_t t;
    if (pthread_create(&t, NULL, drain_watchdog_main, &w) == 0) pthread_detach(t);
}

/* Command-line flags; -1 / NULL = not given (the configuration decides). */
typedef struct serve_flags {
    const char *config_path;
    const char *bind;
    long trino_port, flight_port, health_port;
    long threads, http_threads, drain_timeout_s, max_sql_bytes, request_timeout_s;
} serve_flags;

static const char serve_usage[] =
    "usage: sqe serve [--config FILE] [options]\n"
    "\n"
    "Runs the coordinator: the Trino HTTP protocol (and Arrow Flight SQL when built with it)\n"
    "over the database described by the configuration.\n"
    "\n"
    "options (each overrides the configuration file and the environment):\n"
    "      --config FILE         configuration file (TOML; see docs/configuration.md)\n"
    "      --bind ADDR           address to listen on ([coordinator] bind_address)\n"
    "      --trino-port N        Trino HTTP port; 0 = any free port ([coordinator] trino_http_port)\n"
    "      --flight-port N       Flight SQL port; 0 disables ([coordinator] flight_sql_port)\n"
    "      --health-port N       /healthz and /readyz listener; 0 disables ([metrics] health_port)\n"
    "      --threads N           engine worker threads; 0 = one per core ([coordinator] threads)\n"
    "      --http-threads N      HTTP thread pool size (default: max(8, 2 x cores))\n"
    "      --drain-timeout SEC   graceful shutdown deadline ([coordinator] shutdown_drain)\n"
    "      --max-sql-bytes N     largest statement accepted ([query] max_sql_bytes)\n"
    "      --request-timeout SEC a request's headers and body must arrive within this (30)\n"
    "  -h, --help                show this help\n"
    "\n"
    "Environment: SQE_<SECTION>__<KEY>, e.g. SQE_QUERY__TIMEOUT=30s.\n"
    "SIGTERM or SIGINT drains: new statements are refused, running ones finish (up to the\n"
    "deadline), then the server exits 0. Connect with any Trino client, e.g.\n"
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

static int parse_uint(const char *text, unsigned long long max, long *out) {
    if (!text || !*text || strspn(text, "0123456789") != strlen(text)) return -1;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno || v > max) return -1;
    *out = (long)v;
    return 0;
}

/* Parses the flags; returns 0, 2 after a usage error, or 3 for --help. */
static int parse_flags(int argc, char **argv, serve_flags *f) {
    memset(f, 0, sizeof *f);
    f->trino_port = f->flight_port = f->health_port = -1;
    f->threads = f->http_threads = f->drain_timeout_s = f->max_sql_bytes = -1;
    f->request_timeout_s = -1;
    static const char *const names[] = {
        "--config",        "--bind",          "--trino-port",    "--flight-port",
        "--health-port",   "--threads",       "--http-threads",  "--drain-timeout",
        "--max-sql-bytes", "--request-timeout"};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(serve_usage, stdout);
            return 3;
        }
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
        int bad = 0;
        switch (which) {
        case 0: f->config_path = value; break;
        case 1: f->bind = value; break;
        case 2: bad = parse_uint(value, 65535, &f->trino_port); break;
        case 3: bad = parse_uint(value, 65535, &f->flight_port); break;
        case 4: bad = parse_uint(value, 65535, &f->health_port); break;
        case 5: bad = parse_uint(value, 4096, &f->threads); break;
        case 6: bad = parse_uint(value, 1024, &f->http_threads); break;
        case 7: bad = parse_uint(value, 86400, &f->drain_timeout_s); break;
        case 8:
            bad = parse_uint(value, (unsigned long long)1 << 30, &f->max_sql_bytes) ||
                  f->max_sql_bytes == 0;
            break;
        case 9:
            bad = parse_uint(value, 3600, &f->request_timeout_s) || f->request_timeout_s == 0;
            break;
        }
        if (bad) {
            fprintf(stderr, "sqe serve: invalid value '%s' for %s\n", value, names[which]);
            return 2;
        }
    }
    return 0;
}

/* The flags win over the file and the environment. Returns 0 or 2 (message printed). */
static int apply_flags(const serve_flags *f, config *cfg) {
    config_coordinator *co = &cfg->coordinator;
    if (f->bind) {
        char *b = arena_strdup(&cfg->arena, f->bind);
        if (!b) return 2;
        co->bind_address = b;
    }
    if (f->trino_port >= 0) co->trino_http_port = (int)f->trino_port;
    if (f->flight_port >= 0) co->flight_sql_port = (int)f->flight_port;
    if (f->health_port >= 0) cfg->metrics.health_port = (int)f->health_port;
    if (f->threads >= 0) co->threads = f->threads;
    if (f->drain_timeout_s >= 0) co->shutdown_drain_ms = (int64_t)f->drain_timeout_s * 1000;
    if (f->max_sql_bytes > 0) cfg->query.max_sql_bytes = f->max_sql_bytes;
    return 0;
}

/* "host:port" for log lines (IPv6 in brackets). */
static void endpoint(const char *addr, unsigned port, char *buf, size_t n) {
    bool v6 = strchr(addr, ':') != NULL;
    snprintf(buf, n, "%s%s%s:%u", v6 ? "[" : "", addr, v6 ? "]" : "", port);
}

/* The key's origin is the defaults (not the file, not the environment). */
static bool from_default(const config *cfg, const char *section, const char *name) {
    size_t n;
    const config_key *keys = config_keys(&n);
    for (size_t i = 0; i < n && i < CONFIG_MAX_KEYS; i++)
        if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, name))
            return cfg->origin[i].source == CONFIG_DEFAULT;
    return true;
}

int cli_serve_main(int argc, char **argv) {
    serve_flags flags;
    int prc = parse_flags(argc, argv, &flags);
    if (prc == 3) return 0;
    if (prc) return prc;

    config cfg;
    sqe_error err;
    memset(&err, 0, sizeof err);
    if (config_load(&cfg, flags.config_path, NULL, &err) != SQE_OK) {
        fprintf(stderr, "sqe serve: configuration error: %s\n", err.message);
        return 2;
    }
    if (apply_flags(&flags, &cfg)) {
        fprintf(stderr, "sqe serve: out of memory\n");
        config_reset(&cfg);
        return 1;
    }
    bool health_port_defaulted = flags.health_port < 0 && from_default(&cfg, "metrics", "health_port");
    if (config_validate(&cfg, &err) != SQE_OK || /* the flags may clash (ports) */
        config_check_supported(&cfg, &err) != SQE_OK) {
        fprintf(stderr, "sqe serve: configuration error: %s\n", err.message);
        config_reset(&cfg);
        return 2;
    }
    const config_coordinator *co = &cfg.coordinator;
    if (geteuid() == 0) {
        if (co->production_mode) {
            fprintf(stderr, "sqe serve: refusing to run as root in production mode ([coordinator] "
                            "production_mode): start it as an unprivileged user that owns only "
                            "the data directory\n");
            config_reset(&cfg);
            return 2;
        }
        fprintf(stderr, "sqe serve: WARNING: running as root: every file the server may touch is "
                        "every file of the machine; run it as an unprivileged user\n");
    }
    /* no session may borrow the process's own object-store credentials (io.h) */
    io_forbid_ambient_credentials();
    bool anonymous = !strcmp(cfg.auth.mode, "anonymous");
    if (anonymous && !cfg.auth.anonymous_loopback_only &&
        strncmp(co->bind_address, "127.", 4) != 0 && strcmp(co->bind_address, "::1") != 0)
        fprintf(stderr, "sqe serve: WARNING: anonymous access from any address on %s "
                        "([auth] anonymous_loopback_only = false)\n", co->bind_address);

    /* Block the shutdown signals before any thread exists: every thread inherits the mask and
     * only sigwait below receives them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    int status = 1;
    srv_core *core = NULL;
    sqe_db *db = NULL;
    trino_server *trino = NULL;
    http_server *health = NULL; /* [metrics] health_port: health.c's routes on a port of their own */
#ifdef SQE_WITH_FLIGHT
    flight_server *flight = NULL;
#endif
    char where[320];
    char *oauth2_secret = NULL; /* [auth.oidc]'s client secret, until the Trino server has it */
    serve_sessions sessions = {.lock = PTHREAD_RWLOCK_INITIALIZER};

    if (srv_core_create(&cfg, &core, &err) != SQE_OK) {
        fprintf(stderr, "sqe serve: %s\n", err.message);
        goto out;
    }
    health_state *hs = srv_core_health(core);

    /* the database: the default Iceberg catalog of [catalog], then a REST [catalog] and every
     * [catalogs.NAME] (the same opening `sqe sql` does) */
    sqe_db_options dbo;
    memset(&dbo, 0, sizeof dbo);
    dbo.threads = (int)co->threads;
    if (cli_database_open(&cfg, &dbo, &db, &err) != SQE_OK) {
        fprintf(stderr, "sqe serve: cannot open the database: %s\n", err.message);
        goto out;
    }
    /* what SQL may reach of files and object stores, and the memory and result limits */
    if (serve_settings_apply(&cfg, db, &err) != SQE_OK) {
        fprintf(stderr, "sqe serve: configuration error: %s\n", err.message);
        status = 2;
        goto out;
    }
    sqe_db_set_session_lister(db, serve_list_sessions, &sessions);

    if (co->trino_http_port) {
        trino_server_options to;
        trino_server_options_init(&to);
        to.bind_address = co->bind_address;
        to.port = (uint16_t)co->trino_http_port;
        if (flags.http_threads >= 0) to.http_threads = (uint32_t)flags.http_threads;
        to.max_sql_bytes = cfg.query.max_sql_bytes > 0 ? (size_t)cfg.query.max_sql_bytes
                                                       : (size_t)1 << 30;
        to.idle_timeout_ms = cfg.query.stream_idle_timeout_ms > 0
                                 ? (uint32_t)(cfg.query.stream_idle_timeout_ms > UINT32_MAX
                                                  ? UINT32_MAX
                                                  : cfg.query.stream_idle_timeout_ms)
                                 : UINT32_MAX;
        if (cfg.query.max_concurrent > 0 && cfg.query.max_concurrent < 256)
            to.max_running = (uint32_t)cfg.query.max_concurrent;
        else
            to.max_running = 256;
        /* queries in progress (running, or with results not yet fetched) at most: never below
         * [query] max_concurrent, whose refusal names the setting */
        if (cfg.query.max_concurrent > (int64_t)to.max_queries)
            to.max_queries = (uint32_t)(cfg.query.max_concurrent > UINT32_MAX
                                            ? UINT32_MAX
                                            : cfg.query.max_concurrent);
        to.hooks = srv_core_hooks(core);
        to.health = hs;
        to.tls_cert_file = co->tls.cert_file;
        to.tls_key_file = co->tls.key_file;
        if (flags.request_timeout_s > 0) to.request_timeout_ms = (uint32_t)flags.request_timeout_s * 1000;
        /* [auth.oidc] external_authentication: Trino's OAuth2 login (config_validate made sure
         * oidc_bearer is in the chain, so the core has the identity provider) */
        trino_oauth2_options oa;
        trino_oauth2_options_init(&oa);
        if (cfg.auth.oidc.external_authentication) {
            if (config_oidc_client_secret(&cfg.auth.oidc, &oauth2_secret, &err) != SQE_OK) {
                fprintf(stderr, "sqe serve: %s\n", err.message);
                goto out;
            }
            oa.idp = srv_core_oidc_idp(core);
            oa.client_id = cfg.auth.oidc.client_id;
            oa.client_secret = oauth2_secret; /* copied by trino_server_create */
            oa.scope = cfg.auth.oidc.scope;
            oa.redirect_url = cfg.auth.oidc.redirect_url;
            oa.http_timeout_ms = cfg.auth.oidc.http_timeout_ms;
            to.oauth2 = &oa;
        }
        int trc = trino_server_create(db, &to, &trino, &err);
        if (oauth2_secret) {
            OPENSSL_cleanse(oauth2_secret, strlen(oauth2_secret));
            free(oauth2_secret);
            oauth2_secret = NULL;
        }
        if (trc != SQE_OK) {
            fprintf(stderr, "sqe serve: Trino HTTP: %s\n", err.message);
            goto out;
        }
        pthread_rwlock_wrlock(&sessions.lock);
        sessions.trino = trino;
        pthread_rwlock_unlock(&sessions.lock);
        endpoint(co->bind_address, trino_server_port(trino), where, sizeof where);
        fprintf(stderr, "sqe serve: Trino protocol on %s://%s\n", *co->tls.cert_file ? "https" : "http",
                where);
    }

    if (co->flight_sql_port) {
#ifdef SQE_WITH_FLIGHT
        flight_server_options fo;
        flight_server_options_init(&fo);
        fo.bind_address = co->bind_address;
        fo.port = (uint16_t)co->flight_sql_port;
        fo.tls_cert_path = *co->tls.cert_file ? co->tls.cert_file : NULL;
        fo.tls_key_path = *co->tls.key_file ? co->tls.key_file : NULL;
        fo.hooks = *srv_core_hooks(core);
        if (flags.request_timeout_s > 0) fo.request_timeout_ms = (uint32_t)flags.request_timeout_s * 1000;
        /* a result nobody fetches is dropped (and its admission slot freed) after
         * [query] stream_idle_timeout, as on the Trino port; 0 = never */
        fo.ticket_timeout_ms = cfg.query.stream_idle_timeout_ms > 0
                                   ? (uint32_t)(cfg.query.stream_idle_timeout_ms > UINT32_MAX
                                                    ? UINT32_MAX
                                                    : cfg.query.stream_idle_timeout_ms)
                                   : UINT32_MAX;
        /* a DoGet whose client stops reading is cancelled after the same time, and one user
         * may hold only a few workers with streams */
        fo.stream_idle_ms = fo.ticket_timeout_ms;
        fo.max_streams_per_user = (uint32_t)cfg.query.max_streams_per_user;
        /* bounds what a header block continued forever (CONTINUATION flood) can buffer */
        fo.transport_memory_bytes = (size_t)cfg.coordinator.flight_transport_memory;
        if (flight_server_create(db, &fo, &flight, &err) != SQE_OK) {
            fprintf(stderr, "sqe serve: Flight SQL: %s\n", err.message);
            goto out;
        }
        pthread_rwlock_wrlock(&sessions.lock);
        sessions.flight = flight;
        pthread_rwlock_unlock(&sessions.lock);
        endpoint(co->bind_address, flight_server_port(flight), where, sizeof where);
        fprintf(stderr, "sqe serve: Flight SQL on grpc%s://%s\n", *co->tls.cert_file ? "+tls" : "",
                where);
#else
        /* FLIGHT: this build has no Flight SQL server (src/server/flight is compiled in when the
         * build defines SQE_WITH_FLIGHT); the Trino listener serves alone. */
        if (!from_default(&cfg, "coordinator", "flight_sql_port") || flags.flight_port > 0)
            fprintf(stderr, "sqe serve: Flight SQL (port %d) is not available in this build\n",
                    co->flight_sql_port);
#endif
    }

    if (cfg.metrics.health_port) {
        if (health_server_create(co->bind_address, (uint16_t)cfg.metrics.health_port, hs, &health,
                                 &err) != SQE_OK) {
            if (!health_port_defaulted) {
                fprintf(stderr, "sqe serve: [metrics] health_port: %s\n", err.message);
                goto out;
            }
            fprintf(stderr, "sqe serve: health listener not started (default port %d busy); "
                            "/healthz and /readyz stay on the Trino port\n",
                    cfg.metrics.health_port);
        } else {
            endpoint(co->bind_address, http_server_port(health), where, sizeof where);
            fprintf(stderr, "sqe serve: health on http://%s/healthz and /readyz\n", where);
        }
    }

    {
        uint32_t n = auth_chain_count(srv_core_auth(core));
        fprintf(stderr, "sqe serve: authentication:");
        for (uint32_t i = 0; i < n; i++)
            fprintf(stderr, " %s%s", auth_chain_name(srv_core_auth(core), i),
                    !strcmp(auth_chain_name(srv_core_auth(core), i), "anonymous") &&
                            cfg.auth.anonymous_loopback_only
                        ? " (loopback only)"
                        : "");
        fprintf(stderr, "; sessions: %s\n", cfg.session.persistence);
    }
    health_set(hs, HEALTH_READY);
    fprintf(stderr, "sqe serve: ready\n");
    fflush(stderr);

    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    uint32_t drain_ms = (uint32_t)(co->shutdown_drain_ms > UINT32_MAX ? UINT32_MAX
                                                                      : co->shutdown_drain_ms);
    fprintf(stderr, "sqe serve: %s received, draining (up to %u ms)\n",
            sig == SIGTERM ? "SIGTERM" : "SIGINT", drain_ms);
    fflush(stderr);
    health_set(hs, HEALTH_DRAINING);

    start_drain_watchdog(&set, drain_ms);

    /* every listener refuses new statements at once; then one deadline for all of them */
#ifdef SQE_WITH_FLIGHT
    flight_server_begin_drain(flight);
#endif
    if (trino) trino_server_begin_drain(trino);
    int64_t drain_until = clock_mono_ms() + drain_ms;
    uint32_t left = 0;
#ifdef SQE_WITH_FLIGHT
    if (flight) left += flight_server_drain(flight, remaining_ms(drain_until));
#endif
    if (trino) left += trino_server_drain(trino, remaining_ms(drain_until));
    if (left)
        fprintf(stderr, "sqe serve: %u queries still running at the deadline; canceling\n", left);
    status = 0;

out:
    pthread_rwlock_wrlock(&sessions.lock);
    sessions.trino = NULL;
#ifdef SQE_WITH_FLIGHT
    sessions.flight = NULL;
#endif
    pthread_rwlock_unlock(&sessions.lock);
#ifdef SQE_WITH_FLIGHT
    flight_server_destroy(flight);
#endif
    trino_server_destroy(trino);
    http_server_destroy(health);
    sqe_db_close(db);
    srv_core_destroy(core);
    config_reset(&cfg);
    if (status == 0) fprintf(stderr, "sqe serve: stopped\n");
    return status;
}
