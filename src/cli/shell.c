/*
 * shell.c: the interactive shell of `sqe sql` (libedit) and its line-by-line reader for pipes.
 *
 * Lines accumulate in a buffer until sqe_statement_length reports a complete statement (one that
 * ends with ';'); complete statements run as soon as they are typed. A line starting with '.'
 * while no statement is pending is a dot command (.help lists them). Interactively the prompt is
 * "sqe> ", or "   ...> " while a statement continues; history lives in ~/.sqe_history.
 *
 * INTERFACE: cli_shell_run.
 * NOTES:
 *   - Ctrl-C: SIGINT is caught without SA_RESTART, so the read() under libedit fails with EINTR;
 *     our rl_getc_function then reports end of input, readline() returns, and the shell sees
 *     cli_interrupted set and throws the pending line and statement away. During a statement the
 *     same flag stops the printing of its result (run.c). Ctrl-D on an empty line exits.
 *   - Error positions are relative to the statement being typed interactively, and to the whole
 *     input when reading from a pipe.
 *   - Piped input is read with getline, so arbitrarily long scripts stream through the shell.
 */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli/cli.h"

#define HISTORY_FILE ".sqe_history"
#define HISTORY_MAX 2000

typedef struct shell {
    cli_session *s;
    int interactive;
    char *buf;        /* pending statement text, NUL-terminated */
    size_t len;
    size_t cap;
    cli_pos at;       /* position of buf[0] in the input */
    int input_line;   /* lines read so far */
    int quit;         /* .quit seen */
} shell;

/* ---- buffer --------------------------------------------------------------------------------- */

static int buf_append(shell *sh, const char *text, size_t len) {
    if (sh->len + len + 1 > sh->cap) {
        size_t cap = sh->cap ? sh->cap : 256;
        while (cap < sh->len + len + 1) cap *= 2;
        char *grown = realloc(sh->buf, cap);
        if (!grown) return -1;
        sh->buf = grown;
        sh->cap = cap;
    }
    memcpy(sh->buf + sh->len, text, len);
    sh->len += len;
    sh->buf[sh->len] = '\0';
    return 0;
}

static int buf_is_blank(const shell *sh) {
    return sh->len == 0 || strspn(sh->buf, " \t\r\n") == sh->len;
}

static void buf_clear(shell *sh) {
    sh->len = 0;
    if (sh->buf) sh->buf[0] = '\0';
    sh->at.line = sh->input_line + 1;
    sh->at.column = 1;
    if (sh->interactive) sh->at.line = 1;
}

/* 1 if text, which holds only white space and comments, ends inside a block comment. */
static int in_open_comment(const char *text) {
    const char *p = text;
    while (*p) {
        if (p[0] == '-' && p[1] == '-') {
            p = strchr(p, '\n');
            if (!p) return 0;
        } else if (p[0] == '/' && p[1] == '*') {
            p = strstr(p + 2, "*/");
            if (!p) return 1;
            p += 2;
            continue;
        }
        p++;
    }
    return 0;
}

/* ---- history -------------------------------------------------------------------------------- */

static char *history_path(void) {
    const char *home = getenv("HOME");
    if (!home || !*home) return NULL;
    size_t len = strlen(home) + sizeof HISTORY_FILE + 2;
    char *path = malloc(len);
    if (path) snprintf(path, len, "%s/%s", home, HISTORY_FILE);
    return path;
}

/* Adds text (without surrounding white space) as one history entry. */
static void history_add(const char *text, size_t len) {
    while (len > 0 && strchr(" \t\r\n", *text)) text++, len--;
    while (len > 0 && strchr(" \t\r\n", text[len - 1])) len--;
    if (len == 0) return;
    char *entry = strndup(text, len);
    if (!entry) return;
    add_history(entry);
    free(entry);
}

/* ---- dot commands --------------------------------------------------------------------------- */

