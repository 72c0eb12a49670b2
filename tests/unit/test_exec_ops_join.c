/*
 * test_exec_ops_join.c: end-to-end tests of the hash join and the nested-loop join
 * (op_hash_join.c, op_nl_join.c) from hand-made plans over memory tables, against a naive
 * nested-loop reference computed in the test: every join type (INNER, LEFT, RIGHT, FULL, SEMI,
 * ANTI, MARK null-aware and not, SINGLE), NULL keys, NULL-safe keys, duplicate keys (many
 * output chunks per input), string and multi-column keys, residual predicates, empty build
 * sides, one and four threads.
 */
#include "test_exec_util.h"

#define NL 3000
#define NR 700

typedef struct side_row {
    int64_t id;
    bool a_null;
    int64_t a;
    const char *s; /* NULL = SQL NULL */
} side_row;

static const char *pick(uint64_t k) {
    switch (k % 5) {
    case 0: return NULL;
    case 1: return "x";
    case 2: return "a-very-long-string-value-1";
    case 3: return "a-very-long-string-value-2";
    default: return "y";
    }
}

/* Table flavours for the right side. */
enum { R_DUPS = 0, R_UNIQUE, R_EMPTY, R_NO_NULLS };

static side_row left_row(uint64_t i) {
    side_row r = {(int64_t)i, i % 7 == 3, (int64_t)((i * 13) % 50), pick(i % 5)};
    return r;
}

static side_row right_row(int flavour, uint64_t j) {
    side_row r = {(int64_t)j, false, 0, pick(j % 4)};
    switch (flavour) {
    case R_DUPS:
        r.a_null = j % 11 == 5;
        r.a = (int64_t)((j * 7) % 40);
        break;
    case R_UNIQUE:
        r.a = (int64_t)j * 2; /* even keys 0..58 */
        r.a_null = j == 7;
        break;
    default:
        r.a = (int64_t)((j * 7) % 40);
        break;
    }
    return r;
}

static uint64_t right_count(int flavour) {
    return flavour == R_UNIQUE ? 30 : flavour == R_EMPTY ? 0 : NR;
}

typedef struct fill_ctx {
    bool left;
    int flavour;
} fill_ctx;

static void fill_side(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    fill_ctx *c = ud;
    side_row r = c->left ? left_row(row) : right_row(c->flavour, row);
    switch (col) {
    case 0: VEC_DATA(v, int64_t)[idx] = r.id; break;
    case 1:
        VEC_DATA(v, int64_t)[idx] = r.a;
        if (r.a_null) vec_set_null(v, idx);
        break;
    default:
        if (!r.s) {
            vec_set_null(v, idx);
        } else {
            bool ok = true;
            VEC_DATA(v, sqe_str)[idx] = vec_str_copy(v, r.s, (uint32_t)strlen(r.s), &ok);
        }
        break;
    }
}

static cat_table *make_side(tx *t, const char *name, bool left, int flavour) {
    sqe_type types[3] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT), type_varchar(0)};
    cat_table *tab = tx_table(t, name, 3, types);
    fill_ctx c = {left, flavour};
    uint64_t n = left ? NL : right_count(flavour);
    if (n) tx_fill(t, tab, n, fill_side, &c);
    return tab;
}

/* --- the join under test ------------------------------------------------------------------ */

typedef struct join_case {
    uint8_t type;
    int flavour;
    bool multi_key;   /* keys (a, s) instead of (a) */
    bool null_safe;
    bool residual;    /* l.id < r.id */
    bool null_aware;
    bool nl;          /* no keys: the key equality goes into the residual (nested loop) */
    bool corr_key;    /* null-aware MARK with two keys: a is a correlation key (NULL there is
                         no match), s the IN comparison's (NULL there is unknown) */
} join_case;

static bexpr *eq_expr(tx *t, bexpr *a, bexpr *b, bool null_safe) {
    if (!null_safe) return TX_CALL(t, "$eq", a, b);
    bexpr *d = TX_CALL(t, "$is_distinct_from", a, b);
    return TX_FORM(t, BEXPR_NOT, TX_BOOL_T, d);
}

