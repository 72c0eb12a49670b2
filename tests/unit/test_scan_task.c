/*
 * test_scan_task.c: unit tests of scan tasks (src/scan/scan_task.h, exec/scan_task_run.h).
 * Writes a Parquet data file (5 row groups, Iceberg field ids) and its delete files (position
 * deletes, a deletion vector, equality deletes), builds a task of every kind over them (whole
 * file, byte ranges and row-group lists, each kind of delete, residuals using calls with and
 * without bind data, casts, IN lists, CASE, COALESCE, limits, partial aggregation with and
 * without group keys), and checks for each one that
 *   - running the task in this process,
 *   - encoding it, decoding it in a fresh process (this binary re-executed with
 *     --run-task FILE) and running it there, and
 *   - the rows computed directly from the generator (no file read)
 * give the same rows. Also: hostile encodings (every truncation, every byte flipped, bad
 * counts and versions) are refused with an error and never crash, credentials never show in
 * the description, and the planner (scan_task_plan.h) splits files on row-group boundaries.
 * With SCAN_TASK_SEED_DIR set, the encoded tasks are written there (the fuzz seed corpus).
 * The fuzz regressions (files under tests/fuzz/scan_task_regressions) are decoded here too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/arena.h"
#include "exec/scan_task_run.h"
#include "format/parquet/pq_reader.h"
#include "format/parquet/pq_writer.h"
#include "func/func.h"
#include "iceberg/delete_write.h"
#include "iceberg/metadata.h"
#include "iceberg/roaring.h"
#include "iceberg/scan_plan.h"
#include "plan/plan.h"
#include "scan/scan_task.h"
#include "scan/scan_task_plan.h"
#include "sqe/sqe.h"
#include "vec/vec_format.h"

#define N_ROWS 5000
#define RG_ROWS 1000

static char tmpdir[256];
static char data_path[512], pos_path[512], dv_path[512], eq_path[512];
static int64_t dv_offset, dv_size;
static const char *self_exe;

/* ---- the data: row i of the file ---- */
static int32_t row_id(int i) { return i; }
static void row_grp(int i, char *buf) { snprintf(buf, 16, "grp%d", i % 7); }
static bool row_val_null(int i) { return i % 11 == 0; }
static double row_val(int i) { return i * 0.5; }
static int64_t row_big(int i) { return (int64_t)i * i % 1000; }
static bool pos_deleted(int i) { return i % 13 == 0; }
static bool dv_deleted(int i) { return i % 17 == 3; }
static bool eq_deleted(int i) { return i == 5 || i == 6 || i == 7 || (i >= 100 && i < 120) || i == 4321; }

static const char *tpath(const char *name, char *buf) {
    snprintf(buf, 512, "%s/%s", tmpdir, name);
    return buf;
}

static void write_data(void) {
    pq_writer_options o;
    pq_writer_options_init(&o);
    int32_t fids[4] = {1, 2, 3, 4};
    o.field_ids = fids;
    o.row_group_rows = RG_ROWS;
    const char *names[4] = {"id", "grp", "val", "big"};
    sqe_type types[4] = {type_make(TYPE_INTEGER), type_varchar(0), type_make(TYPE_DOUBLE),
                         type_make(TYPE_BIGINT)};
    pq_writer *w;
    assert_int_equal(pq_writer_open(data_path, 4, names, types, &o, NULL, &w, NULL), SQE_OK);
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 4, types, 500, NULL, NULL), SQE_OK);
    for (int at = 0; at < N_ROWS; at += 500) {
        vec_chunk_reset(&c);
        for (int k = 0; k < 500; k++) {
            int i = at + k;
            VEC_DATA(&c.cols[0], int32_t)[k] = row_id(i);
            char g[16];
            row_grp(i, g);
            bool ok = true;
            VEC_DATA(&c.cols[1], sqe_str)[k] = vec_str_copy(&c.cols[1], g, (uint32_t)strlen(g), &ok);
            if (row_val_null(i)) vec_set_null(&c.cols[2], k);
            else VEC_DATA(&c.cols[2], double)[k] = row_val(i);
            VEC_DATA(&c.cols[3], int64_t)[k] = row_big(i);
        }
        c.count = 500;
        assert_int_equal(pq_writer_write(w, &c, NULL), SQE_OK);
    }
    assert_int_equal(pq_writer_close(w, NULL, NULL), SQE_OK);
    vec_chunk_destroy(&c);
}

static void write_deletes(void) {
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    ice_roaring pos, dv;
    ice_roaring_init(&pos);
    ice_roaring_init(&dv);
    for (int i = 0; i < N_ROWS; i++) {
        if (pos_deleted(i)) ice_roaring_add(&pos, (uint64_t)i, NULL);
        if (dv_deleted(i)) ice_roaring_add(&dv, (uint64_t)i, NULL);
    }
    ice_delete_target t = {.data_file_path = data_path, .positions = &pos};
    ice_data_file out;
    assert_int_equal(ice_position_delete_file_write(&a, pos_path, &t, 1, NULL, &out, &err), SQE_OK);
    t.positions = &dv;
    assert_int_equal(ice_dv_file_write(&a, dv_path, &t, 1, &out, &err), SQE_OK);
    dv_offset = out.content_offset;
    dv_size = out.content_size_in_bytes;
    ice_roaring_reset(&pos);
    ice_roaring_reset(&dv);
    arena_destroy(&a);
    /* equality deletes on id (field 1) */
    pq_writer_options o;
    pq_writer_options_init(&o);
    int32_t fid = 1;
    o.field_ids = &fid;
    const char *name = "id";
    sqe_type ty = type_make(TYPE_INTEGER);
    pq_writer *w;
    assert_int_equal(pq_writer_open(eq_path, 1, &name, &ty, &o, NULL, &w, NULL), SQE_OK);
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 1, &ty, 64, NULL, NULL), SQE_OK);
    uint32_t n = 0;
    for (int i = 0; i < N_ROWS; i++)
        if (eq_deleted(i)) VEC_DATA(&c.cols[0], int32_t)[n++] = i;
    c.count = n;
    assert_int_equal(pq_writer_write(w, &c, NULL), SQE_OK);
    assert_int_equal(pq_writer_close(w, NULL, NULL), SQE_OK);
    vec_chunk_destroy(&c);
}

/* ---- rows as sorted text ---- */

typedef struct rows {
    char **v;
    size_t n, cap;
} rows;

static void rows_add(rows *r, const char *s) {
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
    }
    r->v[r->n++] = strdup(s);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted rows joined by newlines (caller frees). */
static char *rows_text(rows *r) {
    if (r->n) qsort(r->v, r->n, sizeof *r->v, cmp_str);
    strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < r->n; i++) {
        strbuf_puts(&sb, r->v[i]);
        strbuf_putc(&sb, '\n');
        free(r->v[i]);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
    char *s = strbuf_move(&sb);
    return s ? s : strdup("");
}

