/*
 * slt_runner.c: main of the sqllogictest runner.
 *
 *   slt_runner [--rewrite] [--filter SUBSTR] [--jobs N] [--verbose] [--slow] [--connector NAME]
 *              [--threads N] [--timeout SEC] [--record-timeout SEC] [--no-fork]
 *              [--iceberg-rest URI [--rest-token T] [--s3-endpoint URL]]
 *              [--sqlite-corpus] [--skip-list FILE [--check-skipped SUBSTR]]
 *              [--trino-url URL [--catalog C] [--sqe-types]] [--exceptions FILE] PATH...
 *
 * Finds every *.test file under the paths (recursively, sorted; *.test_slow too with --slow),
 * runs each on a fresh database (slt_exec.c) and prints the failures, then the summary line
 * "N passed, N failed" (records) and, when records were skipped, "N skipped" followed by one
 * "  N <reason>" line per skip group. Exit status: 0 when nothing failed, 1 otherwise, 2 for a
 * usage error.
 *
 * INTERFACE: main.
 * NOTES:
 *   - Each file runs in a child process (fork) unless --no-fork: a crash, a sanitizer report, a
 *     leak (non-zero exit) or a timeout fails that file only, and --jobs N runs N children at
 *     once. A child's report (stdout and stderr) is printed in one piece when it ends; its
 *     counts live in shared memory, so the records it finished before dying still count.
 *   - --no-fork runs the files one after the other in this process (for gdb).
 *   - --connector embedded|trino|flight picks the front end (slt_conn*.c).
 *   - --sqlite-corpus and --skip-list are for outside corpora (SQLite's sqllogictest: see
 *     tests/sqlite/README.md); the skip groups are registered here before any child starts.
 *   - --trino-url runs the "trino" connector against that external server (the real Trino as the
 *     oracle); --exceptions leaves the listed folders and files out and counts the listed records'
 *     differences as excepted (slt_exceptions.c). The summary then adds "N excepted" and the
 *     error records whose message or position alone differ.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slt.h"

typedef struct file_list {
    char **paths;
    size_t n;
    size_t cap;
} file_list;

typedef struct runner_options {
    slt_options run;
    const char *filter;
    int jobs;
    int slow;
    int fork;
    unsigned timeout;
} runner_options;

static const char usage_text[] =
    "usage: slt_runner [options] PATH...\n"
    "\n"
    "Runs the sqllogictest files (*.test) under each PATH.\n"
    "\n"
    "options:\n"
    "  --rewrite          replace the expected rows of failing queries in place (review the diff)\n"
    "  --filter SUBSTR    only files whose path contains SUBSTR\n"
    "  --jobs N           run N files at once (default 1)\n"
    "  --verbose          report every record\n"
    "  --slow             also run *.test_slow files\n"
    "  --connector NAME   how statements reach the engine: embedded (default, in-process API),\n"
    "                     trino (Trino HTTP server + libcurl client) or flight (Flight SQL\n"
    "                     server + gRPC client), both servers in-process on loopback\n"
    "  --threads N        engine threads per database (default: one per core)\n"
    "  --timeout SEC      fail a file that runs longer than SEC seconds (default 600)\n"
    "  --record-timeout SEC  fail a record that runs longer than SEC seconds (ends its file;\n"
    "                     replaces the file timeout)\n"
    "  --no-fork          run every file inside this process (no crash isolation, no timeout)\n"
    "  --iceberg-rest URI files under iceberg/ use this Iceberg REST catalog (default catalog\n"
    "                     \"iceberg\", vended S3 credentials) instead of a fresh local warehouse;\n"
    "                     the catalog should be empty for each run (one file per run)\n"
    "  --rest-token T     bearer token sent to the REST catalog\n"
    "  --s3-endpoint URL  S3 endpoint (path-style) when the catalog vends none\n"
    "  --sqlite-corpus    SQLite's sqllogictest corpus: SQLite DDL mapped to Trino's, values\n"
    "                     printed as SQLite's runner does, skipif/onlyif engine \"postgresql\"\n"
    "                     (tests/sqlite/README.md)\n"
    "  --skip-list FILE   records and files not to run, with reasons (tests/sqlite/skip.list)\n"
    "  --check-skipped SUBSTR  run the skip-listed records whose heading contains SUBSTR too\n"
    "                     and report those that pass (\"PASSES file:line\")\n"
    "  --list-records     print every statement and query record as a JSON line (the SQL as\n"
    "                     it would run, expected lines, skip reason) instead of running it\n"
    "  --trino-url URL    the trino connector talks to this external Trino (e.g. the real one)\n"
    "                     instead of an in-process SQE server; error records compare SQLSTATEs\n"
    "                     (one file at a time, each on a fresh memory catalog)\n"
    "  --catalog C        --trino-url: the name of that catalog (default memory)\n"
    "  --sqe-types        --trino-url: run every statement on SQE in-process too; a query whose\n"
    "                     column types differ from SQE's fails\n"
    "  --exceptions FILE  leave out the folders and files listed in FILE, and count the listed\n"
    "                     records' differences as excepted (tests/runner/README.md)\n";

/* ---- discovery ------------------------------------------------------------------------------- */

