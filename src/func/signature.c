/*
 * signature.c: parsing of function signature strings and binding of signatures to argument
 * types (Trino's SignatureBinder, reduced to what SQE's signature language needs).
 *
 * INTERFACE: sig_parse, sig_bind, sig_genericity (see signature.h).
 *
 * NOTES: binding runs in three steps. (1) Every non-lambda argument is walked against its
 * declared type; each type variable collects the common super type of all the actual types it
 * meets (so greatest(integer, decimal(2,1)) binds T = decimal(11,1)). (2) Lambdas are bound left
 * to right with parameter types from the variables, and their body types bind more variables;
 * this repeats until nothing changes (reduce's state type may widen from its initial value to
 * the body type). (3) The declared types are instantiated into the cast targets and the cost of
 * every coercion is summed. Families (decimal, varchar, ...) keep the parameters of the actual
 * argument, or take the ones the common super type gives (integer -> decimal(10,0)).
 */
#include "func/signature.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "types/decimal.h"

/* --- Parsing ----------------------------------------------------------------------------- */

typedef struct sig_parser {
    arena *a;
    const char *text; /* the whole string, for messages */
    const char *p;
    func_sig *sig;
    sqe_error *err;
} sig_parser;

static void skip_spaces(sig_parser *ps) {
    while (*ps->p == ' ') ps->p++;
}

static bool is_word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int parse_fail(sig_parser *ps, const char *what) {
    return err_set(ps->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "bad function signature '%s': %s",
                   ps->text, what);
}

/* Reads the words of a type name ("timestamp with time zone") into buf, lower case when not a
 * type variable. Stops at '(' ',' ')' "..." or the end. */
static void read_words(sig_parser *ps, char *buf, size_t cap) {
    size_t n = 0;
    skip_spaces(ps);
    for (;;) {
        while (is_word_char(*ps->p)) {
            if (n + 1 < cap) buf[n++] = *ps->p;
            ps->p++;
        }
        /* one space followed by another word continues the name */
        if (*ps->p == ' ' && is_word_char(ps->p[1])) {
            if (n + 1 < cap) buf[n++] = ' ';
            ps->p++;
            continue;
        }
        break;
    }
    buf[n] = '\0';
}

static bool is_var_name(const char *w) {
    if (!isupper((unsigned char)w[0]) || strlen(w) > 7) return false;
    for (const char *c = w; *c; c++)
        if (!isupper((unsigned char)*c) && !isdigit((unsigned char)*c)) return false;
    return true;
}

static int var_index(sig_parser *ps, const char *name) {
    func_sig *sig = ps->sig;
    for (uint8_t i = 0; i < sig->n_vars; i++)
        if (strcmp(sig->var_names[i], name) == 0) return i;
    if (sig->n_vars >= SIG_MAX_VARS) return -1;
    size_t len = strlen(name); /* is_var_name allows at most 7 characters */
    if (len >= sizeof sig->var_names[0]) len = sizeof sig->var_names[0] - 1;
    memcpy(sig->var_names[sig->n_vars], name, len);
    sig->var_names[sig->n_vars][len] = '\0';
    return sig->n_vars++;
}

static int family_of(const char *w) {
    if (strcmp(w, "decimal") == 0) return TYPE_DECIMAL;
    if (strcmp(w, "varchar") == 0) return TYPE_VARCHAR;
    if (strcmp(w, "char") == 0) return TYPE_CHAR;
    if (strcmp(w, "timestamp") == 0) return TYPE_TIMESTAMP;
    if (strcmp(w, "timestamp with time zone") == 0) return TYPE_TIMESTAMP_TZ;
    if (strcmp(w, "time") == 0) return TYPE_TIME;
    if (strcmp(w, "row") == 0) return TYPE_ROW;
    return -1;
}

static int parse_type(sig_parser *ps, sig_type *out);