static void format_cell(const vec *v, uint32_t row, strbuf *sb) {
    if (vec_is_null(v, row)) strbuf_puts(sb, "NULL");
    else vec_format_value(v, row, sb);
}

static int collect(void *ud, const vec_chunk *c, sqe_error *err) {
    (void)err;
    rows *r = ud;
    strbuf sb;
    strbuf_init(&sb);
    for (uint32_t i = 0; i < c->count; i++) {
        strbuf_clear(&sb);
        for (uint32_t k = 0; k < c->n_cols; k++) {
            if (k) strbuf_putc(&sb, '|');
            format_cell(&c->cols[k], i, &sb);
        }
        rows_add(r, sb.data ? sb.data : "");
    }
    strbuf_reset(&sb);
    return SQE_OK;
}

static int to_final(void *ud, const vec_chunk *c, sqe_error *err) {
    return scan_task_final_add(ud, c, err);
}

/* Runs t; aggregating tasks are finalized. Returns the sorted rows, or NULL with *err set. */
static char *run_task_text(const scan_task *t, sqe_error *err) {
    rows r = {0};
    int rc;
    if (t->aggregate) {
        scan_task_final *f;
        rc = scan_task_final_create(t, NULL, &f, err);
        if (!rc) rc = scan_task_run(t, NULL, to_final, f, err);
        if (!rc) rc = scan_task_final_finish(f, collect, &r, err);
        scan_task_final_destroy(f);
    } else {
        rc = scan_task_run(t, NULL, collect, &r, err);
    }
    char *s = rows_text(&r);
    if (rc) {
        free(s);
        return NULL;
    }
    return s;
}

/* The child: decode the task in FILE, run it, print its rows. */
static int child_main(const char *file) {
    sqe_error err;
    if (func_registry_init(&err)) return 3;
    FILE *fp = fopen(file, "rb");
    if (!fp) return 4;
    uint8_t *buf = malloc(1 << 20);
    size_t len = fread(buf, 1, 1 << 20, fp);
    fclose(fp);
    arena a;
    arena_init(&a, NULL);
    scan_task t;
    int rc = scan_task_decode(&a, buf, len, &t, &err);
    if (rc) {
        fprintf(stderr, "decode: %s\n", err.message);
        return 5;
    }
    char *s = run_task_text(&t, &err);
    if (!s) {
        fprintf(stderr, "run: %s\n", err.message);
        return 6;
    }
    fputs(s, stdout);
    free(s);
    free(buf);
    arena_destroy(&a);
    return 0;
}