static plan *join_plan(tx *t, plan *l, plan *r, const join_case *jc) {
    uint8_t type = jc->type;
    uint32_t n_out = l->n_out;
    if (type == JOIN_MARK) n_out++;
    else if (type != JOIN_SEMI && type != JOIN_ANTI) n_out += r->n_out;
    plan *p = plan_new(&t->pctx, PLAN_JOIN, 2, n_out);
    p->children[0] = l;
    p->children[1] = r;
    memcpy(p->out, l->out, sizeof(plan_col) * l->n_out);
    if (type == JOIN_MARK) {
        p->out[l->n_out].id = plan_new_col(&t->pctx);
        p->out[l->n_out].type = type_make(TYPE_BOOLEAN);
        p->u.join.mark = p->out[l->n_out].id;
    } else if (type != JOIN_SEMI && type != JOIN_ANTI) {
        memcpy(p->out + l->n_out, r->out, sizeof(plan_col) * r->n_out);
    }
    p->u.join.type = type;
    p->u.join.mark_null_aware = jc->null_aware;
    uint32_t nk = jc->multi_key ? 2 : 1;
    bexpr *conds[4];
    uint32_t n_conds = 0;
    if (jc->nl) {
        conds[n_conds] = eq_expr(t, tx_col(t, l, 1), tx_col(t, r, 1), jc->null_safe);
        if (jc->corr_key) { /* how key extraction leaves a correlation in a MARK residual */
            bexpr *is_true[2] = {conds[n_conds], tx_bool(t, false)};
            conds[n_conds] = tx_form(t, BEXPR_COALESCE, TX_BOOL_T, 2, is_true);
        }
        n_conds++;
        if (jc->multi_key) conds[n_conds++] = eq_expr(t, tx_col(t, l, 2), tx_col(t, r, 2), jc->null_safe);
    } else {
        p->u.join.n_keys = nk;
        p->u.join.left_keys = ARENA_ARRAY(&t->arena, bexpr *, nk);
        p->u.join.right_keys = ARENA_ARRAY(&t->arena, bexpr *, nk);
        p->u.join.null_safe = ARENA_ARRAY(&t->arena, bool, nk);
        p->u.join.n_mark_keys = jc->null_aware ? nk - (jc->corr_key ? 1 : 0) : 0;
        for (uint32_t k = 0; k < nk; k++) {
            p->u.join.left_keys[k] = tx_col(t, l, 1 + k);
            p->u.join.right_keys[k] = tx_col(t, r, 1 + k);
            p->u.join.null_safe[k] = jc->null_safe;
        }
    }
    if (jc->residual) conds[n_conds++] = TX_CALL(t, "$lt", tx_col(t, l, 0), tx_col(t, r, 0));
    if (n_conds == 1) p->u.join.residual = conds[0];
    if (n_conds > 1) p->u.join.residual = tx_form(t, BEXPR_AND, TX_BOOL_T, n_conds, conds);
    if (jc->nl && n_conds == 0) p->u.join.type = type == JOIN_INNER ? JOIN_CROSS : type;
    return p;
}

/* --- the reference -------------------------------------------------------------------------- */

typedef struct strlist {
    char **v;
    uint32_t n, cap;
} strlist;

static void sl_add(strlist *l, const char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->v = realloc(l->v, sizeof(char *) * l->cap);
    }
    l->v[l->n++] = strdup(s);
}

