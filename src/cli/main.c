/*
 * main.c: the `sqe` command: dispatches `sqe <subcommand> [args]` to its entry point.
 *
 * Each subcommand is one entry of the table below (name, argument synopsis, summary, function);
 * adding one (serve, worker, config check, ...) means adding its entry and its function. `sqe`
 * alone, `sqe help` and `sqe --help` print the usage; `sqe help CMD` shows CMD's own help.
 *
 * INTERFACE: main, cli_version_main.
 * NOTES: usage errors exit with status 2; a subcommand's own status is returned unchanged.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct subcommand {
    const char *name;
    const char *synopsis;
    const char *summary;
    int (*run)(int argc, char **argv);
} subcommand;

static const subcommand subcommands[] = {
    {"sql", "[-e SQL]... [-f FILE]... [--format F]", "run SQL statements or an interactive shell",
     cli_sql_main},
    {"serve", "[--config FILE] [options]", "run the server (Trino HTTP, Flight SQL)",
     cli_serve_main},
    {"config", "check FILE | show [FILE]", "validate or print a configuration", cli_config_main},
    {"passwd", "USER", "make a users-file line (password from stdin)", cli_passwd_main},
    {"version", "", "print the version", cli_version_main},
};

#define N_SUBCOMMANDS (sizeof subcommands / sizeof subcommands[0])

static void usage(FILE *fp) {
    fprintf(fp, "usage: sqe <command> [arguments]\n\ncommands:\n");
    for (size_t i = 0; i < N_SUBCOMMANDS; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s %s", subcommands[i].name, subcommands[i].synopsis);
        fprintf(fp, "  %-44s %s\n", left, subcommands[i].summary);
    }
    fprintf(fp, "\nRun 'sqe help <command>' or 'sqe <command> --help' for a command's options.\n");
}

static const subcommand *find_subcommand(const char *name) {
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        if (strcmp(subcommands[i].name, name) == 0) return &subcommands[i];
    return NULL;
}

int cli_version_main(int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: sqe version\n\nPrints the version of this build.\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "sqe version: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    printf("sqe %s\n", sqe_version());
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2) {
            const subcommand *cmd = find_subcommand(argv[2]);
            if (!cmd) {
                fprintf(stderr, "sqe: unknown command '%s'\n\n", argv[2]);
                usage(stderr);
                return 2;
            }
            char *help_argv[] = {argv[2], (char *)"--help", NULL};
            return cmd->run(2, help_argv);
        }
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) name = "version";
    const subcommand *cmd = find_subcommand(name);
    if (!cmd) {
        fprintf(stderr, "sqe: unknown command '%s'\n\n", name);
        usage(stderr);
        return 2;
    }
    argv[1] = (char *)cmd->name;
    return cmd->run(argc - 1, argv + 1);
}