/* Runs the encoded task in a fresh process; returns its output (caller frees). */
static char *run_in_child(const uint8_t *enc, size_t len) {
    char file[512];
    static int k;
    char name[64];
    snprintf(name, sizeof name, "task%d.bin", k++);
    tpath(name, file);
    FILE *fp = fopen(file, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(enc, 1, len, fp), len);
    fclose(fp);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        close(pipefd[1]);
        execl(self_exe, self_exe, "--run-task", file, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    strbuf sb;
    strbuf_init(&sb);
    char buf[65536];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0) strbuf_append(&sb, buf, (size_t)n);
    close(pipefd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *s = strbuf_move(&sb);
    return s ? s : strdup("");
}

/* With SCAN_TASK_SEED_DIR set, writes an encoded task there as a fuzz seed. */
static void write_seed(const char *label, const uint8_t *enc, size_t len) {
    const char *seeds = getenv("SCAN_TASK_SEED_DIR");
    if (!seeds) return;
    char p[600];
    snprintf(p, sizeof p, "%s/%s.bin", seeds, label);
    FILE *fp = fopen(p, "wb");
    if (!fp) return;
    fwrite(enc, 1, len, fp);
    fclose(fp);
}

/* Encodes t, checks decode(encode(t)) re-encodes to the same bytes, runs it here and in a
 * fresh process, and compares both with expected. */
static void check_task(const scan_task *t, const char *label, char *expected) {
    sqe_error err;
    uint8_t *enc;
    size_t len;
    assert_int_equal(scan_task_encode(t, &enc, &len, &err), SQE_OK);
    arena a;
    arena_init(&a, NULL);
    scan_task d;
    int rc = scan_task_decode(&a, enc, len, &d, &err);
    if (rc) fail_msg("%s: decode: %s", label, err.message);
    uint8_t *enc2;
    size_t len2;
    assert_int_equal(scan_task_encode(&d, &enc2, &len2, &err), SQE_OK);
    assert_int_equal(len, len2);
    assert_memory_equal(enc, enc2, len);
    free(enc2);
    write_seed(label, enc, len);
    char *here = run_task_text(t, &err);
    if (!here) fail_msg("%s: run: %s", label, err.message);
    char *decoded_here = run_task_text(&d, &err);
    if (!decoded_here) fail_msg("%s: run decoded: %s", label, err.message);
    char *there = run_in_child(enc, len);
    if (strcmp(here, expected) != 0) {
        fprintf(stderr, "%s: in-process rows differ from expected\n--- got (%zu bytes)\n%.2000s\n--- expected (%zu bytes)\n%.2000s\n",
                label, strlen(here), here, strlen(expected), expected);
        fail();
    }
    assert_string_equal(decoded_here, expected);
    if (strcmp(there, expected) != 0) {
        fprintf(stderr, "%s: fresh-process rows differ\n%.2000s\n", label, there);
        fail();
    }
    assert_true(strlen(expected) > 0);
    free(here);
    free(decoded_here);
    free(there);
    free(expected);
    free(enc);
    arena_destroy(&a);
}

/* ---- building tasks and expressions ---- */

static arena A;
static plan_ctx P;

static const scan_task_column COLS[] = {
    {SCAN_COL_FIELD, 1, "id", {TYPE_INTEGER, 0, 0, 0, NULL}},
    {SCAN_COL_FIELD, 2, "grp", {TYPE_VARCHAR, 0, 0, 0, NULL}},
    {SCAN_COL_FIELD, 3, "val", {TYPE_DOUBLE, 0, 0, 0, NULL}},
    {SCAN_COL_FIELD, 4, "big", {TYPE_BIGINT, 0, 0, 0, NULL}},
    {SCAN_COL_POS, 0, "$pos", {TYPE_BIGINT, 0, 0, 0, NULL}},
    {SCAN_COL_FIELD, 99, "missing", {TYPE_VARCHAR, 0, 0, 0, NULL}}, /* not in the file: NULL */
};
enum { C_ID, C_GRP, C_VAL, C_BIG, C_POS, C_MISSING, N_COLS };
static const uint32_t OUT_ALL[] = {C_ID, C_GRP, C_VAL, C_BIG, C_POS, C_MISSING};

static void base_task(scan_task *t) {
    scan_task_init(t);
    t->path = data_path;
    t->data_sequence_number = 1;
    t->n_columns = N_COLS;
    t->columns = COLS;
    t->n_output = N_COLS;
    t->output = OUT_ALL;
}

static bexpr *col(uint32_t i) { return bexpr_column(&P, scan_task_col_id(i), COLS[i].type); }

static bexpr *call(const char *name, uint32_t n, ...) {
    bexpr *args[8];
    sqe_type types[8];
    va_list ap;
    va_start(ap, n);
    for (uint32_t i = 0; i < n; i++) {
        args[i] = va_arg(ap, bexpr *);
        types[i] = args[i]->type;
    }
    va_end(ap);
    func_resolved res;
    sqe_error err;
    if (func_resolve_scalar(&A, name, types, n, NULL, &res, &err)) fail_msg("%s: %s", name, err.message);
    bexpr *e = bexpr_new(&P, BEXPR_CALL, res.ret, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(type_equal(res.arg_types[i], types[i]));
        e->args[i] = args[i];
    }
    e->u.call.def = res.scalar;
    e->u.call.name = res.scalar->name;
    if (res.scalar->bind_fn) {
        const vec *consts[8];
        for (uint32_t i = 0; i < n; i++) consts[i] = args[i]->kind == BEXPR_CONST ? args[i]->u.constant : NULL;
        assert_int_equal(res.scalar->bind_fn(&A, types, consts, n, res.ret, &e->u.call.bind_data, &err), SQE_OK);
    }
    return e;
}

static bexpr *node(bexpr_kind k, sqe_type t, uint32_t n, ...) {
    bexpr *e = bexpr_new(&P, k, t, n);
    va_list ap;
    va_start(ap, n);
    for (uint32_t i = 0; i < n; i++) e->args[i] = va_arg(ap, bexpr *);
    va_end(ap);
    return e;
}

static bexpr *str(const char *s) { return bexpr_const_str(&P, type_varchar(0), s, strlen(s)); }
static bexpr *i32(int v) { return bexpr_const_int64(&P, type_make(TYPE_INTEGER), v); }
static sqe_type BOOL_T(void) { return type_make(TYPE_BOOLEAN); }

/* The expected text of a non-aggregating task over OUT_ALL columns: rows passing keep(i). */
typedef bool (*keep_fn)(int i);

static char *fmt_double(double d) {
    vec v;
    vec_init(&v, type_make(TYPE_DOUBLE), 1, NULL, NULL);
    VEC_DATA(&v, double)[0] = d;
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(&v, 0, &sb);
    vec_destroy(&v);
    return strbuf_move(&sb);
}

static void expected_row(int i, strbuf *sb) {
    char g[16];
    row_grp(i, g);
    strbuf_printf(sb, "%d|%s|", row_id(i), g);
    if (row_val_null(i)) {
        strbuf_puts(sb, "NULL");
    } else {
        char *d = fmt_double(row_val(i));
        strbuf_puts(sb, d);
        free(d);
    }
    strbuf_printf(sb, "|%lld|%d|NULL", (long long)row_big(i), i);
}

static char *expected_rows(keep_fn keep, int lo, int hi, int64_t limit) {
    rows r = {0};
    strbuf sb;
    strbuf_init(&sb);
    int64_t n = 0;
    for (int i = lo; i < hi; i++) {
        if (keep && !keep(i)) continue;
        if (limit >= 0 && n >= limit) break;
        strbuf_clear(&sb);
        expected_row(i, &sb);
        rows_add(&r, sb.data);
        n++;
    }
    strbuf_reset(&sb);
    return rows_text(&r);
}

/* ---- tests ---- */

static void test_whole_file(void **state) {
    (void)state;
    scan_task t;
    base_task(&t);
    check_task(&t, "whole_file", expected_rows(NULL, 0, N_ROWS, -1));
}

static void rg_offsets(int64_t *starts, uint32_t *n) {
    pq_file *f;
    assert_int_equal(pq_file_open(data_path, &f, NULL), SQE_OK);
    *n = f->meta->n_row_groups;
    assert_int_equal(*n, N_ROWS / RG_ROWS);
    for (uint32_t g = 0; g < *n; g++) {
        const pq_column_meta *m = &f->meta->row_groups[g].columns[0].meta_data;
        starts[g] = m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
                            m->dictionary_page_offset < m->data_page_offset
                        ? m->dictionary_page_offset
                        : m->data_page_offset;
    }
    starts[*n] = (int64_t)f->size;
    pq_file_release(f);
}

static void test_byte_ranges_and_row_groups(void **state) {
    (void)state;
    int64_t starts[16];
    uint32_t n;
    rg_offsets(starts, &n);
    scan_task t;
    base_task(&t);
    t.range_kind = SCAN_RANGE_BYTES;
    t.offset = starts[1];
    t.length = starts[3] - starts[1];
    check_task(&t, "bytes_rg1_2", expected_rows(NULL, 1 * RG_ROWS, 3 * RG_ROWS, -1));
    /* a range starting inside row group 0 and ending inside row group 1 holds row group 1 */
    t.offset = starts[0] + 1;
    t.length = starts[2] - starts[0] - 2;
    check_task(&t, "bytes_mid", expected_rows(NULL, 1 * RG_ROWS, 2 * RG_ROWS, -1));
    base_task(&t);
    uint32_t groups[2] = {0, 4};
    t.range_kind = SCAN_RANGE_ROW_GROUPS;
    t.n_row_groups = 2;
    t.row_groups = groups;
    rows r = {0};
    char *a = expected_rows(NULL, 0, RG_ROWS, -1), *b = expected_rows(NULL, 4 * RG_ROWS, N_ROWS, -1);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, a);
    strbuf_puts(&sb, b);
    free(a);
    free(b);
    /* re-sort the concatenation */
    char *all = strbuf_move(&sb), *save = NULL;
    for (char *line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) rows_add(&r, line);
    free(all);
    check_task(&t, "row_groups_0_4", rows_text(&r));
}

static bool keep_pos(int i) { return !pos_deleted(i); }
static bool keep_dv(int i) { return !dv_deleted(i); }
static bool keep_eq(int i) { return !eq_deleted(i); }
static bool keep_pos_eq(int i) { return !pos_deleted(i) && !eq_deleted(i); }

