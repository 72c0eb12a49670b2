/*
 * registry.c: the one function registry. Collects the def tables of every linked family
 * (scalar, aggregate, window), parses their signatures once, indexes them by name, and resolves
 * calls to the best overload the way Trino does.
 *
 * INTERFACE: func_registry_init, func_resolve_scalar, func_resolve_agg, func_resolve_window,
 *   func_is_aggregate, func_is_window, func_exists, func_registry_list (see func.h).
 *
 * NOTES: the family getters are declared weak, so a family that is not linked in is skipped.
 * The registry is built once under pthread_once and is read-only afterwards, so lookups need no
 * lock. Overload choice: candidates that bind without coercion beat those that need one; among
 * several, the most specific wins (the one whose parameter types bind to the most other
 * candidates), then the cheapest coercions, then the least generic signature, then the one
 * defined first. The result type comes from the def's ret_fn when its signature says "?".
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strbuf.h"
#include "func/func.h"
#include "func/signature.h"

#define X(family)                                                                                  \
    extern const func_scalar_def *func_scalar_family_##family(uint32_t *count)                     \
        __attribute__((weak));
FUNC_SCALAR_FAMILIES(X)
#undef X
#define X(family)                                                                                  \
    extern const func_agg_def *func_agg_family_##family(uint32_t *count) __attribute__((weak));
FUNC_AGG_FAMILIES(X)
#undef X
extern const func_window_def *func_window_family(uint32_t *count) __attribute__((weak));

enum { KIND_SCALAR = 0, KIND_AGG = 1, KIND_WINDOW = 2, KIND_COUNT_ = 3 };
static const char *const kind_names[KIND_COUNT_] = {"scalar", "aggregate", "window"};

typedef struct reg_entry {
    const char *name;
    const char *args;
    const char *ret;
    const char *description;
    const void *def; /* func_scalar_def / func_agg_def / func_window_def */
    uint32_t kind;
    uint32_t order;  /* definition order, the last tie-breaker */
    func_sig sig;
} reg_entry;

typedef struct reg_name {
    const char *name;
    uint32_t first[KIND_COUNT_]; /* range of entries of each kind */
    uint32_t count[KIND_COUNT_];
} reg_name;

typedef struct registry {
    arena mem;         /* parsed signatures; process lifetime */
    reg_entry *entries; /* sorted by (name, kind, order) */
    uint32_t n_entries;
    reg_name *names;
    uint32_t n_names;
    uint32_t *slots;   /* open addressing: index + 1 into names, 0 = empty */
    uint32_t mask;
} registry;

static registry g_reg;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_init_rc;
static sqe_error g_init_err;

/* --- Building ---------------------------------------------------------------------------- */