/* Parses "(t1, t2, ...)" as nested signature types. */
static int parse_children(sig_parser *ps, sig_type *out) {
    sig_type tmp[SIG_MAX_ARGS];
    uint32_t n = 0;
    ps->p++; /* '(' */
    for (;;) {
        if (n == SIG_MAX_ARGS) return parse_fail(ps, "too many type parameters");
        SQE_TRY(parse_type(ps, &tmp[n]));
        n++;
        skip_spaces(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == ')') {
            ps->p++;
            break;
        }
        return parse_fail(ps, "expected ',' or ')'");
    }
    out->children = ARENA_ARRAY(ps->a, sig_type, n);
    if (!out->children) return err_nomem(ps->err, "function signature");
    memcpy(out->children, tmp, n * sizeof tmp[0]);
    out->n_children = (uint8_t)n;
    return SQE_OK;
}

static int parse_type(sig_parser *ps, sig_type *out) {
    char word[64];
    memset(out, 0, sizeof *out);
    skip_spaces(ps);
    const char *start = ps->p;
    read_words(ps, word, sizeof word);
    if (!word[0]) return parse_fail(ps, "expected a type");
    bool var = is_var_name(word);
    if (!var)
        for (char *c = word; *c; c++) *c = (char)tolower((unsigned char)*c);

    if (*ps->p == '(' && (strcmp(word, "array") == 0 || strcmp(word, "map") == 0 ||
                          strcmp(word, "function") == 0 || strcmp(word, "row") == 0)) {
        SQE_TRY(parse_children(ps, out));
        if (word[0] == 'a') {
            if (out->n_children != 1) return parse_fail(ps, "array takes one type");
            out->kind = SIG_ARRAY;
        } else if (word[0] == 'm') {
            if (out->n_children != 2) return parse_fail(ps, "map takes two types");
            out->kind = SIG_MAP;
        } else if (word[0] == 'f') {
            out->kind = SIG_FUNCTION;
            ps->sig->has_lambda = true;
        } else {
            out->kind = SIG_ROW;
        }
        return SQE_OK;
    }
    if (*ps->p != '(') {
        if (var) {
            int idx = var_index(ps, word);
            if (idx < 0) return parse_fail(ps, "too many type variables");
            out->kind = SIG_VAR;
            out->var = (uint8_t)idx;
            return SQE_OK;
        }
        if (strcmp(word, "any") == 0) {
            out->kind = SIG_ANY;
            return SQE_OK;
        }
        int fam = family_of(word);
        if (fam >= 0) {
            out->kind = SIG_FAMILY;
            out->type = type_make((type_id)fam);
            return SQE_OK;
        }
    } else {
        /* concrete parametric type: skip to the matching ')' and any trailing words */
        int depth = 0;
        do {
            if (*ps->p == '(') depth++;
            if (*ps->p == ')') depth--;
            if (!*ps->p) return parse_fail(ps, "unbalanced parentheses");
            ps->p++;
        } while (depth > 0);
        if (*ps->p == ' ' && is_word_char(ps->p[1])) read_words(ps, word, sizeof word);
    }
    size_t len = (size_t)(ps->p - start);
    while (len && start[len - 1] == ' ') len--;
    out->kind = SIG_CONCRETE;
    if (type_parse(start, len, &out->type) != 0) return parse_fail(ps, "unknown type");
    return SQE_OK;
}

int sig_parse(arena *a, const char *args, const char *ret, func_sig *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    sig_parser ps = {.a = a, .text = args ? args : "", .p = args ? args : "", .sig = out,
                     .err = err};
    sig_type tmp[SIG_MAX_ARGS];
    uint32_t n = 0;
    skip_spaces(&ps);
    while (*ps.p) {
        if (n == SIG_MAX_ARGS) return parse_fail(&ps, "too many arguments");
        SQE_TRY(parse_type(&ps, &tmp[n]));
        n++;
        skip_spaces(&ps);
        if (strncmp(ps.p, "...", 3) == 0) {
            out->variadic = true;
            ps.p += 3;
            skip_spaces(&ps);
            if (*ps.p) return parse_fail(&ps, "'...' must end the argument list");
            break;
        }
        if (*ps.p == ',') {
            ps.p++;
            skip_spaces(&ps);
            if (!*ps.p) return parse_fail(&ps, "trailing ','");
            continue;
        }
        if (*ps.p) return parse_fail(&ps, "expected ','");
    }
    out->n_args = n;
    if (n) {
        out->args = ARENA_ARRAY(a, sig_type, n);
        if (!out->args) return err_nomem(err, "function signature");
        memcpy(out->args, tmp, n * sizeof tmp[0]);
    }
    ps.text = ret ? ret : "";
    ps.p = ps.text;
    skip_spaces(&ps);
    if (strcmp(ps.p, "?") == 0) {
        out->ret_dynamic = true;
        return SQE_OK;
    }
    SQE_TRY(parse_type(&ps, &out->ret));
    skip_spaces(&ps);
    if (*ps.p) return parse_fail(&ps, "junk after the return type");
    return SQE_OK;
}