static void test_deletes(void **state) {
    (void)state;
    scan_task t;
    scan_task_delete pos = {.kind = SCAN_DELETE_POSITION, .path = pos_path, .sequence_number = 2};
    scan_task_delete dv = {.kind = SCAN_DELETE_DV, .path = dv_path, .sequence_number = 2,
                           .referenced_data_file = data_path, .content_offset = dv_offset,
                           .content_size = dv_size};
    int32_t eq_ids[1] = {1};
    scan_task_delete eq = {.kind = SCAN_DELETE_EQUALITY, .path = eq_path, .sequence_number = 2,
                           .n_equality_ids = 1, .equality_ids = eq_ids};
    base_task(&t);
    t.n_deletes = 1;
    t.deletes = &pos;
    check_task(&t, "delete_position", expected_rows(keep_pos, 0, N_ROWS, -1));
    t.deletes = &dv;
    check_task(&t, "delete_dv", expected_rows(keep_dv, 0, N_ROWS, -1));
    t.deletes = &eq;
    check_task(&t, "delete_equality", expected_rows(keep_eq, 0, N_ROWS, -1));
    scan_task_delete both[2] = {pos, eq};
    t.n_deletes = 2;
    t.deletes = both;
    check_task(&t, "delete_position_equality", expected_rows(keep_pos_eq, 0, N_ROWS, -1));
    /* the equality key (id) not among the columns read: read in addition */
    static const scan_task_column cols2[] = {
        {SCAN_COL_FIELD, 2, "grp", {TYPE_VARCHAR, 0, 0, 0, NULL}},
        {SCAN_COL_POS, 0, "$pos", {TYPE_BIGINT, 0, 0, 0, NULL}},
    };
    static const uint32_t out2[] = {1, 0};
    t.columns = cols2;
    t.n_columns = 2;
    t.output = out2;
    t.n_output = 2;
    t.n_deletes = 1;
    t.deletes = &eq;
    rows r = {0};
    for (int i = 0; i < N_ROWS; i++) {
        if (!keep_eq(i)) continue;
        char g[16], line[64];
        row_grp(i, g);
        snprintf(line, sizeof line, "%d|%s", i, g);
        rows_add(&r, line);
    }
    check_task(&t, "delete_equality_extra_column", rows_text(&r));
    /* a delete file older than the data file does not apply */
    base_task(&t);
    t.data_sequence_number = 3;
    t.n_deletes = 1;
    t.deletes = &pos;
    check_task(&t, "delete_older_ignored", expected_rows(NULL, 0, N_ROWS, -1));
}

/* residual 1: val > 100.0 AND grp <> 'grp3' */
static bool keep_r1(int i) {
    char g[16];
    row_grp(i, g);
    return !row_val_null(i) && row_val(i) > 100.0 && strcmp(g, "grp3") != 0;
}
/* residual 2: grp LIKE '%p5' OR id IN (1, 2, 3, 500, 4999) OR COALESCE(val, -1.0) < 0.0
 *             OR CAST(big AS varchar) = '4' */
static bool keep_r2(int i) {
    char g[16];
    row_grp(i, g);
    return strcmp(g, "grp5") == 0 || i == 1 || i == 2 || i == 3 || i == 500 || i == 4999 ||
           row_val_null(i) || row_big(i) == 4;
}
/* residual 3: NOT (val IS NULL) AND CASE WHEN id % 4 = 0 THEN TRUE ELSE FALSE END */
static bool keep_r3(int i) { return !row_val_null(i) && i % 4 == 0; }

static bexpr *residual1(void) {
    return node(BEXPR_AND, BOOL_T(), 2, call("$gt", 2, col(C_VAL), bexpr_const_double(&P, 100.0)),
                call("$ne", 2, col(C_GRP), str("grp3")));
}

static bexpr *residual2(void) {
    bexpr *in = node(BEXPR_IN_LIST, BOOL_T(), 6, col(C_ID), i32(1), i32(2), i32(3), i32(500), i32(4999));
    bexpr *co = node(BEXPR_COALESCE, type_make(TYPE_DOUBLE), 2, col(C_VAL), bexpr_const_double(&P, -1.0));
    bexpr *cast = node(BEXPR_CAST, type_varchar(0), 1, col(C_BIG));
    return node(BEXPR_OR, BOOL_T(), 4, call("like", 2, col(C_GRP), str("%p5")), in,
                call("$lt", 2, co, bexpr_const_double(&P, 0.0)), call("$eq", 2, cast, str("4")));
}

static bexpr *residual3(void) {
    bexpr *isnull = node(BEXPR_IS_NULL, BOOL_T(), 1, col(C_VAL));
    bexpr *cond = call("$eq", 2, call("$modulus", 2, col(C_ID), i32(4)), i32(0));
    bexpr *cs = node(BEXPR_CASE, BOOL_T(), 3, cond, bexpr_const_bool(&P, true), bexpr_const_bool(&P, false));
    cs->u.case_has_else = true;
    return node(BEXPR_AND, BOOL_T(), 2, node(BEXPR_NOT, BOOL_T(), 1, isnull), cs);
}

static void test_residuals_and_limit(void **state) {
    (void)state;
    scan_task t;
    base_task(&t);
    t.residual = residual1();
    check_task(&t, "residual_compare", expected_rows(keep_r1, 0, N_ROWS, -1));
    t.residual = residual2();
    check_task(&t, "residual_like_in_cast", expected_rows(keep_r2, 0, N_ROWS, -1));
    t.residual = residual3();
    check_task(&t, "residual_case_not", expected_rows(keep_r3, 0, N_ROWS, -1));
    /* residual + deletes + byte range */
    int64_t starts[16];
    uint32_t n;
    rg_offsets(starts, &n);
    scan_task_delete pos = {.kind = SCAN_DELETE_POSITION, .path = pos_path, .sequence_number = 2};
    t.residual = residual1();
    t.n_deletes = 1;
    t.deletes = &pos;
    t.range_kind = SCAN_RANGE_BYTES;
    t.offset = starts[2];
    t.length = starts[n] - starts[2];
    rows r = {0};
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 2 * RG_ROWS; i < N_ROWS; i++) {
        if (!keep_r1(i) || pos_deleted(i)) continue;
        strbuf_clear(&sb);
        expected_row(i, &sb);
        rows_add(&r, sb.data);
    }
    strbuf_reset(&sb);
    check_task(&t, "residual_delete_range", rows_text(&r));
    /* limits: the rows come in file order, so the first `limit` surviving rows */
    base_task(&t);
    t.limit = 10;
    t.residual = residual3();
    check_task(&t, "limit_residual", expected_rows(keep_r3, 0, N_ROWS, 10));
    t.limit = 0;
    t.residual = NULL;
    uint8_t *enc;
    size_t len;
    sqe_error err;
    assert_int_equal(scan_task_encode(&t, &enc, &len, &err), SQE_OK);
    free(enc);
    char *s = run_task_text(&t, &err);
    assert_string_equal(s, "");
    free(s);
    t.limit = 2500; /* across row groups */
    check_task(&t, "limit_2500", expected_rows(NULL, 0, N_ROWS, 2500));
}