static int has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void list_add(file_list *l, const char *path) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        char **grown = realloc(l->paths, l->cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "slt_runner: out of memory\n");
            exit(2);
        }
        l->paths = grown;
    }
    l->paths[l->n] = strdup(path);
    if (!l->paths[l->n]) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    l->n++;
}

static int is_test_file(const char *name, const runner_options *opt) {
    return has_suffix(name, ".test") || (opt->slow && has_suffix(name, ".test_slow"));
}

/* Adds the test files under dir (recursively; hidden entries are skipped). */
static void walk(const char *dir, const runner_options *opt, file_list *out) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) break;
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) walk(path, opt, out);
            else if (S_ISREG(sb.st_mode) && is_test_file(e->d_name, opt)) list_add(out, path);
        }
        free(path);
    }
    closedir(d);
}

static void list_free(file_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

static int compare_paths(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- running --------------------------------------------------------------------------------- */

static void counts_add(slt_counts *total, const slt_counts *c) {
    total->passed += c->passed;
    total->failed += c->failed;
    total->skipped += c->skipped;
    for (int i = 0; i < SLT_MAX_SKIP_GROUPS; i++) total->skipped_by[i] += c->skipped_by[i];
    total->excepted += c->excepted;
    total->messages += c->messages;
    total->positions += c->positions;
    total->types += c->types;
}

/* Counts the checked records of a file left out by the exceptions list (for the summary). */
static int records_in(const char *path) {
    slt_script script;
    char msg[256];
    if (slt_script_parse(path, &script, msg, sizeof msg) != 0) return 0;
    int n = 0;
    for (int i = 0; i < script.n_recs; i++) {
        slt_kind k = script.recs[i].kind;
        n += k == SLT_STATEMENT_OK || k == SLT_STATEMENT_ERROR || k == SLT_QUERY || k == SLT_LOAD;
    }
    slt_script_free(&script);
    return n;
}

static void run_in_process(const file_list *files, const runner_options *opt, slt_counts *total) {
    for (size_t i = 0; i < files->n; i++) {
        slt_counts c = {0};
        slt_file_run(files->paths[i], &opt->run, &c, stdout);
        counts_add(total, &c);
    }
}

typedef struct child {
    pid_t pid;
    size_t file;   /* index into the file list */
    FILE *output;  /* the child's stdout and stderr */
} child;

/* Copies a finished child's report to stdout and judges its exit status. */
static void child_finish(const file_list *files, child *c, int status, slt_counts *counts) {
    fflush(c->output);
    rewind(c->output);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, c->output)) > 0) fwrite(buf, 1, n, stdout);
    fclose(c->output);
    const char *path = files->paths[c->file];
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        counts->failed++;
        if (sig == SIGALRM) printf("FAIL %s:0\n  timed out\n", path);
        else printf("FAIL %s:0\n  crashed: %s\n", path, strsignal(sig));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        counts->failed++;
        printf("FAIL %s:0\n  the test process exited with status %d (sanitizer report or leak "
               "above?)\n",
               path, WEXITSTATUS(status));
    }
    fflush(stdout);
    c->pid = 0;
}