/* --- Binding ----------------------------------------------------------------------------- */

typedef struct bind_state {
    sqe_type vars[SIG_MAX_VARS];
    bool bound[SIG_MAX_VARS];
} bind_state;

/* Widens variable v to cover t. */
static bool bind_var(bind_state *st, uint8_t v, sqe_type t) {
    if (!st->bound[v]) {
        st->vars[v] = t;
        st->bound[v] = true;
        return true;
    }
    if (t.id == TYPE_UNKNOWN || type_equal(st->vars[v], t)) return true;
    if (st->vars[v].id == TYPE_UNKNOWN) {
        st->vars[v] = t;
        return true;
    }
    sqe_type sup;
    if (!type_common_super(st->vars[v], t, &sup)) return false;
    st->vars[v] = sup;
    return true;
}

/* Step 1: binds the variables in s from the actual type t. */
static bool collect(bind_state *st, const sig_type *s, sqe_type t) {
    switch (s->kind) {
    case SIG_VAR:
        return bind_var(st, s->var, t);
    case SIG_ARRAY:
        if (t.id == TYPE_UNKNOWN) return true;
        if (t.id != TYPE_ARRAY || !t.nested) return false;
        return collect(st, &s->children[0], t.nested->children[0]);
    case SIG_MAP:
        if (t.id == TYPE_UNKNOWN) return true;
        if (t.id != TYPE_MAP || !t.nested) return false;
        return collect(st, &s->children[0], t.nested->children[0]) &&
               collect(st, &s->children[1], t.nested->children[1]);
    case SIG_ROW:
        if (t.id == TYPE_UNKNOWN) return true;
        if (t.id != TYPE_ROW || !t.nested || t.nested->n_children != s->n_children) return false;
        for (uint32_t i = 0; i < s->n_children; i++)
            if (!collect(st, &s->children[i], t.nested->children[i])) return false;
        return true;
    default:
        return true;
    }
}

static bool vars_bound(const bind_state *st, const sig_type *s) {
    if (s->kind == SIG_VAR) return st->bound[s->var];
    for (uint32_t i = 0; i < s->n_children; i++)
        if (!vars_bound(st, &s->children[i])) return false;
    return true;
}

/* The member of family `fam` that the actual type t becomes. */
static bool family_member(type_id fam, sqe_type t, sqe_type *out) {
    if (t.id == fam) {
        *out = t;
        return true;
    }
    if (t.id == TYPE_UNKNOWN) {
        switch (fam) {
        case TYPE_DECIMAL: *out = type_decimal(1, 0); return true;
        case TYPE_VARCHAR: *out = type_varchar(0); return true;
        case TYPE_CHAR: *out = type_char(1); return true;
        case TYPE_ROW: *out = t; return true;
        default: *out = type_make(fam); return true;
        }
    }
    if (fam == TYPE_ROW) return false;
    if (fam == TYPE_VARCHAR && t.id == TYPE_CHAR) {
        *out = type_varchar(t.length);
        return true;
    }
    if (fam == TYPE_TIMESTAMP_TZ && t.id == TYPE_TIMESTAMP) {
        *out = type_with_precision(TYPE_TIMESTAMP_TZ, t.precision);
        return true;
    }
    sqe_type def = fam == TYPE_DECIMAL ? type_decimal(1, 0) : fam == TYPE_VARCHAR ? type_varchar(0)
                                                                                  : type_make(fam);
    sqe_type sup;
    if (fam == TYPE_DECIMAL && type_is_integer(t)) {
        *out = decimal_for_integer(t);
        return true;
    }
    if (!type_common_super(t, def, &sup) || sup.id != fam) return false;
    *out = sup;
    return true;
}