static const char help_text[] =
    ".exit                  Exit the shell (also .quit or Ctrl-D)\n"
    ".format [FORMAT]       Show or set the output format: table, csv, tsv, json\n"
    ".help                  Show this message\n"
    ".quit                  Exit the shell\n"
    ".read FILE             Run the SQL statements in FILE\n"
    ".schema [TABLE]        Show the definition of TABLE, or of every table\n"
    ".tables                List the tables (SHOW TABLES)\n"
    ".timer on|off          Print the run time of each statement\n"
    "\n"
    "SQL statements end with ';' and may span several lines. Ctrl-C clears the current input.\n";

#define MAX_ARGS 8

/* Splits a dot-command line into at most MAX_ARGS words (in place); 'single' and "double" quotes
 * group words. Returns the word count. */
static int split_words(char *line, char **words) {
    int n = 0;
    char *p = line;
    while (*p && n < MAX_ARGS) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) break;
        char quote = (*p == '\'' || *p == '"') ? *p++ : 0;
        words[n++] = p;
        while (*p && (quote ? *p != quote : !strchr(" \t\r\n", *p))) p++;
        if (*p) *p++ = '\0';
    }
    return n;
}

/* Parses on/off (also 1/0, yes/no, true/false); -1 when it is neither. */
static int parse_switch(const char *word) {
    static const char *const on[] = {"on", "1", "yes", "true"};
    static const char *const off[] = {"off", "0", "no", "false"};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        if (strcmp(word, on[i]) == 0) return 1;
        if (strcmp(word, off[i]) == 0) return 0;
    }
    return -1;
}

static void dot_usage_error(shell *sh, const char *usage) {
    fflush(sh->s->out);
    fprintf(sh->s->err, "Error: usage: %s\n", usage);
    sh->s->n_failed++;
    if (sh->s->bail && !sh->interactive) sh->s->stopped = 1;
}

/* Quotes a name from SHOW TABLES as a delimited identifier: "na""me". */
static char *quote_identifier(const char *name) {
    size_t len = 3;
    for (const char *p = name; *p; p++) len += *p == '"' ? 2 : 1;
    char *quoted = malloc(len);
    if (!quoted) return NULL;
    char *q = quoted;
    *q++ = '"';
    for (const char *p = name; *p; p++) {
        if (*p == '"') *q++ = '"';
        *q++ = *p;
    }
    *q++ = '"';
    *q = '\0';
    return quoted;
}

static void dot_schema(shell *sh, int n_words, char **words) {
    if (n_words >= 2) {
        cli_schema_print(sh->s, words[1]);
        return;
    }
    char **tables = cli_names_query(sh->s, "SHOW TABLES");
    if (!tables) return;
    for (char **t = tables; *t; t++) {
        char *quoted = quote_identifier(*t);
        if (quoted) cli_schema_print(sh->s, quoted);
        free(quoted);
    }
    cli_names_free(tables);
}

static void dot_command(shell *sh, char *line) {
    cli_session *s = sh->s;
    char *words[MAX_ARGS];
    int n = split_words(line, words);
    if (n == 0) return;
    const char *cmd = words[0];
    cli_pos start = {0, 0}; /* generated SQL: errors carry no position */
    if (strcmp(cmd, ".quit") == 0 || strcmp(cmd, ".exit") == 0) {
        sh->quit = 1;
    } else if (strcmp(cmd, ".help") == 0) {
        fputs(help_text, s->out);
    } else if (strcmp(cmd, ".tables") == 0) {
        cli_statement_run(s, "SHOW TABLES", start);
    } else if (strcmp(cmd, ".schema") == 0) {
        dot_schema(sh, n, words);
    } else if (strcmp(cmd, ".timer") == 0) {
        int on = n == 2 ? parse_switch(words[1]) : -1;
        if (on < 0) dot_usage_error(sh, ".timer on|off");
        else s->timer = on;
    } else if (strcmp(cmd, ".format") == 0) {
        if (n == 1) fprintf(s->out, "%s\n", cli_format_name(s->format));
        else if (n != 2 || cli_format_parse(words[1], &s->format) != 0)
            dot_usage_error(sh, ".format table|csv|tsv|json");
    } else if (strcmp(cmd, ".read") == 0) {
        if (n != 2) dot_usage_error(sh, ".read FILE");
        else cli_file_run(s, words[1]);
    } else {
        fflush(s->out);
        fprintf(s->err, "Error: unknown command %s; enter .help for the list\n", cmd);
        s->n_failed++;
        if (s->bail && !sh->interactive) s->stopped = 1;
    }
    fflush(s->out);
}

