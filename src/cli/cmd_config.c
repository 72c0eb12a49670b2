/*
 * cmd_config.c: `sqe config check FILE` and `sqe config show [FILE]`: validate a configuration
 * and print the effective one.
 *
 *   sqe config check FILE   loads defaults -> FILE -> environment, validates and refuses what is
 *                           not supported yet (config_check_supported), as `sqe serve` does;
 *                           prints "ok" (exit 0) or the error with file, line and key (exit 1)
 *   sqe config show [FILE]  prints the effective configuration as TOML, secrets redacted, each
 *                           value not from the defaults annotated with where it came from
 *
 * INTERFACE: cli_config_main.
 * NOTES: the environment (SQE_<SECTION>__<KEY>) is applied in both, as `sqe serve` would.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/config.h"

static const char config_usage[] =
    "usage: sqe config check FILE\n"
    "       sqe config show [FILE]\n"
    "\n"
    "check: validates FILE (with the SQE_<SECTION>__<KEY> environment applied); prints \"ok\" or\n"
    "       the first error as FILE:LINE: [section] key: why, and exits 1 on an error.\n"
    "show:  prints the effective configuration (defaults, FILE, environment) as TOML, secrets\n"
    "       shown as \"<redacted>\".\n";

int cli_config_main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(config_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *verb = argv[1];
    bool check = !strcmp(verb, "check"), show = !strcmp(verb, "show");
    if (!check && !show) {
        fprintf(stderr, "sqe config: unknown subcommand '%s'\n\n%s", verb, config_usage);
        return 2;
    }
    if ((check && argc != 3) || (show && argc > 3)) {
        fprintf(stderr, "%s", config_usage);
        return 2;
    }
    const char *path = argc == 3 ? argv[2] : NULL;
    config cfg;
    sqe_error err;
    memset(&err, 0, sizeof err);
    if (config_load(&cfg, path, NULL, &err) != SQE_OK) {
        fprintf(check ? stdout : stderr, "%s\n", err.message);
        return 1;
    }
    if (check && config_check_supported(&cfg, &err) != SQE_OK) {
        printf("%s\n", err.message);
        config_reset(&cfg);
        return 1;
    }
    if (check) {
        printf("ok\n");
    } else {
        strbuf sb;
        strbuf_init(&sb);
        config_render(&cfg, &sb);
        if (sb.failed) {
            strbuf_reset(&sb);
            config_reset(&cfg);
            fprintf(stderr, "sqe config: out of memory\n");
            return 1;
        }
        fputs(strbuf_cstr(&sb), stdout);
        strbuf_reset(&sb);
    }
    config_reset(&cfg);
    return 0;
}
