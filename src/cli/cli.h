/*
 * cli.h: the command-line front end's internal interface (used only inside src/cli/).
 *
 * main.c dispatches `sqe <subcommand>` to the entry points below. `sqe sql` keeps its state in a
 * cli_session: the embedded database and connection, the output format and the flags of the
 * shell. run.c executes statements and scripts on a session; shell.c reads them interactively
 * (libedit) or from a pipe.
 */
#ifndef SQE_CLI_CLI_H
#define SQE_CLI_CLI_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/output.h"
#include "sqe/sqe.h"

/* ---- subcommands (each returns the process exit status; argv[0] is the subcommand name) --- */

int cli_sql_main(int argc, char **argv);
int cli_version_main(int argc, char **argv);
int cli_serve_main(int argc, char **argv);
int cli_config_main(int argc, char **argv);
int cli_passwd_main(int argc, char **argv);

/* ---- sessions ----------------------------------------------------------------------------- */

typedef struct cli_session {
    sqe_db *db;
    sqe_conn *conn;
    FILE *out;         /* results (stdout) */
    FILE *err;         /* error messages (stderr) */
    cli_format format;
    int echo;          /* print each statement before running it */
    int bail;          /* stop at the first failing statement */
    int timer;         /* print "Run Time: 0.012 s" after each statement */
    int n_failed;      /* statements that failed so far */
    int stopped;       /* set when --bail stopped the run */
} cli_session;

/* A position in a script: 1-based line and column of a byte. */
typedef struct cli_pos {
    int line;
    int column;
} cli_pos;

/* Set by the shell's SIGINT handler; run.c stops printing a result when it is set. */
extern volatile sig_atomic_t cli_interrupted;

/* Runs one statement (NUL-terminated, as sqe_statement_length cut it) and prints its result or
 * its error. at is the position of sql's first byte in its script, used to report error positions
 * in script coordinates; {0, 0} leaves positions out (for SQL the shell generated). Returns 0 on success, 1 on failure (also counted in s->n_failed; sets
 * s->stopped under --bail). */
int cli_statement_run(cli_session *s, const char *sql, cli_pos at);

/* Runs the statements of text (NUL-terminated) in order. Without final, only statements that end
 * with ';' run and the incomplete rest is left; with final, that rest runs too. *at is the
 * position of text[0] and is advanced past what was consumed. Returns the number of bytes
 * consumed. Stops early when s->stopped becomes set. */
size_t cli_script_run(cli_session *s, const char *text, int final, cli_pos *at);

/* Reads path ("-" for stdin) and runs it as a script. Returns 0, or 1 when the file cannot be read
 * (reported on s->err and counted as a failure) or a statement failed. */
int cli_file_run(cli_session *s, const char *path);

/* Runs a statement whose first result column is a list of names (e.g. SHOW TABLES) and returns
 * those names as a malloc'd NULL-terminated array (free with cli_names_free), or NULL after an
 * error (reported like any statement's). */
char **cli_names_query(cli_session *s, const char *sql);
void cli_names_free(char **names);

/* Runs SHOW CREATE TABLE name and prints its text followed by ";", or, when that statement fails,
 * runs SHOW COLUMNS FROM name and prints it in the session's format. Returns 0 or 1 as
 * cli_statement_run. */
int cli_schema_print(cli_session *s, const char *name);

/* ---- shell ---------------------------------------------------------------------------------- */

/* Reads statements and dot commands from in until end of input or .quit. interactive selects the
 * libedit prompt with history (~/.sqe_history), banner and Ctrl-C handling; otherwise lines are
 * read from in without prompts. Returns the exit status: in interactive mode 0, otherwise 1 when
 * a statement failed. */
int cli_shell_run(cli_session *s, FILE *in, int interactive);

#endif
