/*
 * test_exec_ops_window.c: window functions (op_window.c): the segment tree on its own (against
 * brute-force range sums and in-order concatenation), and end-to-end plans over a memory table
 * compared with a naive implementation in the test: ranking functions with and without peers,
 * ntile, lag/lead with offsets, defaults and IGNORE NULLS, first/last/nth_value over frames,
 * aggregates over ROWS, RANGE (with offsets, ASC and DESC, NULL keys) and GROUPS frames, whole
 * partitions with FILTER, running frames, and several windows in one node; one and four
 * threads.
 */
#include "test_exec_util.h"

#include "exec/op_window_int.h"

/* --- segment tree ---------------------------------------------------------------------------- */

typedef struct cat_state {
    char s[64];
    int64_t sum;
} cat_state;

static void cat_init(const void *bd, uint8_t *st) { memset(st, 0, sizeof(cat_state)); }
static int cat_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const cat_state *a = (const cat_state *)src;
    cat_state *b = (cat_state *)dst;
    size_t used = strlen(b->s), room = sizeof b->s - used - 1, len = strlen(a->s);
    if (len > room) len = room;
    memcpy(b->s + used, a->s, len);
    b->s[used + len] = 0;
    b->sum += a->sum;
    return SQE_OK;
}

static const func_agg_def cat_def = {.name = "cat", .state_size = sizeof(cat_state),
                                     .init = cat_init, .combine = cat_combine};

static void test_segtree(void **state) {
    (void)state;
    mem_tracker tr;
    mem_tracker_init(&tr, "t", 0, NULL);
    func_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    for (uint64_t n = 1; n <= 37; n++) {
        exec_segtree t;
        assert_int_equal(exec_segtree_init(&t, &cat_def, NULL, n, &tr, NULL), SQE_OK);
        for (uint64_t i = 0; i < n; i++) {
            cat_state *c = (cat_state *)exec_segtree_leaf(&t, i);
            c->s[0] = (char)('a' + i % 26);
            c->sum = (int64_t)(i * i);
        }
        assert_int_equal(exec_segtree_build(&t, &ctx), SQE_OK);
        for (uint64_t lo = 0; lo < n; lo++)
            for (uint64_t hi = lo + 1; hi <= n; hi++) {
                cat_state q;
                cat_init(NULL, (uint8_t *)&q);
                assert_int_equal(exec_segtree_query(&t, &ctx, lo, hi, (uint8_t *)&q), SQE_OK);
                char want[64] = {0};
                int64_t sum = 0;
                for (uint64_t i = lo; i < hi && i < 63; i++) {
                    want[i - lo] = (char)('a' + i % 26);
                    sum += (int64_t)(i * i);
                }
                assert_string_equal(q.s, want);
                assert_int_equal(q.sum, sum);
            }
        exec_segtree_destroy(&t);
    }
    assert_int_equal(atomic_load(&tr.used), 0);
}

/* --- data ------------------------------------------------------------------------------------ */

#define N 3000

typedef struct wrow {
    int64_t id;
    bool p_null, o_null, x_null;
    int64_t p, o, x;
} wrow;

static wrow row_at(uint64_t i) {
    wrow r;
    r.id = (int64_t)i;
    r.p_null = i % 23 == 0;
    r.p = (int64_t)(i % 5);
    r.o_null = i % 19 == 0;
    r.o = (int64_t)((i * 7) % 50);
    r.x_null = i % 6 == 0;
    r.x = (int64_t)((i * 13) % 101) - 50;
    return r;
}

static void fill_w(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    wrow r = row_at(row);
    int64_t val[4] = {r.id, r.p, r.o, r.x};
    bool nul[4] = {false, r.p_null, r.o_null, r.x_null};
    VEC_DATA(v, int64_t)[idx] = val[col];
    if (nul[col]) vec_set_null(v, idx);
}

/* --- the functions under test ---------------------------------------------------------------- */