static void run_forked(const file_list *files, const runner_options *opt, slt_counts *total) {
    size_t shared_len = (files->n ? files->n : 1) * sizeof(slt_counts);
    slt_counts *shared = mmap(NULL, shared_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                              -1, 0);
    if (shared == MAP_FAILED) {
        fprintf(stderr, "slt_runner: mmap: %s; running in-process\n", strerror(errno));
        run_in_process(files, opt, total);
        return;
    }
    memset(shared, 0, shared_len);
    child *children = calloc((size_t)opt->jobs, sizeof *children);
    slt_counts crashes = {0};
    if (!children) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    size_t next = 0;
    int running = 0;
    while (next < files->n || running > 0) {
        while (running < opt->jobs && next < files->n) {
            int slot = 0;
            while (children[slot].pid) slot++;
            FILE *output = tmpfile();
            if (!output) {
                fprintf(stderr, "slt_runner: tmpfile: %s\n", strerror(errno));
                exit(2);
            }
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) {
                fprintf(stderr, "slt_runner: fork: %s\n", strerror(errno));
                exit(2);
            }
            if (pid == 0) {
                dup2(fileno(output), STDOUT_FILENO);
                dup2(fileno(output), STDERR_FILENO);
                if (opt->timeout && !opt->run.record_timeout) alarm(opt->timeout);
                slt_file_run(files->paths[next], &opt->run, &shared[next], stdout);
                fflush(stdout);
                exit(0);
            }
            children[slot] = (child){pid, next, output};
            next++;
            running++;
        }
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "slt_runner: waitpid: %s\n", strerror(errno));
            exit(2);
        }
        for (int i = 0; i < opt->jobs; i++) {
            if (children[i].pid != pid) continue;
            child_finish(files, &children[i], status, &crashes);
            running--;
        }
    }
    for (size_t i = 0; i < files->n; i++) counts_add(total, &shared[i]);
    counts_add(total, &crashes);
    free(children);
    munmap(shared, shared_len);
}

/* ---- main ------------------------------------------------------------------------------------ */