static scan_task_agg make_agg(const char *name, uint32_t n, const uint32_t *args) {
    sqe_type *types = ARENA_ARRAY(&A, sqe_type, n + 1);
    for (uint32_t i = 0; i < n; i++) types[i] = COLS[args[i]].type;
    func_resolved res;
    sqe_error err;
    if (func_resolve_agg(&A, name, types, n, &res, &err)) fail_msg("%s: %s", name, err.message);
    return (scan_task_agg){.name = name, .n_args = n, .args = args, .arg_types = types, .ret = res.ret};
}

typedef struct group_expect {
    int64_t count, count_val, sum_big;
    double sum_val;
    int32_t max_id;
    bool any;
} group_expect;

static void test_partial_aggregation(void **state) {
    (void)state;
    static const uint32_t a_big[] = {C_BIG}, a_val[] = {C_VAL}, a_id[] = {C_ID};
    scan_task_agg aggs[5] = {make_agg("count", 0, NULL), make_agg("sum", 1, a_big),
                             make_agg("avg", 1, a_val), make_agg("count", 1, a_val),
                             make_agg("max", 1, a_id)};
    static const uint32_t keys[] = {C_GRP};
    scan_task t;
    base_task(&t);
    t.aggregate = true;
    t.n_keys = 1;
    t.keys = keys;
    t.n_aggs = 5;
    t.aggs = aggs;
    t.residual = residual1();
    scan_task_delete eq;
    int32_t eq_ids[1] = {1};
    eq = (scan_task_delete){.kind = SCAN_DELETE_EQUALITY, .path = eq_path, .sequence_number = 2,
                            .n_equality_ids = 1, .equality_ids = eq_ids};
    t.n_deletes = 1;
    t.deletes = &eq;
    sqe_error err;
    assert_int_equal(scan_task_resolve_aggs(&A, &t, &err), SQE_OK);
    for (int pass = 0; pass < 2; pass++) {
        group_expect ge[8];
        memset(ge, 0, sizeof ge);
        for (int i = 0; i < N_ROWS; i++) {
            if (eq_deleted(i)) continue;
            if (pass == 0 && !keep_r1(i)) continue;
            group_expect *g = pass == 0 ? &ge[i % 7] : &ge[7];
            g->any = true;
            g->count++;
            g->sum_big += row_big(i);
            if (!row_val_null(i)) {
                g->count_val++;
                g->sum_val += row_val(i);
            }
            if (row_id(i) > g->max_id) g->max_id = row_id(i);
        }
        rows r = {0};
        for (int k = pass == 0 ? 0 : 7; k < 8; k++) {
            group_expect *g = &ge[k];
            if (pass == 0 && !g->any) continue;
            char line[256], *avg = g->count_val ? fmt_double(g->sum_val / (double)g->count_val) : strdup("NULL");
            if (pass == 0)
                snprintf(line, sizeof line, "grp%d|%lld|%lld|%s|%lld|%d", k, (long long)g->count,
                         (long long)g->sum_big, avg, (long long)g->count_val, g->max_id);
            else
                snprintf(line, sizeof line, "%lld|%lld|%s|%lld|%d", (long long)g->count,
                         (long long)g->sum_big, avg, (long long)g->count_val, g->max_id);
            free(avg);
            rows_add(&r, line);
        }
        check_task(&t, pass == 0 ? "partial_agg_grouped" : "partial_agg_global", rows_text(&r));
        /* the second pass: a global aggregate (no keys, no residual) */
        t.n_keys = 0;
        t.residual = NULL;
    }
    /* a global aggregate over no rows still gives its row */
    t.residual = node(BEXPR_AND, BOOL_T(), 1, bexpr_const_bool(&P, false));
    rows r = {0};
    rows_add(&r, "0|NULL|NULL|0|NULL");
    check_task(&t, "partial_agg_empty", rows_text(&r));
    /* partials of several tasks (byte ranges) merge into the whole */
    int64_t starts[16];
    uint32_t n;
    rg_offsets(starts, &n);
    t.residual = NULL;
    t.n_deletes = 0;
    scan_task_final *f;
    assert_int_equal(scan_task_final_create(&t, NULL, &f, &err), SQE_OK);
    for (uint32_t g = 0; g < n; g++) {
        scan_task part = t;
        part.range_kind = SCAN_RANGE_BYTES;
        part.offset = starts[g];
        part.length = starts[g + 1] - starts[g];
        assert_int_equal(scan_task_run(&part, NULL, to_final, f, &err), SQE_OK);
    }
    rows got = {0};
    assert_int_equal(scan_task_final_finish(f, collect, &got, &err), SQE_OK);
    scan_task_final_destroy(f);
    char *merged = rows_text(&got);
    char *whole = run_task_text(&t, &err);
    assert_string_equal(merged, whole);
    free(merged);
    free(whole);
    /* an aggregate whose state owns memory cannot cross */
    static const uint32_t a_grp[] = {C_GRP};
    scan_task_agg bad = make_agg("array_agg", 1, a_grp);
    t.n_aggs = 1;
    t.aggs = &bad;
    assert_int_equal(scan_task_resolve_aggs(&A, &t, &err), SQE_OK);
    char *s = run_task_text(&t, &err);
    assert_null(s);
    assert_int_equal(err.code, SQE_ERR_NOT_SUPPORTED);
}

static void test_credentials_and_describe(void **state) {
    (void)state;
    scan_task t;
    base_task(&t);
    t.credentials = (scan_task_credentials){.present = true, .access_key_id = "AKIDEXAMPLE",
                                            .secret_access_key = "wJalrXUtnFEMI/K7MDENG+SECRET",
                                            .session_token = "SESSIONTOKENSECRET",
                                            .region = "us-east-1",
                                            .principal_token = "eyJprincipal.SECRET"};
    uint8_t *enc;
    size_t len;
    sqe_error err;
    assert_int_equal(scan_task_encode(&t, &enc, &len, &err), SQE_OK);
    write_seed("credentials", enc, len);
    arena a;
    arena_init(&a, NULL);
    scan_task d;
    assert_int_equal(scan_task_decode(&a, enc, len, &d, &err), SQE_OK);
    assert_true(d.credentials.present);
    assert_string_equal(d.credentials.secret_access_key, t.credentials.secret_access_key);
    assert_string_equal(d.credentials.principal_token, t.credentials.principal_token);
    assert_null(d.credentials.endpoint);
    strbuf sb;
    strbuf_init(&sb);
    scan_task_describe(&d, &sb);
    assert_non_null(strstr(sb.data, "credentials: present"));
    assert_null(strstr(sb.data, "SECRET"));
    assert_null(strstr(sb.data, "AKID"));
    strbuf_reset(&sb);
    /* a local file reads the same with credentials (they only matter for object stores) */
    char *s = run_task_text(&d, &err);
    assert_non_null(s);
    char *e = expected_rows(NULL, 0, N_ROWS, -1);
    assert_string_equal(s, e);
    free(s);
    free(e);
    const char *secret = d.credentials.secret_access_key;
    scan_task_wipe_credentials(&d);
    assert_false(d.credentials.present);
    assert_int_equal(secret[0], 0);
    memset(enc, 0, len);
    free(enc);
    arena_destroy(&a);
}

