/*
 * cmd_passwd.c: `sqe passwd USER`: makes a users-file line for [auth] users_file.
 *
 *   printf '%s\n' "$PASSWORD" | sqe passwd alice >> users
 *
 * Reads the password from stdin (one line; the newline is dropped; the terminal echo is turned
 * off when stdin is a terminal) and prints "USER:$pbkdf2-sha256$<iterations>$<salt>$<hash>".
 *
 * INTERFACE: cli_passwd_main.
 * NOTES: --iterations N changes the PBKDF2 work factor (default 600000); lower values are for
 * tests only. The password buffer is wiped before exit.
 */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli/cli.h"
#include "server/core/auth.h"

static const char passwd_usage[] =
    "usage: sqe passwd [--iterations N] USER\n"
    "\n"
    "Reads a password from stdin and prints the users-file line for USER:\n"
    "  USER:$pbkdf2-sha256$<iterations>$<salt>$<hash>\n"
    "Append it to the file named by [auth] users_file; the server reloads the file by itself.\n";

int cli_passwd_main(int argc, char **argv) {
    const char *user = NULL;
    unsigned long iterations = AUTH_PBKDF2_DEFAULT_ITERATIONS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(passwd_usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
            char *end;
            iterations = strtoul(argv[++i], &end, 10);
            if (*end || iterations < AUTH_PBKDF2_MIN_ITERATIONS ||
                iterations > AUTH_PBKDF2_MAX_ITERATIONS) {
                fprintf(stderr, "sqe passwd: --iterations must be in %u..%u\n",
                        AUTH_PBKDF2_MIN_ITERATIONS, AUTH_PBKDF2_MAX_ITERATIONS);
                return 2;
            }
        } else if (!user && argv[i][0] != '-') {
            user = argv[i];
        } else {
            fprintf(stderr, "sqe passwd: unexpected argument '%s'\n\n%s", argv[i], passwd_usage);
            return 2;
        }
    }
    if (!user) {
        fputs(passwd_usage, stderr);
        return 2;
    }
    if (!auth_user_name_valid(user)) {
        fprintf(stderr, "sqe passwd: invalid user name (1..128 bytes, no ':' or control "
                        "characters)\n");
        return 2;
    }
    struct termios old;
    bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
        struct termios quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        fprintf(stderr, "Password for %s: ", user);
    }
    char buf[1024];
    bool got = fgets(buf, sizeof buf, stdin) != NULL;
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (!got) {
        fprintf(stderr, "sqe passwd: no password on stdin\n");
        return 1;
    }
    size_t len = strlen(buf);
    if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
        OPENSSL_cleanse(buf, sizeof buf);
        fprintf(stderr, "sqe passwd: password too long (at most 1000 bytes)\n");
        return 1;
    }
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
    if (!len) {
        fprintf(stderr, "sqe passwd: empty password\n");
        return 1;
    }
    char *hash = NULL;
    sqe_error err;
    int rc = auth_password_hash(buf, (uint32_t)iterations, &hash, &err);
    OPENSSL_cleanse(buf, sizeof buf);
    if (rc) {
        fprintf(stderr, "sqe passwd: %s\n", err.message);
        return 1;
    }
    printf("%s:%s\n", user, hash);
    free(hash);
    return 0;
}
