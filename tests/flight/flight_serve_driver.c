/*
 * flight_serve_driver.c: a tiny Flight SQL server for the tests: opens an embedded database
 * (memory catalog; an Iceberg warehouse with --warehouse DIR), starts flight_server on the given
 * port (0 = any free), prints "PORT <n>" on stdout and serves until SIGTERM or SIGINT.
 *
 * Usage: flight_test_server [--port N] [--warehouse DIR] [--max-message BYTES] [--threads N]
 *                           [--tls CERT KEY] [--user NAME PASSWORD]
 *                           [--request-timeout-ms N] [--max-idle-ms N]
 * --user turns on a toy authentication hook (Basic NAME:PASSWORD only) so the tests can check
 * UNAUTHENTICATED paths; the real hooks live in src/server/core/.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "server/flight/flight_server.h"

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static const char *g_user, *g_pass;

static int b64(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

static int toy_auth(void *ud, const char *authorization, const char *user, const char *peer,
                    sqe_principal **principal, sqe_error *err) {
    (void)ud; (void)user; (void)peer;
    if (!authorization || strncmp(authorization, "Basic ", 6) != 0)
        return err_set(err, SQE_ERR_PERMISSION_DENIED, "credentials required");
    char dec[256];
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (const char *p = authorization + 6; *p && *p != '=' && o < sizeof dec - 1; p++) {
        int v = b64((unsigned char)*p);
        if (v < 0) return err_set(err, SQE_ERR_PERMISSION_DENIED, "bad credentials");
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dec[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    dec[o] = 0;
    char want[256];
    snprintf(want, sizeof want, "%s:%s", g_user, g_pass);
    if (strcmp(dec, want) != 0) return err_set(err, SQE_ERR_PERMISSION_DENIED, "invalid user or password");
    return sqe_principal_for_user(g_user, SQE_AUTH_PASSWORD, principal, err);
}

int main(int argc, char **argv) {
    flight_server_options fo;
    flight_server_options_init(&fo);
    fo.port = 0;
    sqe_db_options dbo;
    memset(&dbo, 0, sizeof dbo);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--port") && i + 1 < argc) fo.port = (uint16_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warehouse") && i + 1 < argc) dbo.warehouse = argv[++i];
        else if (!strcmp(argv[i], "--max-message") && i + 1 < argc) fo.max_message_bytes = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) fo.threads = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--request-timeout-ms") && i + 1 < argc)
            fo.request_timeout_ms = (uint32_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--max-idle-ms") && i + 1 < argc)
            fo.max_idle_ms = (uint32_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--tls") && i + 2 < argc) {
            fo.tls_cert_path = argv[++i];
            fo.tls_key_path = argv[++i];
        } else if (!strcmp(argv[i], "--user") && i + 2 < argc) {
            g_user = argv[++i];
            g_pass = argv[++i];
            fo.hooks.authenticate = toy_auth;
        } else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    sqe_error err;
    sqe_db *db;
    if (sqe_db_open(&dbo, &db, &err)) {
        fprintf(stderr, "open: %s\n", err.message);
        return 1;
    }
    flight_server *srv;
    if (flight_server_create(db, &fo, &srv, &err)) {
        fprintf(stderr, "flight: %s\n", err.message);
        sqe_db_close(db);
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("PORT %u\n", (unsigned)flight_server_port(srv));
    fflush(stdout);
    while (!stop) usleep(50000);
    uint32_t left = flight_server_drain(srv, 2000);
    flight_server_destroy(srv);
    sqe_db_close(db);
    fprintf(stderr, "flight_test_server: stopped (%u statements cut off)\n", left);
    return 0;
}