typedef struct wspec {
    const char *name;
    int n_args;          /* arguments: x, then constants a1, a2 */
    int64_t a1, a2;
    bool ignore_nulls;
    bool filter_pos;     /* FILTER (WHERE x > 0) */
    int window;          /* 0: PARTITION BY p ORDER BY o, id; 1: PARTITION BY p ORDER BY o DESC
                            NULLS FIRST; 2: OVER () */
    uint8_t unit, sb, eb;
    int64_t so, eo;      /* frame offsets (constants) */
    bool as_double;      /* result is a double */
} wspec;

#define DEF_FRAME 0, 0, 0, 0, 0
static const wspec specs[] = {
    {"row_number", 0, 0, 0, false, false, 0, DEF_FRAME, false},
    {"lag", 1, 0, 0, false, false, 0, DEF_FRAME, false},
    {"lag", 3, 2, -999, false, false, 0, DEF_FRAME, false},
    {"lead", 2, 3, 0, false, false, 0, DEF_FRAME, false},
    {"lead", 1, 0, 0, true, false, 0, DEF_FRAME, false},
    {"first_value", 1, 0, 0, false, false, 0, DEF_FRAME, false},
    {"first_value", 1, 0, 0, true, false, 0, FRAME_ROWS, BOUND_PRECEDING, BOUND_FOLLOWING, 3, 1, false},
    {"last_value", 1, 0, 0, false, false, 0, FRAME_ROWS, BOUND_CURRENT_ROW, BOUND_FOLLOWING, 0, 2, false},
    {"nth_value", 2, 2, 0, true, false, 0, FRAME_ROWS, BOUND_UNBOUNDED_PRECEDING, BOUND_UNBOUNDED_FOLLOWING, 0, 0, false},
    {"sum", 1, 0, 0, false, false, 0, FRAME_ROWS, BOUND_PRECEDING, BOUND_FOLLOWING, 2, 1, false},
    {"sum", 1, 0, 0, false, false, 0, DEF_FRAME, false},
    {"count", 1, 0, 0, false, false, 0, FRAME_ROWS, BOUND_CURRENT_ROW, BOUND_UNBOUNDED_FOLLOWING, 0, 0, false},
    {"min", 1, 0, 0, false, false, 0, FRAME_ROWS, BOUND_PRECEDING, BOUND_PRECEDING, 5, 2, false},
    {"array_agg", 1, 0, 0, false, false, 0, FRAME_ROWS, BOUND_PRECEDING, BOUND_CURRENT_ROW, 2, 0, false},
    {"ntile", -1, 7, 0, false, false, 0, DEF_FRAME, false},
    {"rank", 0, 0, 0, false, false, 1, DEF_FRAME, false},
    {"dense_rank", 0, 0, 0, false, false, 1, DEF_FRAME, false},
    {"percent_rank", 0, 0, 0, false, false, 1, DEF_FRAME, true},
    {"cume_dist", 0, 0, 0, false, false, 1, DEF_FRAME, true},
    {"sum", 1, 0, 0, false, false, 1, FRAME_RANGE, BOUND_PRECEDING, BOUND_FOLLOWING, 5, 3, false},
    {"sum", 1, 0, 0, false, false, 1, FRAME_RANGE, BOUND_FOLLOWING, BOUND_FOLLOWING, 1, 10, false},
    {"count", 0, 0, 0, false, false, 1, FRAME_GROUPS, BOUND_PRECEDING, BOUND_FOLLOWING, 1, 1, false},
    {"sum", 1, 0, 0, false, false, 1, DEF_FRAME, false},
    {"count", 1, 0, 0, false, true, 1, FRAME_RANGE, BOUND_UNBOUNDED_PRECEDING, BOUND_UNBOUNDED_FOLLOWING, 0, 0, false},
    {"max", 1, 0, 0, false, false, 1, FRAME_GROUPS, BOUND_CURRENT_ROW, BOUND_FOLLOWING, 0, 2, false},
    {"count", 0, 0, 0, false, false, 2, DEF_FRAME, false},
};
#define N_SPECS (sizeof specs / sizeof specs[0])