static int entry_cmp(const void *pa, const void *pb) {
    const reg_entry *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int add_entry(reg_entry *e, uint32_t *n, uint32_t kind, const void *def, const char *name,
                     const char *args, const char *ret, const char *description,
                     sqe_error *err) {
    reg_entry *r = &e[*n];
    r->name = name;
    r->args = args ? args : "";
    r->ret = ret ? ret : "?";
    r->description = description ? description : "";
    r->def = def;
    r->kind = kind;
    r->order = *n;
    int rc = sig_parse(&g_reg.mem, r->args, r->ret, &r->sig, err);
    if (rc) {
        err_prefix(err, "function %s", name);
        return rc;
    }
    (*n)++;
    return SQE_OK;
}

static uint64_t name_hash(const char *s) { return hash_bytes(s, strlen(s)); }

static int registry_build(sqe_error *err) {
    arena_init(&g_reg.mem, NULL);
    uint32_t total = 0, cnt;
#define X(family)                                                                                  \
    if (func_scalar_family_##family) {                                                             \
        func_scalar_family_##family(&cnt);                                                         \
        total += cnt;                                                                              \
    }
    FUNC_SCALAR_FAMILIES(X)
#undef X
#define X(family)                                                                                  \
    if (func_agg_family_##family) {                                                                \
        func_agg_family_##family(&cnt);                                                            \
        total += cnt;                                                                              \
    }
    FUNC_AGG_FAMILIES(X)
#undef X
    if (func_window_family) {
        func_window_family(&cnt);
        total += cnt;
    }
    reg_entry *e = ARENA_ARRAY(&g_reg.mem, reg_entry, total ? total : 1);
    if (!e) return err_nomem(err, "function registry");
    uint32_t n = 0;
#define X(family)                                                                                  \
    if (func_scalar_family_##family) {                                                             \
        const func_scalar_def *d = func_scalar_family_##family(&cnt);                              \
        for (uint32_t i = 0; i < cnt; i++)                                                         \
            SQE_TRY(add_entry(e, &n, KIND_SCALAR, &d[i], d[i].name, d[i].args, d[i].ret,           \
                              d[i].description, err));                                            \
    }
    FUNC_SCALAR_FAMILIES(X)
#undef X
#define X(family)                                                                                  \
    if (func_agg_family_##family) {                                                                \
        const func_agg_def *d = func_agg_family_##family(&cnt);                                    \
        for (uint32_t i = 0; i < cnt; i++)                                                         \
            SQE_TRY(add_entry(e, &n, KIND_AGG, &d[i], d[i].name, d[i].args, d[i].ret,              \
                              d[i].description, err));                                            \
    }
    FUNC_AGG_FAMILIES(X)
#undef X
    if (func_window_family) {
        const func_window_def *d = func_window_family(&cnt);
        for (uint32_t i = 0; i < cnt; i++)
            SQE_TRY(add_entry(e, &n, KIND_WINDOW, &d[i], d[i].name, d[i].args, d[i].ret,
                              d[i].description, err));
    }
    qsort(e, n, sizeof *e, entry_cmp);
    g_reg.entries = e;
    g_reg.n_entries = n;

    /* names and their ranges */
    reg_name *names = ARENA_ARRAY(&g_reg.mem, reg_name, n ? n : 1);
    if (!names) return err_nomem(err, "function registry");
    uint32_t n_names = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (n_names == 0 || strcmp(names[n_names - 1].name, e[i].name) != 0) {
            names[n_names].name = e[i].name;
            n_names++;
        }
        reg_name *nm = &names[n_names - 1];
        if (nm->count[e[i].kind] == 0) nm->first[e[i].kind] = i;
        nm->count[e[i].kind]++;
    }
    g_reg.names = names;
    g_reg.n_names = n_names;

    uint32_t cap = 16;
    while (cap < n_names * 2) cap *= 2;
    g_reg.slots = ARENA_ARRAY(&g_reg.mem, uint32_t, cap);
    if (!g_reg.slots) return err_nomem(err, "function registry");
    g_reg.mask = cap - 1;
    for (uint32_t i = 0; i < n_names; i++) {
        uint32_t s = (uint32_t)name_hash(names[i].name) & g_reg.mask;
        while (g_reg.slots[s]) s = (s + 1) & g_reg.mask;
        g_reg.slots[s] = i + 1;
    }
    return SQE_OK;
}

static void registry_init_once(void) {
    g_init_rc = registry_build(&g_init_err);
}

int func_registry_init(sqe_error *err) {
    pthread_once(&g_once, registry_init_once);
    if (g_init_rc != SQE_OK && err) *err = g_init_err;
    return g_init_rc;
}

/* Finds a name (case-insensitive); NULL when unknown or the registry failed to build. */
static const reg_name *lookup(const char *name) {
    if (func_registry_init(NULL) != SQE_OK || !name) return NULL;
    char low[128];
    size_t len = strlen(name);
    if (len >= sizeof low) return NULL;
    for (size_t i = 0; i <= len; i++) low[i] = (char)tolower((unsigned char)name[i]);
    uint32_t s = (uint32_t)name_hash(low) & g_reg.mask;
    while (g_reg.slots[s]) {
        const reg_name *nm = &g_reg.names[g_reg.slots[s] - 1];
        if (strcmp(nm->name, low) == 0) return nm;
        s = (s + 1) & g_reg.mask;
    }
    return NULL;
}

/* --- Resolution -------------------------------------------------------------------------- */

static const char *operator_symbol(const char *name) {
    static const char *const ops[][2] = {
        {"$add", "+"},  {"$subtract", "-"}, {"$multiply", "*"}, {"$divide", "/"},
        {"$modulus", "%"}, {"$negate", "-"}, {"$eq", "="},        {"$ne", "<>"},
        {"$lt", "<"},   {"$le", "<="},      {"$gt", ">"},        {"$ge", ">="},
        {"$is_distinct_from", "IS DISTINCT FROM"}, {"$subscript", "[]"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i][0], name) == 0) return ops[i][1];
    return NULL;
}

/* Names behind Trino's special forms (LIKE, NULLIF, COALESCE, IF, AT TIME ZONE, TRY): like its
 * operators, Trino reports their type errors as TYPE_MISMATCH, not FUNCTION_NOT_FOUND. */