/* ---- lines ---------------------------------------------------------------------------------- */

/* Handles one input line (without its newline). */
static void shell_line(shell *sh, const char *line) {
    sh->input_line++;
    if (buf_is_blank(sh)) {
        const char *p = line + strspn(line, " \t");
        if (*p == '.') {
            if (sh->interactive) history_add(p, strlen(p));
            char *copy = strdup(p);
            if (copy) dot_command(sh, copy);
            free(copy);
            buf_clear(sh);
            return;
        }
        if (sh->len == 0) {
            sh->at.line = sh->interactive ? 1 : sh->input_line;
            sh->at.column = 1;
        }
    }
    if (buf_append(sh, line, strlen(line)) != 0 || buf_append(sh, "\n", 1) != 0) {
        fprintf(sh->s->err, "Error: out of memory\n");
        sh->s->n_failed++;
        buf_clear(sh);
        return;
    }
    size_t consumed = cli_script_run(sh->s, sh->buf, 0, &sh->at);
    if (consumed > 0) {
        if (sh->interactive) history_add(sh->buf, consumed);
        memmove(sh->buf, sh->buf + consumed, sh->len - consumed + 1);
        sh->len -= consumed;
    }
    int complete;
    if (buf_is_blank(sh) ||
        (sqe_statement_length(sh->buf, &complete) == 0 && !in_open_comment(sh->buf)))
        buf_clear(sh);
}

/* ---- interactive input ---------------------------------------------------------------------- */

static void on_sigint(int sig) {
    (void)sig;
    cli_interrupted = 1;
}

/* libedit's character source: like its own, but gives up (end of input) when Ctrl-C arrived. */
static int shell_getc(FILE *fp) {
    for (;;) {
        unsigned char c;
        ssize_t n = read(fileno(fp), &c, 1);
        if (n == 1) return c;
        if (n == 0) return EOF;
        if (errno != EINTR || cli_interrupted) return EOF;
    }
}

static void run_interactive(shell *sh) {
    setlocale(LC_CTYPE, "");
    rl_readline_name = "sqe";
    rl_catch_signals = 0;
    rl_getc_function = shell_getc;
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_sa);

    char *hist = history_path();
    using_history();
    stifle_history(HISTORY_MAX);
    if (hist) read_history(hist);

    fprintf(sh->s->out, "SQE %s\nEnter \".help\" for usage hints.\n", sqe_version());
    fflush(sh->s->out);
    while (!sh->quit) {
        cli_interrupted = 0;
        char *line = readline(buf_is_blank(sh) ? "sqe> " : "   ...> ");
        if (cli_interrupted) {
            free(line);
            fputs("\n", sh->s->out);
            fflush(sh->s->out);
            buf_clear(sh);
            continue;
        }
        if (!line) {
            fputs("\n", sh->s->out);
            break;
        }
        shell_line(sh, line);
        free(line);
    }
    if (hist) write_history(hist);
    free(hist);
    sigaction(SIGINT, &old_sa, NULL);
}

static void run_piped(shell *sh, FILE *in) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (!sh->quit && !sh->s->stopped && (n = getline(&line, &cap, in)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        shell_line(sh, line);
    }
    free(line);
    if (!sh->quit && !sh->s->stopped && !buf_is_blank(sh))
        cli_script_run(sh->s, sh->buf, 1, &sh->at);
}

int cli_shell_run(cli_session *s, FILE *in, int interactive) {
    shell sh;
    memset(&sh, 0, sizeof sh);
    sh.s = s;
    sh.interactive = interactive;
    buf_clear(&sh);
    if (interactive) run_interactive(&sh);
    else run_piped(&sh, in);
    free(sh.buf);
    if (interactive) return 0;
    return s->n_failed > 0 ? 1 : 0;
}