/* --- reference ------------------------------------------------------------------------------- */

static int g_window;

static int cmp_rows(const void *a, const void *b) {
    wrow x = row_at(*(const uint64_t *)a), y = row_at(*(const uint64_t *)b);
    if (g_window == 2) return 0;
    if (x.p_null != y.p_null) return x.p_null ? -1 : 1;
    if (!x.p_null && x.p != y.p) return x.p < y.p ? -1 : 1;
    if (x.o_null != y.o_null) {
        if (g_window == 0) return x.o_null ? 1 : -1; /* ASC NULLS LAST */
        return x.o_null ? -1 : 1;                    /* DESC NULLS FIRST */
    }
    if (!x.o_null && x.o != y.o) return (g_window == 0) == (x.o < y.o) ? -1 : 1;
    if (g_window == 0) return x.id < y.id ? -1 : x.id > y.id;
    return 0;
}

static bool peers(const wrow *a, const wrow *b, int window) {
    if (window == 2) return true;
    if (window == 0) return a->id == b->id;
    return a->o_null == b->o_null && (a->o_null || a->o == b->o);
}

static void fmt_double(double d, char *buf, size_t len) {
    vec v;
    assert_int_equal(vec_init(&v, type_make(TYPE_DOUBLE), 1, NULL, NULL), SQE_OK);
    VEC_DATA(&v, double)[0] = d;
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(&v, 0, &sb);
    snprintf(buf, len, "%s", strbuf_cstr(&sb));
    strbuf_reset(&sb);
    vec_destroy(&v);
}

/* frame [fs, fe] in partition positions 0..n-1 of position i (may be empty: fs > fe) */
static void ref_frame(const wspec *s, const wrow *P, int64_t n, int64_t i, int64_t *fs,
                      int64_t *fe) {
    uint8_t unit = s->unit ? s->unit : FRAME_RANGE;
    uint8_t sb = s->sb ? s->sb : BOUND_UNBOUNDED_PRECEDING;
    uint8_t eb = s->eb ? s->eb : (s->window == 2 ? BOUND_UNBOUNDED_FOLLOWING : BOUND_CURRENT_ROW);
    int64_t pb = i, pe = i; /* peer group of i */
    while (pb > 0 && peers(&P[pb - 1], &P[i], s->window)) pb--;
    while (pe + 1 < n && peers(&P[pe + 1], &P[i], s->window)) pe++;
    /* peer group numbers */
    int64_t gi = 0;
    for (int64_t k = 1; k <= i; k++)
        if (!peers(&P[k - 1], &P[k], s->window)) gi++;
    for (int side = 0; side < 2; side++) {
        uint8_t b = side ? eb : sb;
        int64_t off = side ? s->eo : s->so;
        int64_t *dst = side ? fe : fs;
        if (b == BOUND_UNBOUNDED_PRECEDING) { *dst = 0; continue; }
        if (b == BOUND_UNBOUNDED_FOLLOWING) { *dst = n - 1; continue; }
        if (b == BOUND_CURRENT_ROW) {
            *dst = unit == FRAME_ROWS ? i : side ? pe : pb;
            continue;
        }
        int64_t sign = b == BOUND_PRECEDING ? -1 : 1;
        if (unit == FRAME_ROWS) {
            *dst = i + sign * off;
        } else if (unit == FRAME_GROUPS) {
            int64_t target = gi + sign * off, g = 0, first = -1, last = -1;
            for (int64_t k = 0; k < n; k++) {
                if (k && !peers(&P[k - 1], &P[k], s->window)) g++;
                if (g == target) {
                    if (first < 0) first = k;
                    last = k;
                }
            }
            if (first < 0)
                *dst = side ? (target < 0 ? -1 : n - 1) : (target < 0 ? 0 : n);
            else
                *dst = side ? last : first;
        } else { /* RANGE over o (DESC in window 1) */
            if (P[i].o_null) {
                *dst = side ? pe : pb;
                continue;
            }
            /* value bound: PRECEDING = larger values when DESC */
            int64_t bound = P[i].o - sign * off; /* DESC */
            int64_t first = -1, last = -1;
            for (int64_t k = 0; k < n; k++) {
                if (P[k].o_null) continue;
                bool in = side == 0 ? P[k].o <= bound : P[k].o >= bound;
                if (in && side == 0 && first < 0) first = k;
                if (in && side == 1) last = k;
            }
            *dst = side == 0 ? (first < 0 ? n : first) : last;
        }
    }
    if (*fs < 0) *fs = 0;
    if (*fe > n - 1) *fe = n - 1;
}