/* Every truncation and every single-byte change of every encoded kind of task is either
 * refused with a message or decodes to a task that validates. */
static void test_hostile_encodings(void **state) {
    (void)state;
    scan_task t;
    base_task(&t);
    t.residual = residual2();
    scan_task_delete pos = {.kind = SCAN_DELETE_POSITION, .path = pos_path, .sequence_number = 2};
    t.n_deletes = 1;
    t.deletes = &pos;
    t.limit = 5;
    t.credentials = (scan_task_credentials){.present = true, .access_key_id = "k",
                                            .secret_access_key = "s"};
    uint8_t *enc;
    size_t len;
    sqe_error err;
    assert_int_equal(scan_task_encode(&t, &enc, &len, &err), SQE_OK);
    arena a;
    arena_init(&a, NULL);
    scan_task d;
    for (size_t n = 0; n < len; n++) {
        arena_reset(&a);
        err.message[0] = 0;
        assert_int_not_equal(scan_task_decode(&a, enc, n, &d, &err), SQE_OK);
        assert_true(strlen(err.message) > 0);
    }
    uint8_t *copy = malloc(len);
    for (size_t i = 0; i < len; i++) {
        for (int flip = 0; flip < 3; flip++) {
            memcpy(copy, enc, len);
            copy[i] = flip == 0 ? copy[i] ^ 0xFF : flip == 1 ? 0 : copy[i] + 1;
            arena_reset(&a);
            if (scan_task_decode(&a, copy, len, &d, &err) == SQE_OK)
                assert_int_equal(scan_task_validate(&d, &err), SQE_OK);
            else
                assert_true(strlen(err.message) > 0);
        }
    }
    /* a newer version is NOT_SUPPORTED, a bad magic INVALID_ARGUMENTS with its offset */
    memcpy(copy, enc, len);
    copy[4] = 2;
    assert_int_equal(scan_task_decode(&a, copy, len, &d, &err), SQE_ERR_NOT_SUPPORTED);
    memcpy(copy, enc, len);
    copy[0] = 'X';
    assert_int_equal(scan_task_decode(&a, copy, len, &d, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "offset 0"));
    /* a huge column count is refused before anything is allocated */
    memcpy(copy, enc, len);
    size_t at = 12 + 5;                                    /* file section payload */
    uint32_t file_len = (uint32_t)copy[13] | (uint32_t)copy[14] << 8 | (uint32_t)copy[15] << 16 | (uint32_t)copy[16] << 24;
    at += file_len + 5;                                    /* columns payload: the count */
    copy[at] = copy[at + 1] = copy[at + 2] = 0xFF;
    copy[at + 3] = 0x0F;
    assert_int_equal(scan_task_decode(&a, copy, len, &d, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "columns"));
    free(copy);
    free(enc);
    arena_destroy(&a);
}

/* Encodes that must be refused: expressions that cannot cross, inconsistent tasks. */
static void test_encode_refuses(void **state) {
    (void)state;
    scan_task t;
    base_task(&t);
    uint8_t *enc;
    size_t len;
    sqe_error err;
    bexpr *p = bexpr_new(&P, BEXPR_PARAM, BOOL_T(), 0);
    p->u.param = 1;
    t.residual = p;
    assert_int_equal(scan_task_encode(&t, &enc, &len, &err), SQE_ERR_NOT_SUPPORTED);
    t.residual = col(C_ID); /* not boolean */
    assert_int_equal(scan_task_encode(&t, &enc, &len, &err), SQE_ERR_INVALID_ARGUMENTS);
    t.residual = NULL;
    t.limit = 3;
    t.aggregate = true;
    assert_int_equal(scan_task_encode(&t, &enc, &len, &err), SQE_ERR_INVALID_ARGUMENTS);
    base_task(&t);
    uint32_t bad_out[1] = {N_COLS};
    t.output = bad_out;
    t.n_output = 1;
    assert_int_equal(scan_task_encode(&t, &enc, &len, &err), SQE_ERR_INVALID_ARGUMENTS);
    base_task(&t);
    t.path = "/nonexistent/file.parquet";
    char *s = run_task_text(&t, &err);
    assert_null(s);
    assert_non_null(strstr(err.message, "/nonexistent/file.parquet"));
}

/* The planner: one task per file, or per byte range cut at the files' split offsets. */
static void test_plan_tasks(void **state) {
    (void)state;
    int64_t starts[16];
    uint32_t n;
    rg_offsets(starts, &n);
    ice_manifest_entry data;
    memset(&data, 0, sizeof data);
    data.status = ICE_STATUS_ADDED;
    data.has_sequence_number = true;
    data.sequence_number = 1;
    data.file.content = ICE_CONTENT_DATA;
    data.file.file_path = data_path;
    data.file.file_format = "PARQUET";
    data.file.record_count = N_ROWS;
    data.file.file_size_in_bytes = starts[n];
    data.file.has_split_offsets = true;
    data.file.n_split_offsets = n;
    data.file.split_offsets = starts;
    ice_manifest_entry pos;
    memset(&pos, 0, sizeof pos);
    pos.status = ICE_STATUS_ADDED;
    pos.has_sequence_number = true;
    pos.sequence_number = 2;
    pos.file.content = ICE_CONTENT_POSITION_DELETES;
    pos.file.file_path = pos_path;
    pos.file.file_format = "PARQUET";
    pos.file.referenced_data_file = data_path;
    const ice_manifest_entry *dl[1] = {&data}, *xl[1] = {&pos};
    ice_scan_files files;
    memset(&files, 0, sizeof files);
    files.data = dl;
    files.n_data = 1;
    files.deletes = xl;
    files.n_deletes = 1;
    scan_task proto;
    base_task(&proto);
    proto.residual = residual1();
    scan_task *tasks;
    uint32_t nt;
    sqe_error err;
    /* split at roughly two row groups */
    uint64_t split = (uint64_t)(starts[2] - starts[0]);
    assert_int_equal(scan_task_plan(&A, &files, &proto, split, &tasks, &nt, &err), SQE_OK);
    assert_true(nt >= 2 && nt <= n);
    rows all = {0};
    for (uint32_t i = 0; i < nt; i++) {
        assert_int_equal(tasks[i].range_kind, SCAN_RANGE_BYTES);
        assert_int_equal(tasks[i].n_deletes, 1);
        assert_int_equal(tasks[i].deletes[0].kind, SCAN_DELETE_POSITION);
        assert_int_equal(scan_task_run(&tasks[i], NULL, collect, &all, &err), SQE_OK);
    }
    char *got = rows_text(&all);
    rows r = {0};
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < N_ROWS; i++) {
        if (!keep_r1(i) || pos_deleted(i)) continue;
        strbuf_clear(&sb);
        expected_row(i, &sb);
        rows_add(&r, sb.data);
    }
    strbuf_reset(&sb);
    char *want = rows_text(&r);
    assert_string_equal(got, want);
    free(got);
    free(want);
    /* no splitting: one whole-file task */
    assert_int_equal(scan_task_plan(&A, &files, &proto, 0, &tasks, &nt, &err), SQE_OK);
    assert_int_equal(nt, 1);
    assert_int_equal(tasks[0].range_kind, SCAN_RANGE_WHOLE);
}


