/*
 * cmd_sql.c: `sqe sql`: runs SQL given with -e and -f, piped on stdin, or typed in the shell.
 *
 *   sqe sql [-e SQL]... [-f FILE]... [--format table|csv|tsv|json] [--threads N] [--echo] [--bail]
 *
 * The -e texts and -f files run in the order given, each as a script of one or more statements.
 * With neither, statements come from stdin when it is not a terminal, else the interactive shell
 * starts. The exit status is 1 when any statement failed, 0 otherwise (2 for a usage error).
 *
 * INTERFACE: cli_sql_main.
 * NOTES: the database is the embedded one `sqe serve` opens with the same configuration
 * (cli_database_open: the defaults, --config FILE, SQE_<SECTION>__<KEY> variables), so a table
 * made in the shell is in the server and the other way round; --warehouse DIR (or
 * $SQE_WAREHOUSE) opens DIR with its catalog in DIR/catalog.db instead, --memory no warehouse.
 * --connect to a remote server belongs here once the protocol clients exist.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_catalogs.h"
#include "common/config.h"

typedef enum input_kind { INPUT_SQL, INPUT_FILE } input_kind;

typedef struct input {
    input_kind kind;
    const char *text; /* the SQL text or the file name */
} input;

typedef struct sql_options {
    input *inputs;
    int n_inputs;
    cli_format format;
    int threads;
    int echo;
    int bail;
    const char *warehouse; /* --warehouse DIR */
    const char *config_path; /* --config FILE */
    int memory_only;       /* --memory */
} sql_options;

static const char sql_usage[] =
    "usage: sqe sql [options]\n"
    "\n"
    "Runs SQL on the embedded database: the Iceberg warehouse (catalog \"iceberg\", session\n"
    "default) and an in-memory catalog (\"memory\").\n"
    "\n"
    "options:\n"
    "      --config FILE    the catalogs of this configuration file (TOML), as `sqe serve\n"
    "                       --config FILE` opens them; SQE_<SECTION>__<KEY> variables apply\n"
    "                       too. Default: ~/.sqe/warehouse with the catalog ~/.sqe/catalog.db\n"
    "                       ([coordinator] data_dir = \"~/.sqe\"), the tables `sqe serve` serves\n"
    "      --warehouse DIR  instead, the Iceberg warehouse DIR with its catalog DIR/catalog.db\n"
    "                       (also $SQE_WAREHOUSE)\n"
    "      --memory         no warehouse: only the in-memory catalog (session default)\n"
    "  -e, --execute SQL    run SQL, one or more statements (repeatable)\n"
    "  -f, --file FILE      run the statements in FILE, '-' for stdin (repeatable)\n"
    "      --format FORMAT  output format: table (default), csv, tsv, json\n"
    "      --threads N      worker threads (default: one per core)\n"
    "      --echo           print each statement before running it\n"
    "      --bail           stop at the first statement that fails\n"
    "  -h, --help           show this help\n"
    "\n"
    "-e and -f run in the order given. Without them, statements are read from standard input\n"
    "when it is not a terminal; otherwise an interactive shell starts (.help lists its\n"
    "commands). The exit status is 1 when a statement failed.\n";

/* Matches argv[*i] against a short and a long option taking a value ("-e SQL", "--execute SQL",
 * "--execute=SQL"). Returns 1 and sets *value when it matches, -1 when the value is missing. */
static int option_value(int argc, char **argv, int *i, const char *short_name,
                        const char *long_name, const char **value) {
    const char *arg = argv[*i];
    size_t long_len = strlen(long_name);
    if (strncmp(arg, long_name, long_len) == 0 && arg[long_len] == '=') {
        *value = arg + long_len + 1;
        return 1;
    }
    if (strcmp(arg, long_name) != 0 && !(short_name && strcmp(arg, short_name) == 0)) return 0;
    if (*i + 1 >= argc) return -1;
    *value = argv[++*i];
    return 1;
}