static void ref_value(const wspec *s, const wrow *P, int64_t n, int64_t i, char *buf,
                      size_t len) {
#define PUT_X(k) (P[k].x_null ? snprintf(buf, len, "NULL") : snprintf(buf, len, "%lld", (long long)P[k].x))
    const char *nm = s->name;
    int64_t pb = i, pe = i;
    while (pb > 0 && peers(&P[pb - 1], &P[i], s->window)) pb--;
    while (pe + 1 < n && peers(&P[pe + 1], &P[i], s->window)) pe++;
    if (!strcmp(nm, "row_number")) { snprintf(buf, len, "%lld", (long long)i + 1); return; }
    if (!strcmp(nm, "rank")) { snprintf(buf, len, "%lld", (long long)pb + 1); return; }
    if (!strcmp(nm, "dense_rank")) {
        int64_t g = 1;
        for (int64_t k = 1; k <= i; k++)
            if (!peers(&P[k - 1], &P[k], s->window)) g++;
        snprintf(buf, len, "%lld", (long long)g);
        return;
    }
    if (!strcmp(nm, "percent_rank")) { fmt_double(n <= 1 ? 0.0 : (double)pb / (double)(n - 1), buf, len); return; }
    if (!strcmp(nm, "cume_dist")) { fmt_double((double)(pe + 1) / (double)n, buf, len); return; }
    if (!strcmp(nm, "ntile")) {
        int64_t b = s->a1, q = n / b, rem = n % b, bucket;
        if (b >= n) bucket = i + 1;
        else bucket = i < rem * (q + 1) ? i / (q + 1) + 1 : (i - rem * (q + 1)) / q + rem + 1;
        snprintf(buf, len, "%lld", (long long)bucket);
        return;
    }
    if (!strcmp(nm, "lag") || !strcmp(nm, "lead")) {
        int64_t off = s->n_args >= 2 ? s->a1 : 1, dir = !strcmp(nm, "lag") ? -1 : 1, j = -1;
        if (!s->ignore_nulls) {
            j = i + dir * off;
            if (j < 0 || j >= n) j = -1;
        } else {
            int64_t left = off;
            for (int64_t k = i + dir; k >= 0 && k < n; k += dir)
                if (!P[k].x_null && --left == 0) { j = k; break; }
        }
        if (j >= 0) PUT_X(j);
        else if (s->n_args >= 3) snprintf(buf, len, "%lld", (long long)s->a2);
        else snprintf(buf, len, "NULL");
        return;
    }
    int64_t fs, fe;
    ref_frame(s, P, n, i, &fs, &fe);
    if (!strcmp(nm, "first_value") || !strcmp(nm, "last_value") || !strcmp(nm, "nth_value")) {
        int64_t j = -1, want = !strcmp(nm, "nth_value") ? s->a1 : 1, seen = 0;
        bool last = !strcmp(nm, "last_value");
        for (int64_t k = last ? fe : fs; fs <= fe && (last ? k >= fs : k <= fe); k += last ? -1 : 1) {
            if (s->ignore_nulls && P[k].x_null) continue;
            if (++seen == want) { j = k; break; }
        }
        if (j >= 0) PUT_X(j);
        else snprintf(buf, len, "NULL");
        return;
    }
    /* aggregates */
    int64_t cnt = 0, sum = 0, mn = 0, mx = 0, cx = 0;
    char arr[512];
    size_t al = 0;
    arr[al++] = '[';
    for (int64_t k = fs; k <= fe; k++) {
        if (s->filter_pos && !(!P[k].x_null && P[k].x > 0)) continue;
        cnt++;
        if (!strcmp(nm, "array_agg")) {
            if (al > 1) al += (size_t)snprintf(arr + al, sizeof arr - al, ", ");
            al += P[k].x_null ? (size_t)snprintf(arr + al, sizeof arr - al, "NULL")
                              : (size_t)snprintf(arr + al, sizeof arr - al, "%lld", (long long)P[k].x);
        }
        if (P[k].x_null) continue;
        if (!cx || P[k].x < mn) mn = P[k].x;
        if (!cx || P[k].x > mx) mx = P[k].x;
        cx++;
        sum += P[k].x;
    }
    snprintf(arr + al, sizeof arr - al, "]");
    if (!strcmp(nm, "count")) snprintf(buf, len, "%lld", (long long)(s->n_args ? cx : cnt));
    else if (!strcmp(nm, "array_agg")) snprintf(buf, len, "%s", cnt ? arr : "NULL");
    else if (!cx) snprintf(buf, len, "NULL");
    else snprintf(buf, len, "%lld", (long long)(!strcmp(nm, "sum") ? sum : !strcmp(nm, "min") ? mn : mx));
#undef PUT_X
}