/* Step 3: the concrete type of s given the actual type t (TYPE_UNKNOWN when absent). */
static bool instantiate(const bind_state *st, const sig_type *s, sqe_type t, sqe_type *out) {
    switch (s->kind) {
    case SIG_CONCRETE:
        *out = s->type;
        return true;
    case SIG_FAMILY:
        return family_member((type_id)s->type.id, t, out);
    case SIG_VAR:
        *out = st->bound[s->var] ? st->vars[s->var] : type_make(TYPE_UNKNOWN);
        return true;
    case SIG_ANY:
        *out = t;
        return true;
    case SIG_ARRAY: {
        sqe_type e;
        sqe_type te = t.id == TYPE_ARRAY && t.nested ? t.nested->children[0] : type_make(TYPE_UNKNOWN);
        if (!instantiate(st, &s->children[0], te, &e)) return false;
        *out = type_array(e);
        return out->id == TYPE_ARRAY;
    }
    case SIG_MAP: {
        sqe_type k, v, tk = type_make(TYPE_UNKNOWN), tv = tk;
        if (t.id == TYPE_MAP && t.nested) {
            tk = t.nested->children[0];
            tv = t.nested->children[1];
        }
        if (!instantiate(st, &s->children[0], tk, &k) || !instantiate(st, &s->children[1], tv, &v))
            return false;
        *out = type_map(k, v);
        return out->id == TYPE_MAP;
    }
    case SIG_ROW: {
        sqe_type fields[SIG_MAX_ARGS];
        bool same = t.id == TYPE_ROW && t.nested && t.nested->n_children == s->n_children;
        for (uint32_t i = 0; i < s->n_children; i++)
            if (!instantiate(st, &s->children[i],
                             same ? t.nested->children[i] : type_make(TYPE_UNKNOWN), &fields[i]))
                return false;
        *out = type_row(s->n_children, fields, same ? t.nested->names : NULL);
        return out->id == TYPE_ROW;
    }
    case SIG_FUNCTION:
        return instantiate(st, &s->children[s->n_children - 1], type_make(TYPE_UNKNOWN), out);
    }
    return false;
}

static int numeric_rank(uint8_t id) {
    switch (id) {
    case TYPE_TINYINT: return 1;
    case TYPE_SMALLINT: return 2;
    case TYPE_INTEGER: return 3;
    case TYPE_BIGINT: return 4;
    case TYPE_DECIMAL: return 5;
    case TYPE_REAL: return 6;
    case TYPE_DOUBLE: return 7;
    default: return 0;
    }
}

/* Cost of an implicit coercion (the caller has checked it is allowed). */
static uint32_t coercion_cost(sqe_type from, sqe_type to) {
    if (type_equal(from, to)) return 0;
    if (from.id == TYPE_UNKNOWN) return 1;
    int rf = numeric_rank(from.id), rt = numeric_rank(to.id);
    if (rf && rt) return rt > rf ? 2u * (uint32_t)(rt - rf) : 1u;
    if (from.id == to.id) return 1; /* parameters only: varchar(3) -> varchar */
    return 4;
}

static const sig_type *declared_arg(const func_sig *sig, uint32_t i) {
    return &sig->args[i < sig->n_args ? i : sig->n_args - 1];
}