/* Parses the options; returns 0, or 2 after printing a usage error (or 3 for --help). */
static int parse_options(int argc, char **argv, sql_options *opt) {
    opt->inputs = calloc((size_t)argc + 1, sizeof *opt->inputs);
    if (!opt->inputs) {
        fprintf(stderr, "sqe sql: out of memory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        int m;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(sql_usage, stdout);
            return 3;
        } else if (strcmp(arg, "--echo") == 0) {
            opt->echo = 1;
        } else if (strcmp(arg, "--bail") == 0) {
            opt->bail = 1;
        } else if (strcmp(arg, "--memory") == 0) {
            opt->memory_only = 1;
        } else if ((m = option_value(argc, argv, &i, NULL, "--warehouse", &value)) != 0) {
            if (m < 0) goto out_missing;
            opt->warehouse = value;
        } else if ((m = option_value(argc, argv, &i, NULL, "--config", &value)) != 0) {
            if (m < 0) goto out_missing;
            opt->config_path = value;
        } else if ((m = option_value(argc, argv, &i, "-e", "--execute", &value)) != 0) {
            if (m < 0) goto out_missing;
            opt->inputs[opt->n_inputs++] = (input){INPUT_SQL, value};
        } else if ((m = option_value(argc, argv, &i, "-f", "--file", &value)) != 0) {
            if (m < 0) goto out_missing;
            opt->inputs[opt->n_inputs++] = (input){INPUT_FILE, value};
        } else if ((m = option_value(argc, argv, &i, NULL, "--format", &value)) != 0) {
            if (m < 0) goto out_missing;
            if (cli_format_parse(value, &opt->format) != 0) {
                fprintf(stderr, "sqe sql: unknown format '%s' (table, csv, tsv or json)\n", value);
                return 2;
            }
        } else if ((m = option_value(argc, argv, &i, NULL, "--threads", &value)) != 0) {
            if (m < 0) goto out_missing;
            char *end;
            errno = 0;
            long n = strtol(value, &end, 10);
            if (errno || end == value || *end || n < 0 || n > 4096) {
                fprintf(stderr, "sqe sql: --threads wants a number from 0 to 4096, not '%s'\n",
                        value);
                return 2;
            }
            opt->threads = (int)n;
        } else {
            fprintf(stderr, "sqe sql: unknown option '%s'\n\n%s", arg, sql_usage);
            return 2;
        }
    }
    return 0;

out_missing:
    fprintf(stderr, "sqe sql: option '%s' needs a value\n", argv[argc - 1]);
    return 2;
}

static int run_inputs(cli_session *s, const sql_options *opt) {
    for (int i = 0; i < opt->n_inputs && !s->stopped; i++) {
        if (opt->inputs[i].kind == INPUT_FILE) {
            cli_file_run(s, opt->inputs[i].text);
        } else {
            cli_pos at = {1, 1};
            cli_script_run(s, opt->inputs[i].text, 1, &at);
        }
    }
    return s->n_failed > 0 ? 1 : 0;
}

int cli_sql_main(int argc, char **argv) {
    sql_options opt;
    memset(&opt, 0, sizeof opt);
    opt.format = CLI_FORMAT_TABLE;
    int rc = parse_options(argc, argv, &opt);
    if (rc != 0) {
        free(opt.inputs);
        return rc == 3 ? 0 : rc;
    }

    cli_session s;
    memset(&s, 0, sizeof s);
    s.out = stdout;
    s.err = stderr;
    s.format = opt.format;
    s.echo = opt.echo;
    s.bail = opt.bail;

    sqe_db_options db_opts;
    memset(&db_opts, 0, sizeof db_opts);
    db_opts.threads = opt.threads;
    sqe_error err;
    memset(&err, 0, sizeof err);
    if (!opt.warehouse && !opt.config_path && getenv("SQE_WAREHOUSE") && *getenv("SQE_WAREHOUSE"))
        opt.warehouse = getenv("SQE_WAREHOUSE");
    int open_rc;
    if (opt.memory_only || opt.warehouse) {
        /* --memory: no warehouse; --warehouse DIR: DIR with its catalog in DIR/catalog.db */
        db_opts.warehouse = opt.memory_only ? NULL : opt.warehouse;
        open_rc = sqe_db_open(&db_opts, &s.db, &err);
    } else {
        /* the catalogs of the configuration, opened as `sqe serve` opens them */
        config cfg;
        if (config_load(&cfg, opt.config_path, NULL, &err) != SQE_OK) {
            fprintf(stderr, "sqe sql: configuration error: %s\n", err.message);
            free(opt.inputs);
            return 2;
        }
        open_rc = cli_database_open(&cfg, &db_opts, &s.db, &err);
        config_reset(&cfg);
    }
    if (open_rc != SQE_OK) {
        fprintf(stderr, "Error: cannot open the database: %s\n", err.message);
        free(opt.inputs);
        return 1;
    }
    if (sqe_connect(s.db, &s.conn, &err) != SQE_OK) {
        fprintf(stderr, "Error: cannot connect: %s\n", err.message);
        sqe_db_close(s.db);
        free(opt.inputs);
        return 1;
    }

    if (opt.n_inputs > 0) rc = run_inputs(&s, &opt);
    else rc = cli_shell_run(&s, stdin, isatty(STDIN_FILENO));

    fflush(stdout);
    sqe_disconnect(s.conn);
    sqe_db_close(s.db);
    free(opt.inputs);
    return rc;
}