/* results[spec][id] */
static char *g_res[N_SPECS][N];

static void reference(void) {
    uint64_t *ids = malloc(sizeof(uint64_t) * N);
    wrow *P = malloc(sizeof(wrow) * N);
    for (int w = 0; w < 3; w++) {
        for (uint64_t i = 0; i < N; i++) ids[i] = i;
        g_window = w;
        qsort(ids, N, sizeof(uint64_t), cmp_rows);
        for (uint64_t ps = 0; ps < N;) {
            uint64_t pe = ps + 1;
            wrow first = row_at(ids[ps]);
            while (pe < N && w != 2) {
                wrow r = row_at(ids[pe]);
                if (r.p_null != first.p_null || (!r.p_null && r.p != first.p)) break;
                pe++;
            }
            if (w == 2) pe = N;
            int64_t n = (int64_t)(pe - ps);
            for (int64_t k = 0; k < n; k++) P[k] = row_at(ids[ps + (uint64_t)k]);
            for (size_t s = 0; s < N_SPECS; s++) {
                if (specs[s].window != w) continue;
                for (int64_t k = 0; k < n; k++) {
                    char buf[600];
                    ref_value(&specs[s], P, n, k, buf, sizeof buf);
                    g_res[s][P[k].id] = strdup(buf);
                }
            }
            ps = pe;
        }
    }
    free(ids);
    free(P);
}

/* --- plan ------------------------------------------------------------------------------------ */