static int parse_int(const char *s, long min, long max, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv) {
    runner_options opt;
    memset(&opt, 0, sizeof opt);
    opt.jobs = 1;
    opt.fork = 1;
    opt.timeout = 600;
    opt.run.connector = slt_connector_find("embedded");
    file_list roots = {0};
    const char *skip_list_path = NULL;
    const char *exceptions_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        long v;
        if (strcmp(a, "--rewrite") == 0) opt.run.rewrite = 1;
        else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) opt.run.verbose = 1;
        else if (strcmp(a, "--slow") == 0) opt.slow = 1;
        else if (strcmp(a, "--no-fork") == 0) opt.fork = 0;
        else if (strcmp(a, "--filter") == 0 && has_value) opt.filter = argv[++i];
        else if (strcmp(a, "--iceberg-rest") == 0 && has_value) opt.run.rest_uri = argv[++i];
        else if (strcmp(a, "--rest-token") == 0 && has_value) opt.run.rest_token = argv[++i];
        else if (strcmp(a, "--s3-endpoint") == 0 && has_value) opt.run.s3_endpoint = argv[++i];
        else if (strcmp(a, "--sqlite-corpus") == 0) opt.run.sqlite_corpus = 1;
        else if (strcmp(a, "--list-records") == 0) opt.run.list_records = 1;
        else if (strcmp(a, "--skip-list") == 0 && has_value) skip_list_path = argv[++i];
        else if (strcmp(a, "--check-skipped") == 0 && has_value) opt.run.check_skipped = argv[++i];
        else if (strcmp(a, "--record-timeout") == 0 && has_value &&
                 parse_int(argv[i + 1], 1, 86400, &v))
            opt.run.record_timeout = (unsigned)v, i++;
        else if (strcmp(a, "--trino-url") == 0 && has_value) opt.run.trino_url = argv[++i];
        else if (strcmp(a, "--catalog") == 0 && has_value) opt.run.trino_catalog = argv[++i];
        else if (strcmp(a, "--exceptions") == 0 && has_value) exceptions_path = argv[++i];
        else if (strcmp(a, "--sqe-types") == 0) opt.run.sqe_types = 1;
        else if (strcmp(a, "--jobs") == 0 && has_value && parse_int(argv[i + 1], 1, 1024, &v))
            opt.jobs = (int)v, i++;
        else if (strcmp(a, "--threads") == 0 && has_value && parse_int(argv[i + 1], 0, 4096, &v))
            opt.run.threads = (int)v, i++;
        else if (strcmp(a, "--timeout") == 0 && has_value && parse_int(argv[i + 1], 0, 86400, &v))
            opt.timeout = (unsigned)v, i++;
        else if (strcmp(a, "--connector") == 0 && has_value) {
            opt.run.connector = slt_connector_find(argv[++i]);
            if (!opt.run.connector) {
                fprintf(stderr, "slt_runner: unknown connector '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "slt_runner: bad option '%s'\n\n%s", a, usage_text);
            return 2;
        } else {
            list_add(&roots, a);
        }
    }
    if (roots.n == 0) {
        fputs(usage_text, stderr);
        return 2;
    }
    if (opt.run.check_skipped && !skip_list_path) {
        fprintf(stderr, "slt_runner: --check-skipped needs --skip-list\n");
        list_free(&roots);
        return 2;
    }
    /* The skip groups, before any child starts (they share the numbering). */
    if (opt.run.sqlite_corpus) slt_sqlite_init();
    slt_skip_list skip_list = {0};
    if (skip_list_path) {
        char msg[1024];
        if (slt_skip_list_load(skip_list_path, &skip_list, msg, sizeof msg) != 0) {
            fprintf(stderr, "slt_runner: %s\n", msg);
            list_free(&roots);
            return 2;
        }
        opt.run.skip_list = &skip_list;
    }
    const char *usage_error = NULL;
    char msg[512];
    if (opt.run.trino_url && strcmp(opt.run.connector->name, "trino") != 0)
        usage_error = "--trino-url needs --connector trino";
    if (opt.run.sqe_types && !opt.run.trino_url) usage_error = "--sqe-types needs --trino-url";
    if (opt.run.trino_url) opt.jobs = 1; /* the files share the server's one catalog */
    slt_exceptions exceptions = {0};
    if (!usage_error && exceptions_path) {
        if (slt_exceptions_load(exceptions_path, &exceptions, msg, sizeof msg) == 0)
            opt.run.exceptions = &exceptions;
        else
            usage_error = msg;
    }
    if (usage_error) {
        fprintf(stderr, "slt_runner: %s\n", usage_error);
        slt_skip_list_free(&skip_list);
        list_free(&roots);
        return 2;
    }

    slt_counts total = {0};
    file_list found = {0};
    for (size_t i = 0; i < roots.n; i++) {
        struct stat sb;
        if (stat(roots.paths[i], &sb) != 0) {
            printf("FAIL %s:0\n  %s\n", roots.paths[i], strerror(errno));
            total.failed++;
        } else if (S_ISDIR(sb.st_mode)) {
            size_t first = found.n;
            walk(roots.paths[i], &opt, &found);
            qsort(found.paths + first, found.n - first, sizeof *found.paths, compare_paths);
        } else {
            list_add(&found, roots.paths[i]);
        }
    }
    file_list files = {0};
    int excluded_files = 0, excluded_records = 0;
    for (size_t i = 0; i < found.n; i++) {
        if (opt.filter && !strstr(found.paths[i], opt.filter)) continue;
        const slt_exception *e = slt_exceptions_file(opt.run.exceptions, found.paths[i]);
        if (e) {
            excluded_files++;
            excluded_records += records_in(found.paths[i]);
            if (opt.run.verbose) printf("excluded %s: %s\n", found.paths[i], e->reason);
            continue;
        }
        list_add(&files, found.paths[i]);
    }
    if (files.n == 0) printf("no test files found\n");

    if (opt.fork) run_forked(&files, &opt, &total);
    else run_in_process(&files, &opt, &total);

    if (excluded_files)
        printf("%d files left out by the exceptions list (%d records)\n", excluded_files,
               excluded_records);
    if (total.excepted) printf("%d excepted (listed differences)\n", total.excepted);
    if (opt.run.trino_url)
        printf("%d error records differ in message text only, %d in position only\n",
               total.messages, total.positions);
    if (opt.run.sqe_types)
        printf("%d queries answer with column types other than SQE's (failed or excepted)\n",
               total.types);
    if (!opt.run.list_records) printf("%d passed, %d failed\n", total.passed, total.failed);
    if (total.skipped && !opt.run.list_records) {
        printf("%d skipped\n", total.skipped);
        for (int g = 0; g < slt_skip_group_count(); g++)
            if (total.skipped_by[g])
                printf("  %d %s\n", total.skipped_by[g], slt_skip_group_name(g));
    }
    slt_skip_list_free(&skip_list);
    slt_exceptions_free(&exceptions);
    list_free(&roots);
    list_free(&found);
    list_free(&files);
    return total.failed ? 1 : 0;
}