/* ---- end to end: Iceberg tables the engine wrote ---------------------------------------- */

static char *sql_rows(sqe_conn *c, const char *sql) {
    sqe_result *res;
    sqe_error err;
    if (sqe_query(c, sql, &res, &err)) fail_msg("%s: %s", sql, err.message);
    rows r = {0};
    const sqe_chunk *ch;
    strbuf sb;
    strbuf_init(&sb);
    int nc = sqe_result_column_count(res);
    while (sqe_result_next(res, &ch, &err) == SQE_OK && ch) {
        for (int i = 0; i < sqe_chunk_row_count(ch); i++) {
            strbuf_clear(&sb);
            for (int k = 0; k < nc; k++) {
                char cell[256];
                sqe_chunk_format(ch, k, i, cell, sizeof cell);
                if (k) strbuf_putc(&sb, '|');
                strbuf_puts(&sb, cell);
            }
            rows_add(&r, sb.data ? sb.data : "");
        }
    }
    strbuf_reset(&sb);
    sqe_result_destroy(res);
    return rows_text(&r);
}

static void sql_exec(sqe_conn *c, const char *sql) {
    sqe_result *res;
    sqe_error err;
    if (sqe_query(c, sql, &res, &err)) fail_msg("%s: %s", sql, err.message);
    sqe_result_destroy(res);
}

/* The table's current metadata, parsed into a (the newest metadata file of its directory). */
static ice_metadata *load_metadata(arena *a, const char *wh, const char *table) {
    char cmd[1200], path[1024];
    snprintf(cmd, sizeof cmd, "ls -1 %s/*/%s*/metadata/*.metadata.json | sort | tail -n 1", wh, table);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(path, sizeof path, p));
    pclose(p);
    path[strcspn(path, "\n")] = 0;
    uint8_t *buf;
    size_t len;
    sqe_error err;
    assert_int_equal(ice_read_file(a, path, NULL, &buf, &len, &err), SQE_OK);
    ice_metadata *m;
    if (ice_metadata_parse(a, (const char *)buf, len, &m, &err)) fail_msg("%s: %s", path, err.message);
    return m;
}

/* Plans table's current snapshot into tasks (residual val > 100.0 when filtered, else all
 * rows; an aggregation by grp when aggregate), runs each task here and, encoded, in a fresh
 * process, and returns the rows of both (finalized for aggregates). */
static void table_tasks(const char *wh, const char *table, bool filtered, bool aggregate,
                        char **here, char **there, uint32_t *n_tasks, uint32_t *n_deletes) {
    arena a;
    arena_init(&a, NULL);
    ice_metadata *m = load_metadata(&a, wh, table);
    const ice_snapshot *snap = ice_metadata_current_snapshot(m);
    const ice_schema *schema = ice_metadata_current_schema(m);
    assert_non_null(snap);
    ice_scan_files files;
    sqe_error err;
    assert_int_equal(ice_scan_plan(&a, m, snap, schema, NULL, 0, &files, &err), SQE_OK);
    uint32_t nf = schema->type.n_fields;
    scan_task_column *cols = ARENA_ARRAY(&a, scan_task_column, nf);
    uint32_t *out = ARENA_ARRAY(&a, uint32_t, nf);
    uint32_t c_val = UINT32_MAX, c_grp = UINT32_MAX, c_id = UINT32_MAX;
    for (uint32_t i = 0; i < nf; i++) {
        const ice_field *f = &schema->type.fields[i];
        cols[i].kind = SCAN_COL_FIELD;
        cols[i].field_id = f->id;
        cols[i].name = f->name;
        assert_int_equal(ice_schema_to_sqe_type(&f->type, &cols[i].type, NULL), SQE_OK);
        out[i] = i;
        if (!strcmp(f->name, "val")) c_val = i;
        if (!strcmp(f->name, "grp")) c_grp = i;
        if (!strcmp(f->name, "id")) c_id = i;
    }
    assert_true(c_val != UINT32_MAX && c_grp != UINT32_MAX && c_id != UINT32_MAX);
    scan_task proto;
    scan_task_init(&proto);
    proto.n_columns = nf;
    proto.columns = cols;
    proto.n_output = nf;
    proto.output = out;
    if (filtered)
        proto.residual = call("$gt", 2, bexpr_column(&P, scan_task_col_id(c_val), cols[c_val].type),
                              bexpr_const_double(&P, 100.0));
    uint32_t keys[1] = {c_grp}, a_id[1] = {c_id};
    scan_task_agg aggs[2];
    if (aggregate) {
        sqe_type it = cols[c_id].type;
        func_resolved res;
        assert_int_equal(func_resolve_agg(&a, "sum", &it, 1, &res, &err), SQE_OK);
        aggs[0] = (scan_task_agg){.name = "count", .ret = type_make(TYPE_BIGINT)};
        aggs[1] = (scan_task_agg){.name = "sum", .n_args = 1, .args = a_id, .arg_types = &cols[c_id].type, .ret = res.ret};
        proto.aggregate = true;
        proto.n_keys = 1;
        proto.keys = keys;
        proto.n_aggs = 2;
        proto.aggs = aggs;
        assert_int_equal(scan_task_resolve_aggs(&a, &proto, &err), SQE_OK);
    }
    scan_task *tasks;
    assert_int_equal(scan_task_plan(&a, &files, &proto, 1, &tasks, n_tasks, &err), SQE_OK);
    *n_deletes = 0;
    rows local = {0}, remote = {0};
    scan_task_final *fin = NULL;
    if (aggregate) assert_int_equal(scan_task_final_create(&proto, NULL, &fin, &err), SQE_OK);
    for (uint32_t i = 0; i < *n_tasks; i++) {
        *n_deletes += tasks[i].n_deletes;
        if (aggregate) {
            assert_int_equal(scan_task_run(&tasks[i], NULL, to_final, fin, &err), SQE_OK);
        } else if (scan_task_run(&tasks[i], NULL, collect, &local, &err)) {
            fail_msg("task %u: %s", i, err.message);
        }
        if (aggregate) continue;
        uint8_t *enc;
        size_t len;
        assert_int_equal(scan_task_encode(&tasks[i], &enc, &len, &err), SQE_OK);
        char *t = run_in_child(enc, len), *save = NULL;
        for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            rows_add(&remote, line);
        free(t);
        free(enc);
    }
    if (aggregate) {
        assert_int_equal(scan_task_final_finish(fin, collect, &local, &err), SQE_OK);
        scan_task_final_destroy(fin);
        /* the same partial states, produced by fresh processes, merged here */
        scan_task_final *fin2;
        assert_int_equal(scan_task_final_create(&proto, NULL, &fin2, &err), SQE_OK);
        for (uint32_t i = 0; i < *n_tasks; i++) {
            uint8_t *enc;
            size_t len;
            assert_int_equal(scan_task_encode(&tasks[i], &enc, &len, &err), SQE_OK);
            arena b;
            arena_init(&b, NULL);
            scan_task d;
            assert_int_equal(scan_task_decode(&b, enc, len, &d, &err), SQE_OK);
            assert_int_equal(scan_task_run(&d, NULL, to_final, fin2, &err), SQE_OK);
            arena_destroy(&b);
            free(enc);
        }
        assert_int_equal(scan_task_final_finish(fin2, collect, &remote, &err), SQE_OK);
        scan_task_final_destroy(fin2);
    }
    *here = rows_text(&local);
    *there = rows_text(&remote);
    arena_destroy(&a);
}