static bool is_special_form(const char *name) {
    static const char *const forms[] = {"like", "nullif", "coalesce", "if", "at_timezone", "try"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (strcmp(forms[i], name) == 0) return true;
    return false;
}

static void append_type(strbuf *sb, sqe_type t) {
    char buf[256];
    size_t n = type_format(t, buf, sizeof buf);
    strbuf_append(sb, buf, n < sizeof buf ? n : sizeof buf - 1);
}

/* "Unexpected parameters (varchar(3)) for function abs. Expected: abs(bigint), ..."
 * (FUNCTION_NOT_FOUND; TYPE_MISMATCH for a special form) or, for operators, "Cannot apply
 * operator: varchar(3) + integer" (TYPE_MISMATCH). */
static int mismatch_error(const reg_name *nm, uint32_t kind, const char *name,
                          const sqe_type *args, uint32_t n_args, sqe_error *err) {
    strbuf sb;
    strbuf_init(&sb);
    const char *op = operator_symbol(name);
    if (op) {
        strbuf_puts(&sb, "Cannot apply operator: ");
        if (n_args == 1) {
            strbuf_puts(&sb, op);
            strbuf_putc(&sb, ' ');
            append_type(&sb, args[0]);
        } else {
            for (uint32_t i = 0; i < n_args; i++) {
                if (i) strbuf_printf(&sb, " %s ", op);
                append_type(&sb, args[i]);
            }
        }
    } else {
        strbuf_puts(&sb, "Unexpected parameters (");
        for (uint32_t i = 0; i < n_args; i++) {
            if (i) strbuf_puts(&sb, ", ");
            append_type(&sb, args[i]);
        }
        strbuf_printf(&sb, ") for function %s. Expected: ", nm->name);
        for (uint32_t i = 0; i < nm->count[kind]; i++) {
            const reg_entry *e = &g_reg.entries[nm->first[kind] + i];
            if (i) strbuf_puts(&sb, ", ");
            strbuf_printf(&sb, "%s(", e->name);
            for (const char *c = e->args; *c; c++) {
                strbuf_putc(&sb, *c);
                if (*c == ',' && c[1] != ' ') strbuf_putc(&sb, ' ');
            }
            strbuf_putc(&sb, ')');
        }
    }
    /* Trino: no operator for the types is TYPE_MISMATCH, no function is FUNCTION_NOT_FOUND. */
    bool mismatch = op || is_special_form(nm->name);
    int rc = err_set(err, mismatch ? SQE_ERR_TYPE_MISMATCH : SQE_ERR_FUNCTION_NOT_FOUND, "%s",
                     strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return rc;
}

typedef struct candidate {
    const reg_entry *e;
    sqe_type *params;
    sqe_type ret;
    uint32_t cost;
    uint32_t wins;
    uint32_t genericity;
} candidate;

/* Is a more specific than b: do a's parameter types bind to b's signature? */
static bool more_specific(const candidate *a, const candidate *b, uint32_t n_args) {
    sqe_type tmp[SIG_MAX_ARGS * 2], ret;
    sqe_type *params = n_args <= SIG_MAX_ARGS * 2 ? tmp : malloc(n_args * sizeof *params);
    if (!params) return false;
    uint32_t cost;
    bool r = sig_bind(&b->e->sig, a->params, n_args, NULL, true, params, &ret, &cost, NULL) ==
             SIG_MATCH;
    if (params != tmp) free(params);
    return r;
}

static bool better(const candidate *a, const candidate *b) {
    if (a->wins != b->wins) return a->wins > b->wins;
    if (a->cost != b->cost) return a->cost < b->cost;
    if (a->genericity != b->genericity) return a->genericity < b->genericity;
    return a->e->order < b->e->order;
}

static int resolve(arena *a, uint32_t kind, const char *name, const sqe_type *args,
                   uint32_t n_args, const func_lambda_binder *lambdas, func_resolved *out,
                   sqe_error *err) {
    SQE_TRY(func_registry_init(err));
    memset(out, 0, sizeof *out);
    const reg_name *nm = lookup(name);
    if (!nm || nm->count[kind] == 0)
        return err_set(err, SQE_ERR_FUNCTION_NOT_FOUND, "Function '%s' not registered",
                       name ? name : "");
    uint32_t n_cand = nm->count[kind];
    candidate *cands = calloc(n_cand, sizeof *cands);
    sqe_type *param_mem = calloc((size_t)n_cand * (n_args ? n_args : 1), sizeof(sqe_type));
    if (!cands || !param_mem) {
        free(cands);
        free(param_mem);
        return err_nomem(err, "function resolution");
    }
    uint32_t n_match = 0;
    bool have_error = false;
    sqe_error first_error;
    memset(&first_error, 0, sizeof first_error);
    for (uint32_t i = 0; i < n_cand; i++) {
        const reg_entry *e = &g_reg.entries[nm->first[kind] + i];
        candidate *c = &cands[n_match];
        c->e = e;
        c->params = param_mem + (size_t)n_match * (n_args ? n_args : 1);
        sqe_error e_err;
        sig_bind_result r = sig_bind(&e->sig, args, n_args, lambdas, false, c->params, &c->ret,
                                     &c->cost, &e_err);
        if (r == SIG_MATCH) {
            c->genericity = sig_genericity(&e->sig);
            n_match++;
        } else if (r == SIG_ERROR && !have_error) {
            have_error = true;
            first_error = e_err;
        }
    }
    int rc = SQE_OK;
    if (n_match == 0) {
        if (have_error) {
            if (err) *err = first_error;
            rc = first_error.code ? first_error.code : SQE_ERR_TYPE_MISMATCH;
        } else {
            rc = mismatch_error(nm, kind, nm->name, args, n_args, err);
        }
        goto out_free;
    }

    /* exact matches beat coerced ones */
    bool exact = false;
    for (uint32_t i = 0; i < n_match; i++) exact |= cands[i].cost == 0;
    uint32_t n_pool = 0;
    for (uint32_t i = 0; i < n_match; i++)
        if (!exact || cands[i].cost == 0) cands[n_pool++] = cands[i];
    if (n_pool > 1)
        for (uint32_t i = 0; i < n_pool; i++)
            for (uint32_t j = 0; j < n_pool; j++)
                if (i != j && more_specific(&cands[i], &cands[j], n_args)) cands[i].wins++;
    const candidate *best = &cands[0];
    for (uint32_t i = 1; i < n_pool; i++)
        if (better(&cands[i], best)) best = &cands[i];

    out->n_args = n_args;
    out->arg_types = ARENA_ARRAY(a, sqe_type, n_args ? n_args : 1);
    if (!out->arg_types) {
        rc = err_nomem(err, "function resolution");
        goto out_free;
    }
    memcpy(out->arg_types, best->params, n_args * sizeof(sqe_type));
    out->ret = best->ret;
    func_return_fn ret_fn = NULL;
    if (kind == KIND_SCALAR) {
        out->scalar = best->e->def;
        ret_fn = out->scalar->ret_fn;
    } else if (kind == KIND_AGG) {
        out->agg = best->e->def;
        ret_fn = out->agg->ret_fn;
    } else {
        out->window = best->e->def;
    }
    if (best->e->sig.ret_dynamic) {
        if (!ret_fn) {
            rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                         "function %s has a computed return type but no ret_fn", nm->name);
            goto out_free;
        }
        rc = ret_fn(out->arg_types, n_args, &out->ret, err);
    }

out_free:
    free(cands);
    free(param_mem);
    if (rc != SQE_OK) memset(out, 0, sizeof *out);
    return rc;
}

int func_resolve_scalar(arena *a, const char *name, const sqe_type *args, uint32_t n_args,
                        const func_lambda_binder *lambdas, func_resolved *out, sqe_error *err) {
    return resolve(a, KIND_SCALAR, name, args, n_args, lambdas, out, err);
}

int func_resolve_agg(arena *a, const char *name, const sqe_type *args, uint32_t n_args,
                     func_resolved *out, sqe_error *err) {
    return resolve(a, KIND_AGG, name, args, n_args, NULL, out, err);
}

int func_resolve_window(arena *a, const char *name, const sqe_type *args, uint32_t n_args,
                        func_resolved *out, sqe_error *err) {
    return resolve(a, KIND_WINDOW, name, args, n_args, NULL, out, err);
}

bool func_is_aggregate(const char *name) {
    const reg_name *nm = lookup(name);
    return nm && nm->count[KIND_AGG] > 0;
}

bool func_is_window(const char *name) {
    const reg_name *nm = lookup(name);
    return nm && nm->count[KIND_WINDOW] > 0;
}

bool func_exists(const char *name) { return lookup(name) != NULL; }

void func_registry_list(void (*cb)(void *ud, const char *name, const char *args, const char *ret,
                                   const char *kind, const char *description),
                        void *ud) {
    if (func_registry_init(NULL) != SQE_OK) return;
    for (uint32_t i = 0; i < g_reg.n_entries; i++) {
        const reg_entry *e = &g_reg.entries[i];
        cb(ud, e->name, e->args, e->ret, kind_names[e->kind], e->description);
    }
}