sig_bind_result sig_bind(const func_sig *sig, const sqe_type *args, uint32_t n_args,
                         const func_lambda_binder *lambdas, bool loose_lambdas,
                         sqe_type *params, sqe_type *ret, uint32_t *cost, sqe_error *err) {
    if (sig->variadic ? n_args + 1 < sig->n_args : n_args != sig->n_args) return SIG_NO_MATCH;
    if (sig->has_lambda && !lambdas && !loose_lambdas) return SIG_NO_MATCH;
    bind_state st;
    memset(&st, 0, sizeof st);

    /* (1) variables from plain arguments */
    for (uint32_t i = 0; i < n_args; i++) {
        const sig_type *s = declared_arg(sig, i);
        if (s->kind == SIG_FUNCTION) continue;
        if (!collect(&st, s, args[i])) return SIG_NO_MATCH;
    }

    /* (2) lambdas, to a fixed point */
    sqe_type bodies[SIG_MAX_ARGS];
    memset(bodies, 0, sizeof bodies);
    if (sig->has_lambda && lambdas) {
        sqe_type last_params[SIG_MAX_ARGS][8];
        bool called[SIG_MAX_ARGS];
        memset(called, 0, sizeof called);
        for (int round = 0; round < 4; round++) {
            bool changed = false;
            for (uint32_t i = 0; i < n_args && i < SIG_MAX_ARGS; i++) {
                const sig_type *s = declared_arg(sig, i);
                if (s->kind != SIG_FUNCTION) continue;
                uint32_t n_params = s->n_children - 1u;
                if (n_params > 8) return SIG_NO_MATCH;
                sqe_type p[8];
                for (uint32_t k = 0; k < n_params; k++) {
                    if (!vars_bound(&st, &s->children[k])) return SIG_NO_MATCH;
                    if (!instantiate(&st, &s->children[k], type_make(TYPE_UNKNOWN), &p[k]))
                        return SIG_NO_MATCH;
                }
                bool same = called[i];
                for (uint32_t k = 0; same && k < n_params; k++)
                    same = type_equal(p[k], last_params[i][k]);
                if (!same) {
                    sqe_type body;
                    if (lambdas->bind(lambdas->ud, i, p, n_params, &body, err) != SQE_OK)
                        return SIG_ERROR;
                    memcpy(last_params[i], p, n_params * sizeof p[0]);
                    called[i] = true;
                    bodies[i] = body;
                }
                bind_state before = st;
                if (!collect(&st, &s->children[n_params], bodies[i])) return SIG_NO_MATCH;
                for (uint32_t v = 0; v < SIG_MAX_VARS; v++)
                    if (st.bound[v] != before.bound[v] ||
                        (st.bound[v] && !type_equal(st.vars[v], before.vars[v])))
                        changed = true;
            }
            if (!changed) break;
        }
    }

    /* The binder does not cast lambda bodies: each body must have exactly the declared type. */
    if (sig->has_lambda && lambdas) {
        for (uint32_t i = 0; i < n_args && i < SIG_MAX_ARGS; i++) {
            const sig_type *s = declared_arg(sig, i);
            if (s->kind != SIG_FUNCTION) continue;
            sqe_type want;
            if (!instantiate(&st, &s->children[s->n_children - 1], type_make(TYPE_UNKNOWN), &want))
                return SIG_NO_MATCH;
            if (!type_equal(want, bodies[i])) {
                char a[128], b[128];
                type_format(bodies[i], a, sizeof a);
                type_format(want, b, sizeof b);
                err_set(err, SQE_ERR_TYPE_MISMATCH,
                        "Lambda expression (argument %u) returns %s where %s is expected", i + 1,
                        a, b);
                return SIG_ERROR;
            }
        }
    }

    /* (3) cast targets and cost */
    uint32_t total = 0;
    for (uint32_t i = 0; i < n_args; i++) {
        const sig_type *s = declared_arg(sig, i);
        if (s->kind == SIG_FUNCTION) {
            if (!lambdas) {
                params[i] = type_make(TYPE_UNKNOWN);
                continue;
            }
            if (!instantiate(&st, s, type_make(TYPE_UNKNOWN), &params[i])) return SIG_NO_MATCH;
            continue;
        }
        if (!instantiate(&st, s, args[i], &params[i])) return SIG_NO_MATCH;
        if (type_equal(args[i], params[i])) continue;
        if (!type_can_coerce(args[i], params[i])) return SIG_NO_MATCH;
        total += coercion_cost(args[i], params[i]);
    }
    *cost = total;
    if (sig->ret_dynamic) {
        *ret = type_make(TYPE_UNKNOWN);
    } else if (!instantiate(&st, &sig->ret, type_make(TYPE_UNKNOWN), ret)) {
        return SIG_NO_MATCH;
    }
    return SIG_MATCH;
}

static uint32_t type_genericity(const sig_type *s) {
    uint32_t g = 0;
    switch (s->kind) {
    case SIG_ANY: g = 8; break;
    case SIG_VAR: g = 4; break;
    case SIG_FAMILY: g = 1; break;
    default: break;
    }
    for (uint32_t i = 0; i < s->n_children; i++) g += type_genericity(&s->children[i]);
    return g;
}

uint32_t sig_genericity(const func_sig *sig) {
    uint32_t g = sig->variadic ? 2 : 0;
    for (uint32_t i = 0; i < sig->n_args; i++) g += type_genericity(&sig->args[i]);
    return g;
}