static void sl_free(strlist *l) {
    for (uint32_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void fmt_side(char *buf, size_t len, const side_row *r) {
    if (!r) {
        snprintf(buf, len, "NULL|NULL|NULL");
        return;
    }
    char a[32];
    if (r->a_null)
        snprintf(a, sizeof a, "NULL");
    else
        snprintf(a, sizeof a, "%lld", (long long)r->a);
    snprintf(buf, len, "%lld|%s|%s", (long long)r->id, a, r->s ? r->s : "NULL");
}

static bool str_eq(const char *a, const char *b) {
    if (!a || !b) return false;
    return strcmp(a, b) == 0;
}

static bool matches(const join_case *jc, const side_row *l, const side_row *r) {
    if (l->a_null || r->a_null) {
        if (!jc->null_safe || l->a_null != r->a_null) return false;
    } else if (l->a != r->a) {
        return false;
    }
    if (jc->multi_key) {
        if (!l->s || !r->s) {
            if (!jc->null_safe || (l->s == NULL) != (r->s == NULL)) return false;
        } else if (!str_eq(l->s, r->s)) {
            return false;
        }
    }
    if (jc->residual && !(l->id < r->id)) return false;
    return true;
}

/* Keys TRUE or UNKNOWN (never FALSE) and the residual TRUE. */
static bool compatible(const join_case *jc, const side_row *l, const side_row *r) {
    if (jc->corr_key && (l->a_null || r->a_null || l->a != r->a)) return false;
    if (l->a_null || r->a_null) {
        if (jc->null_safe && l->a_null != r->a_null) return false;
    } else if (l->a != r->a) {
        return false;
    }
    if (jc->multi_key) {
        if (!l->s || !r->s) {
            if (jc->null_safe && (l->s == NULL) != (r->s == NULL)) return false;
        } else if (!str_eq(l->s, r->s)) {
            return false;
        }
    }
    return !jc->residual || l->id < r->id;
}

/* Returns false when the join must fail (SINGLE with several matches). */
static bool reference(const join_case *jc, strlist *out) {
    uint64_t nr = right_count(jc->flavour);
    side_row *R = malloc(sizeof(side_row) * (nr + 1));
    for (uint64_t j = 0; j < nr; j++) R[j] = right_row(jc->flavour, j);
    char *found = calloc(nr + 1, 1);
    char lb[256], rb[256], row[600];
    bool ok = true;
    for (uint64_t i = 0; i < NL; i++) {
        side_row L = left_row(i);
        uint32_t m = 0;
        fmt_side(lb, sizeof lb, &L);
        for (uint64_t j = 0; j < nr; j++) {
            if (!matches(jc, &L, &R[j])) continue;
            m++;
            found[j] = 1;
            if (jc->type == JOIN_INNER || jc->type == JOIN_LEFT || jc->type == JOIN_RIGHT ||
                jc->type == JOIN_FULL || jc->type == JOIN_SINGLE) {
                fmt_side(rb, sizeof rb, &R[j]);
                snprintf(row, sizeof row, "%s|%s", lb, rb);
                sl_add(out, row);
            }
        }
        switch (jc->type) {
        case JOIN_SINGLE:
            if (m > 1) ok = false;
            /* fall through */
        case JOIN_LEFT:
        case JOIN_FULL:
            if (m == 0) {
                snprintf(row, sizeof row, "%s|NULL|NULL|NULL", lb);
                sl_add(out, row);
            }
            break;
        case JOIN_SEMI:
            if (m) sl_add(out, lb);
            break;
        case JOIN_ANTI:
            if (!m) sl_add(out, lb);
            break;
        case JOIN_MARK: {
            /* three-valued IN: NULL when some row compares TRUE or UNKNOWN on every key */
            bool unknown = false;
            for (uint64_t j = 0; j < nr && !m && jc->null_aware && !unknown; j++)
                unknown = compatible(jc, &L, &R[j]);
            const char *mark = m ? "true" : unknown ? "NULL" : "false";
            snprintf(row, sizeof row, "%s|%s", lb, mark);
            sl_add(out, row);
            break;
        }
        default: break;
        }
    }
    if (jc->type == JOIN_RIGHT || jc->type == JOIN_FULL)
        for (uint64_t j = 0; j < nr; j++)
            if (!found[j]) {
                fmt_side(rb, sizeof rb, &R[j]);
                snprintf(row, sizeof row, "NULL|NULL|NULL|%s", rb);
                sl_add(out, row);
            }
    free(found);
    free(R);
    return ok;
}

static void check_case(tx *t, cat_table *lt, cat_table **rts, const join_case *jc,
                       uint32_t threads) {
    plan *l = tx_scan(t, lt), *r = tx_scan(t, rts[jc->flavour]);
    if (jc->flavour == R_EMPTY) r = tx_filter(t, r, tx_bool(t, false)); /* an empty build side */
    plan *p = join_plan(t, l, r, jc);
    strlist want = {0};
    bool ok = reference(jc, &want);
    int rc = tx_run(t, p, threads);
    if (!ok) {
        if (rc != SQE_ERR_SUBQUERY_MULTIPLE_ROWS)
            fail_msg("type %u: expected SUBQUERY_MULTIPLE_ROWS, got %d", jc->type, rc);
        assert_non_null(strstr(t->err.message, "multiple rows"));
        sl_free(&want);
        return;
    }
    if (rc != SQE_OK) fail_msg("type %u nl %d: %s", jc->type, jc->nl, t->err.message);
    if (want.n) qsort(want.v, want.n, sizeof(char *), cmp_str);
    if (t->n_rows) qsort(t->rows, t->n_rows, sizeof(char *), cmp_str);
    if (t->n_rows != want.n)
        fail_msg("type %u flavour %d multi %d nullsafe %d residual %d nl %d threads %u: %u rows, "
                 "expected %u",
                 jc->type, jc->flavour, jc->multi_key, jc->null_safe, jc->residual, jc->nl, threads,
                 t->n_rows, want.n);
    for (uint32_t i = 0; i < want.n; i++)
        if (strcmp(t->rows[i], want.v[i]) != 0)
            fail_msg("type %u flavour %d multi %d nullsafe %d residual %d aware %d corr %d nl %d: "
                     "row %u: expected '%s', got '%s'",
                     jc->type, jc->flavour, jc->multi_key, jc->null_safe, jc->residual,
                     jc->null_aware, jc->corr_key, jc->nl, i, want.v[i], t->rows[i]);
    sl_free(&want);
}

typedef struct fixture {
    tx t;
    cat_table *lt;
    cat_table *rts[4];
} fixture;

static void fixture_init(fixture *f) {
    tx_init(&f->t, 4, 0);
    f->lt = make_side(&f->t, "l", true, 0);
    f->rts[R_DUPS] = make_side(&f->t, "r_dups", false, R_DUPS);
    f->rts[R_UNIQUE] = make_side(&f->t, "r_unique", false, R_UNIQUE);
    f->rts[R_EMPTY] = f->rts[R_DUPS];
    f->rts[R_NO_NULLS] = make_side(&f->t, "r_nonulls", false, R_NO_NULLS);
}

static void run_matrix(bool nl) {
    fixture f;
    fixture_init(&f);
    const uint8_t types[] = {JOIN_INNER, JOIN_LEFT, JOIN_RIGHT, JOIN_FULL,
                             JOIN_SEMI,  JOIN_ANTI, JOIN_MARK};
    for (size_t ti = 0; ti < sizeof types; ti++)
        for (int flavour = 0; flavour < 4; flavour++)
            for (int variant = 0; variant < 4; variant++) {
                join_case jc = {types[ti], flavour, variant & 1, false, (variant & 2) != 0, false, nl, false};
                check_case(&f.t, f.lt, f.rts, &jc, variant == 3 ? 1 : 4);
                if (types[ti] == JOIN_MARK) {
                    jc.null_aware = true;
                    check_case(&f.t, f.lt, f.rts, &jc, 4);
                    if (jc.multi_key) {
                        jc.corr_key = true;
                        check_case(&f.t, f.lt, f.rts, &jc, 4);
                        jc.corr_key = false;
                    }
                }
                if (flavour == R_DUPS) {
                    jc.null_safe = true;
                    check_case(&f.t, f.lt, f.rts, &jc, 4);
                }
            }
    /* SINGLE: unique right side works, duplicates fail */
    for (int residual = 0; residual < 2; residual++) {
        join_case ok = {JOIN_SINGLE, R_UNIQUE, false, false, residual, false, nl, false};
        check_case(&f.t, f.lt, f.rts, &ok, 4);
        join_case bad = {JOIN_SINGLE, R_DUPS, false, false, residual, false, nl, false};
        check_case(&f.t, f.lt, f.rts, &bad, 4);
        join_case empty = {JOIN_SINGLE, R_EMPTY, false, false, residual, false, nl, false};
        check_case(&f.t, f.lt, f.rts, &empty, 1);
    }
    tx_free(&f.t);
}

static void test_hash_join_matrix(void **state) {
    (void)state;
    run_matrix(false);
}

static void test_nl_join_matrix(void **state) {
    (void)state;
    run_matrix(true);
}

/* CROSS JOIN of two small tables, and a join whose keys are all equal (one input chunk
 * producing hundreds of output chunks). */
static void fill_const(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    VEC_DATA(v, int64_t)[idx] = col == 0 ? (int64_t)row : 1;
}

static void test_cross_and_fanout(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 2, 0);
    sqe_type ty[2] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT)};
    cat_table *a = tx_table(&t, "a", 2, ty), *b = tx_table(&t, "b", 2, ty);
    tx_fill(&t, a, 3000, fill_const, NULL);
    tx_fill(&t, b, 100, fill_const, NULL);
    join_case cross = {JOIN_INNER, 0, false, false, false, false, true, false};
    plan *p = join_plan(&t, tx_scan(&t, a), tx_scan(&t, b), &cross);
    tx_run_opts o = {.threads = 2};
    assert_int_equal(tx_run_opt(&t, p, &o), SQE_OK);
    assert_int_equal(t.row_count, 300000);
    join_case eq = {JOIN_INNER, 0, false, false, false, false, false, false};
    p = join_plan(&t, tx_scan(&t, a), tx_scan(&t, b), &eq);
    assert_int_equal(tx_run_opt(&t, p, &o), SQE_OK);
    assert_int_equal(t.row_count, 300000);
    /* with a residual keeping 1 pair in 100 */
    eq.residual = true;
    p = join_plan(&t, tx_scan(&t, b), tx_scan(&t, a), &eq);
    assert_int_equal(tx_run_opt(&t, p, &o), SQE_OK);
    uint64_t want = 0;
    for (uint64_t i = 0; i < 100; i++) want += 3000 - i - 1;
    assert_int_equal(t.row_count, want);
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_join_matrix),
        cmocka_unit_test(test_nl_join_matrix),
        cmocka_unit_test(test_cross_and_fanout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