static void test_iceberg_tables(void **state) {
    (void)state;
    char wh[600];
    snprintf(wh, sizeof wh, "%s/wh", tmpdir);
    sqe_db_options o = {.threads = 2, .warehouse = wh};
    sqe_db *db;
    sqe_conn *c;
    sqe_error err;
    assert_int_equal(sqe_db_open(&o, &db, &err), SQE_OK);
    assert_int_equal(sqe_connect(db, &c, &err), SQE_OK);
    static const char *const setup_sql[] = {
        "CREATE TABLE pos2 (id integer, grp varchar, val double) WITH (partitioning = "
        "ARRAY['grp'], format_version = 2, extra_properties = "
        "MAP(ARRAY['write.delete.mode'], ARRAY['merge-on-read']))",
        "CREATE TABLE dv3 (id integer, grp varchar, val double) WITH (format_version = 3, "
        "extra_properties = MAP(ARRAY['write.delete.mode'], ARRAY['merge-on-read']))",
    };
    static const char *const tables[] = {"pos2", "dv3"};
    for (int k = 0; k < 2; k++) {
        sql_exec(c, setup_sql[k]);
        char q[512];
        for (int batch = 0; batch < 2; batch++) {
            snprintf(q, sizeof q,
                     "INSERT INTO %s SELECT CAST(x AS integer), 'g' || CAST(x %% 3 AS varchar), CASE WHEN x %% 10 = 0 "
                     "THEN NULL ELSE x * 0.5 END FROM UNNEST(sequence(%d, %d)) AS u(x)",
                     tables[k], batch * 2000 + 1, batch * 2000 + 2000);
            sql_exec(c, q);
        }
        snprintf(q, sizeof q, "DELETE FROM %s WHERE id %% 7 = 0 OR id BETWEEN 1500 AND 1600", tables[k]);
        sql_exec(c, q);
        for (int mode = 0; mode < 3; mode++) {
            bool filtered = mode == 1, aggregate = mode == 2;
            if (aggregate)
                snprintf(q, sizeof q, "SELECT grp, count(*), sum(id) FROM %s GROUP BY grp", tables[k]);
            else
                snprintf(q, sizeof q, "SELECT id, grp, val FROM %s%s", tables[k],
                         filtered ? " WHERE val > 100.0" : "");
            char *want = sql_rows(c, q), *here, *there;
            uint32_t nt, nd;
            table_tasks(wh, tables[k], filtered, aggregate, &here, &there, &nt, &nd);
            assert_true(nt >= 2);
            assert_true(nd >= 1);
            if (strcmp(here, want) != 0) {
                fprintf(stderr, "%s mode %d: tasks differ from SQL\n--- tasks\n%.1500s\n--- SQL\n%.1500s\n",
                        tables[k], mode, here, want);
                fail();
            }
            assert_string_equal(there, want);
            free(want);
            free(here);
            free(there);
        }
    }
    sqe_disconnect(c);
    sqe_db_close(db);
}

/* Inputs the fuzzer found: each must be refused or decode to a valid task, never crash. */
static void test_fuzz_regressions(void **state) {
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/scan_task_regressions", SQE_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    uint32_t n_inputs = 0;
    struct dirent *de;
    arena a;
    arena_init(&a, NULL);
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char p[1400];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        FILE *fp = fopen(p, "rb");
        if (!fp) continue;
        uint8_t buf[65536];
        size_t len = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        scan_task t;
        sqe_error err;
        arena_reset(&a);
        if (scan_task_decode(&a, buf, len, &t, &err) == SQE_OK)
            assert_int_equal(scan_task_validate(&t, &err), SQE_OK);
        else
            assert_true(strlen(err.message) > 0);
        if (strncmp(de->d_name, "deep_not", 8) == 0) assert_non_null(strstr(err.message, "deeper than"));
        if (strncmp(de->d_name, "huge_column", 11) == 0) assert_non_null(strstr(err.message, "columns"));
        n_inputs++;
    }
    closedir(d);
    assert_true(n_inputs > 0);
    arena_destroy(&a);
}

static int setup(void **state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sqe_scan_task_XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    tpath("data.parquet", data_path);
    tpath("pos.parquet", pos_path);
    tpath("dv.puffin", dv_path);
    tpath("eq.parquet", eq_path);
    write_data();
    write_deletes();
    arena_init(&A, NULL);
    plan_ctx_init(&P, &A, NULL, NULL);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    plan_ctx_destroy(&P);
    arena_destroy(&A);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--run-task") == 0) return child_main(argv[2]);
    static char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 2;
    exe[n] = 0;
    self_exe = exe;
    if (func_registry_init(NULL)) return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_file),
        cmocka_unit_test(test_byte_ranges_and_row_groups),
        cmocka_unit_test(test_deletes),
        cmocka_unit_test(test_residuals_and_limit),
        cmocka_unit_test(test_partial_aggregation),
        cmocka_unit_test(test_credentials_and_describe),
        cmocka_unit_test(test_hostile_encodings),
        cmocka_unit_test(test_encode_refuses),
        cmocka_unit_test(test_plan_tasks),
        cmocka_unit_test(test_iceberg_tables),
        cmocka_unit_test(test_fuzz_regressions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