static plan *window_plan(tx *t, plan *s) {
    plan *p = plan_new(&t->pctx, PLAN_WINDOW, 1, s->n_out + N_SPECS);
    p->children[0] = s;
    memcpy(p->out, s->out, sizeof(plan_col) * s->n_out);
    p->u.window.funcs = ARENA_ARRAY(&t->arena, plan_window_func, N_SPECS);
    p->u.window.n_funcs = N_SPECS;
    for (size_t i = 0; i < N_SPECS; i++) {
        const wspec *ws = &specs[i];
        plan_window_func *f = &p->u.window.funcs[i];
        memset(f, 0, sizeof *f);
        bexpr *args[3];
        uint32_t na = 0;
        if (ws->n_args == -1) args[na++] = tx_int(t, ws->a1);
        if (ws->n_args >= 1) args[na++] = tx_col(t, s, 3);
        if (ws->n_args >= 2) args[na++] = tx_int(t, ws->a1);
        if (ws->n_args >= 3) args[na++] = tx_int(t, ws->a2);
        sqe_type types[3];
        for (uint32_t k = 0; k < na; k++) types[k] = args[k]->type;
        func_resolved r;
        int rc;
        if (func_is_window(ws->name)) {
            rc = func_resolve_window(&t->arena, ws->name, types, na, &r, &t->err);
            f->win = r.window;
        } else {
            rc = func_resolve_agg(&t->arena, ws->name, types, na, &r, &t->err);
            f->agg = r.agg;
        }
        if (rc != SQE_OK) fail_msg("resolve %s: %s", ws->name, t->err.message);
        f->args = ARENA_ARRAY(&t->arena, bexpr *, na + 1);
        for (uint32_t k = 0; k < na; k++)
            f->args[k] = type_equal(r.arg_types[k], args[k]->type) ? args[k] : tx_cast(t, args[k], r.arg_types[k], false);
        f->n_args = na;
        f->ignore_nulls = ws->ignore_nulls;
        if (ws->filter_pos) f->filter = TX_CALL(t, "$gt", tx_col(t, s, 3), tx_int(t, 0));
        if (ws->window < 2) {
            f->partition = ARENA_ARRAY(&t->arena, bexpr *, 1);
            f->partition[0] = tx_col(t, s, 1);
            f->n_partition = 1;
            f->n_order = ws->window == 0 ? 2 : 1;
            f->order = ARENA_ARRAY(&t->arena, plan_sort_key, 2);
            f->order[0].expr = tx_col(t, s, 2);
            f->order[0].desc = ws->window == 1;
            f->order[0].nulls_first = ws->window == 1;
            f->order[1].expr = tx_col(t, s, 0);
        }
        f->frame_unit = ws->unit ? ws->unit : FRAME_RANGE;
        f->start_bound = ws->sb ? ws->sb : BOUND_UNBOUNDED_PRECEDING;
        f->end_bound = ws->eb ? ws->eb : (f->n_order ? BOUND_CURRENT_ROW : BOUND_UNBOUNDED_FOLLOWING);
        if (ws->sb == BOUND_PRECEDING || ws->sb == BOUND_FOLLOWING) f->start_offset = tx_int(t, ws->so);
        if (ws->eb == BOUND_PRECEDING || ws->eb == BOUND_FOLLOWING) f->end_offset = tx_int(t, ws->eo);
        f->type = r.ret;
        f->name = ws->name;
        f->out = plan_new_col(&t->pctx);
        p->out[s->n_out + i].id = f->out;
        p->out[s->n_out + i].type = r.ret;
    }
    bexpr *cols[N_SPECS + 1];
    cols[0] = tx_col(t, p, 0);
    for (size_t i = 0; i < N_SPECS; i++) cols[i + 1] = tx_col(t, p, s->n_out + (uint32_t)i);
    return tx_project(t, p, N_SPECS + 1, cols);
}

static void test_window_functions(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    sqe_type ty[4] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT), type_make(TYPE_BIGINT),
                      type_make(TYPE_BIGINT)};
    cat_table *tab = tx_table(&t, "w", 4, ty);
    tx_fill(&t, tab, N, fill_w, NULL);
    reference();
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        plan *p = window_plan(&t, tx_scan(&t, tab));
        if (tx_run(&t, p, threads) != SQE_OK) fail_msg("%s", t.err.message);
        assert_int_equal(t.n_rows, N);
        for (uint32_t r = 0; r < t.n_rows; r++) {
            char *save = NULL;
            char *line = strdup(t.rows[r]);
            char *tok = strtok_r(line, "|", &save);
            long long id = atoll(tok);
            for (size_t s = 0; s < N_SPECS; s++) {
                tok = strtok_r(NULL, "|", &save);
                if (!tok || strcmp(tok, g_res[s][id]) != 0)
                    fail_msg("threads %u id %lld function %zu (%s): expected '%s', got '%s'",
                             threads, id, s, specs[s].name, g_res[s][id], tok ? tok : "(none)");
            }
            free(line);
        }
    }
    for (size_t s = 0; s < N_SPECS; s++)
        for (uint64_t i = 0; i < N; i++) free(g_res[s][i]);
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segtree),
        cmocka_unit_test(test_window_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
