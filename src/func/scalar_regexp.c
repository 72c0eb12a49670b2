/*
 * scalar_regexp.c: the regexp family on PCRE2: regexp_like, regexp_extract,
 * regexp_extract_all, regexp_replace, regexp_count, regexp_position, regexp_split.
 *
 * INTERFACE: func_scalar_family_regexp.
 *
 * NOTES: patterns are UTF-8 with PCRE2_MATCH_INVALID_UTF, so invalid subjects never fail a
 * match. A constant pattern is compiled once at bind time: patterns up to 4 KiB go into a
 * process-wide cache (at most 1024 entries, JIT-compiled, never freed, so any number of queries
 * and threads can share them; matching is read-only); others are compiled into the bind arena
 * without JIT. Non-constant patterns are compiled per batch with a small local cache. After an
 * empty match the next search starts one code point further, as java.util.regex does, so
 * regexp_extract_all('abc', 'b*') is ['', 'b', '', '']. Replacement strings use Java syntax:
 * $n, ${name}, and '\' to escape. Invalid patterns and replacements are
 * INVALID_FUNCTION_ARGUMENT; runaway backtracking hits PCRE2's match limit and is an error.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "func/scalar_kernel.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)
#define SDATA(s) sqe_str_data(s)

#define RE_OPTIONS (PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)
#define RE_CACHE_SLOTS 2048 /* power of two; at most half are used */
#define RE_CACHE_MAX_PATTERN 4096

typedef struct regexp_pattern {
    pcre2_code *code;
    uint32_t n_groups; /* capture groups */
} regexp_pattern;

/* --- Compilation ------------------------------------------------------------------------------ */

static int compile_error(sqe_error *err, const sqe_str *pat, int code, PCRE2_SIZE offset) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    return err_set(err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                   "Invalid regular expression '%.*s': %s at offset %zu",
                   (int)(pat->len > 200 ? 200 : pat->len), SDATA(pat), (const char *)msg,
                   (size_t)offset);
}

static int compile(const sqe_str *pat, pcre2_compile_context *cctx, regexp_pattern *out,
                   sqe_error *err) {
    int code;
    PCRE2_SIZE offset;
    out->code = pcre2_compile((PCRE2_SPTR)SDATA(pat), pat->len, RE_OPTIONS, &code, &offset, cctx);
    if (!out->code) return compile_error(err, pat, code, offset);
    uint32_t groups = 0;
    pcre2_pattern_info(out->code, PCRE2_INFO_CAPTURECOUNT, &groups);
    out->n_groups = groups;
    return SQE_OK;
}

/* The process-wide cache of JIT-compiled constant patterns. */
typedef struct cache_entry {
    char *text;
    uint32_t len;
    regexp_pattern pat;
} cache_entry;

static struct {
    pthread_mutex_t lock;
    cache_entry slots[RE_CACHE_SLOTS];
    uint32_t used;
} g_cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Finds or adds pattern text; returns NULL when it cannot be cached (full, too long, or out of
 * memory); on a compile error returns NULL with *rc set. */
static const regexp_pattern *cache_get(const sqe_str *pat, int *rc, sqe_error *err) {
    *rc = SQE_OK;
    if (pat->len > RE_CACHE_MAX_PATTERN) return NULL;
    const char *p = SDATA(pat);
    uint32_t h = (uint32_t)hash_bytes(p, pat->len) & (RE_CACHE_SLOTS - 1);
    const regexp_pattern *found = NULL;
    pthread_mutex_lock(&g_cache.lock);
    for (;;) {
        cache_entry *e = &g_cache.slots[h];
        if (!e->text) {
            if (g_cache.used >= RE_CACHE_SLOTS / 2) break;
            regexp_pattern rp;
            if ((*rc = compile(pat, NULL, &rp, err)) != SQE_OK) break;
            char *copy = malloc(pat->len + 1);
            if (!copy) {
                pcre2_code_free(rp.code);
                break;
            }
            memcpy(copy, p, pat->len);
            copy[pat->len] = '\0';
            pcre2_jit_compile(rp.code, PCRE2_JIT_COMPLETE); /* falls back to the interpreter */
            e->len = pat->len;
            e->pat = rp;
            e->text = copy; /* published last */
            g_cache.used++;
            found = &e->pat;
            break;
        }
        if (e->len == pat->len && memcmp(e->text, p, pat->len) == 0) {
            found = &e->pat;
            break;
        }
        h = (h + 1) & (RE_CACHE_SLOTS - 1);
    }
    pthread_mutex_unlock(&g_cache.lock);
    return found;
}

/* PCRE2 memory in the bind arena (freed with the query; never pcre2_code_free'd). */
static void *arena_malloc(PCRE2_SIZE size, void *data) { return arena_alloc(data, size); }
static void arena_free(void *p, void *data) {
    (void)p;
    (void)data;
}

static int regexp_bind(arena *a, const sqe_type *args, const vec *const *const_args,
                       uint32_t n_args, sqe_type ret, const void **bind_data, sqe_error *err) {
    *bind_data = NULL;
    if (!const_args || n_args < 2 || !const_args[1] || vec_is_null(const_args[1], 0))
        return SQE_OK;
    uint32_t phys;
    const vec *f = vec_resolve(const_args[1], 0, &phys);
    const sqe_str *pat = &VEC_DATA(f, sqe_str)[phys];
    int rc;
    const regexp_pattern *cached = cache_get(pat, &rc, err);
    if (rc) return rc;
    if (cached) {
        *bind_data = cached;
        return SQE_OK;
    }
    pcre2_general_context *g = pcre2_general_context_create(arena_malloc, arena_free, a);
    pcre2_compile_context *cctx = g ? pcre2_compile_context_create(g) : NULL;
    regexp_pattern *rp = ARENA_NEW(a, regexp_pattern);
    if (!cctx || !rp) return err_nomem(err, "regular expression");
    SQE_TRY(compile(pat, cctx, rp, err));
    *bind_data = rp;
    return SQE_OK;
}

/* --- Per-call matcher -------------------------------------------------------------------------- */

#define LOCAL_SLOTS 8

/* What a kernel call uses: the bound pattern or per-row compiled ones, and match data. */
typedef struct matcher {
    func_ctx *ctx;
    const regexp_pattern *bound;
    struct {
        char *text;
        uint32_t len;
        regexp_pattern pat;
    } local[LOCAL_SLOTS];
    uint32_t n_local, next_evict;
    const regexp_pattern *cur;
    pcre2_match_data *md;
    const pcre2_code *md_code; /* pattern md was made for */
} matcher;

static void matcher_init(matcher *m, func_ctx *ctx) {
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->bound = ctx->bind_data;
}

static void matcher_destroy(matcher *m) {
    for (uint32_t i = 0; i < m->n_local; i++) {
        pcre2_code_free(m->local[i].pat.code);
        free(m->local[i].text);
    }
    pcre2_match_data_free(m->md);
}

/* Selects the pattern for a row (pat = the row's pattern argument). On a compile error reports
 * through func_row_error: returns the code, or SQE_OK with *skip set in try mode. */
static int matcher_use(matcher *m, const sqe_str *pat, vec *out, uint32_t row, bool *skip) {
    *skip = false;
    const regexp_pattern *p = m->bound;
    if (!p) {
        for (uint32_t i = 0; i < m->n_local && !p; i++)
            if (m->local[i].len == pat->len && memcmp(m->local[i].text, SDATA(pat), pat->len) == 0)
                p = &m->local[i].pat;
        if (!p) {
            sqe_error cerr;
            regexp_pattern rp;
            int rc = compile(pat, NULL, &rp, &cerr);
            if (rc) {
                rc = func_row_error(m->ctx, out, row, rc, "%s", cerr.message);
                *skip = true;
                return rc;
            }
            char *copy = malloc(pat->len ? pat->len : 1);
            if (!copy) {
                pcre2_code_free(rp.code);
                return func_nomem(m->ctx);
            }
            memcpy(copy, SDATA(pat), pat->len);
            uint32_t slot;
            if (m->n_local < LOCAL_SLOTS) {
                slot = m->n_local++;
            } else {
                slot = m->next_evict++ % LOCAL_SLOTS;
                if (m->md_code == m->local[slot].pat.code) m->md_code = NULL;
                pcre2_code_free(m->local[slot].pat.code);
                free(m->local[slot].text);
            }
            m->local[slot].text = copy;
            m->local[slot].len = pat->len;
            m->local[slot].pat = rp;
            p = &m->local[slot].pat;
        }
    }
    m->cur = p;
    if (m->md_code != p->code) {
        pcre2_match_data_free(m->md);
        m->md = pcre2_match_data_create_from_pattern(p->code, NULL);
        if (!m->md) return func_nomem(m->ctx);
        m->md_code = p->code;
    }
    return SQE_OK;
}

/* One search from byte offset `from`. Returns 1 match, 0 none, or < 0 a PCRE2 error. */
static int search(matcher *m, const sqe_str *s, size_t from) {
    int rc = pcre2_match(m->cur->code, (PCRE2_SPTR)SDATA(s), s->len, from, 0, m->md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc < 0) return rc;
    return 1;
}

static int match_failure(matcher *m, vec *out, uint32_t row, int pcre_rc) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(pcre_rc, msg, sizeof msg);
    return func_row_error(m->ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                          "regular expression match failed: %s", (const char *)msg);
}

/* Where the next search starts after a match [start, end): Java's rule (one code point past an
 * empty match). Returns false at the end of the subject. */
static bool next_from(const sqe_str *s, size_t start, size_t end, size_t *from) {
    if (end > start) {
        *from = end;
        return end <= s->len;
    }
    if (end >= s->len) return false;
    *from = end + utf8_seq_len((unsigned char)SDATA(s)[end]);
    if (*from > s->len) *from = s->len;
    return true;
}

/* Reads the pattern argument of a row (arg 1). */
static const sqe_str *pattern_of(const vec_view *up, uint32_t row) { return ustr(up, row); }

/* Checks the group number argument; reports an error row as needed. */
static int check_group(matcher *m, vec *out, uint32_t row, int64_t group, bool *bad) {
    *bad = group < 0 || group > (int64_t)m->cur->n_groups;
    if (!*bad) return SQE_OK;
    return func_row_error(m->ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                          "Pattern has %u groups. Cannot access group %lld", m->cur->n_groups,
                          (long long)group);
}

/* --- Kernels ---------------------------------------------------------------------------------- */

/* Prologue shared by the kernels: unify subject and pattern, set up the matcher. */
#define REGEXP_PROLOGUE()                                                                          \
    vec_view us, up;                                                                               \
    vec_view_init(&us, args[0]);                                                                   \
    vec_view_init(&up, args[1]);                                                                   \
    matcher m;                                                                                     \
    matcher_init(&m, ctx);                                                                         \
    int rc = SQE_OK
/* Selects the row's pattern; on failure breaks out of the row loop or skips the row. */
#define REGEXP_USE_PATTERN(row)                                                                    \
    bool skip_;                                                                                    \
    if ((rc = matcher_use(&m, pattern_of(&up, row), out, row, &skip_)) != SQE_OK) break;           \
    if (skip_) continue

KERNEL(regexp_like_fn) {
    REGEXP_PROLOGUE();
    uint8_t *r = out->data;
    FUNC_FOR_ROWS(sel, count, row) {
        REGEXP_USE_PATTERN(row);
        int found = search(&m, ustr(&us, row), 0);
        if (found < 0) {
            if ((rc = match_failure(&m, out, row, found))) break;
            continue;
        }
        r[row] = (uint8_t)found;
    }
    matcher_destroy(&m);
    return rc;
}

KERNEL(regexp_extract_fn) {
    REGEXP_PROLOGUE();
    vec_view ug = {0};
    if (n_args > 2) vec_view_init(&ug, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        REGEXP_USE_PATTERN(row);
        int64_t group = n_args > 2 ? UVAL(&ug, int64_t, row) : 0;
        bool bad;
        if ((rc = check_group(&m, out, row, group, &bad))) break;
        if (bad) continue;
        const sqe_str *s = ustr(&us, row);
        int found = search(&m, s, 0);
        if (found < 0) {
            if ((rc = match_failure(&m, out, row, found))) break;
            continue;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m.md);
        if (!found || ov[2 * group] == PCRE2_UNSET) {
            if ((rc = func_out_null(ctx, out, row))) break;
            continue;
        }
        if ((rc = func_out_str(ctx, out, row, SDATA(s) + ov[2 * group],
                               ov[2 * group + 1] - ov[2 * group])))
            break;
    }
    matcher_destroy(&m);
    return rc;
}

/* Appends one string element (or NULL) to the array being built in out. */
static int push_elem(func_ctx *ctx, vec *out, uint32_t *n, const char *p, size_t len, bool null) {
    uint32_t start;
    SQE_TRY(func_list_reserve(ctx, out, 1, &start));
    vec *elems = &out->children[0];
    if (null) SQE_TRY(func_out_null(ctx, elems, start));
    else {
        vec_set_valid(elems, start);
        SQE_TRY(func_out_str(ctx, elems, start, p, len));
    }
    out->child_len = start + 1;
    (*n)++;
    return SQE_OK;
}

KERNEL(regexp_extract_all_fn) {
    REGEXP_PROLOGUE();
    vec_view ug = {0};
    if (n_args > 2) vec_view_init(&ug, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        REGEXP_USE_PATTERN(row);
        int64_t group = n_args > 2 ? UVAL(&ug, int64_t, row) : 0;
        bool bad;
        if ((rc = check_group(&m, out, row, group, &bad))) break;
        if (bad) continue;
        const sqe_str *s = ustr(&us, row);
        uint32_t first = out->child_len, n = 0;
        size_t from = 0;
        for (;;) {
            int found = search(&m, s, from);
            if (found < 0) {
                rc = match_failure(&m, out, row, found);
                break;
            }
            if (!found) break;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m.md);
            bool unset = ov[2 * group] == PCRE2_UNSET;
            if ((rc = push_elem(ctx, out, &n, unset ? NULL : SDATA(s) + ov[2 * group],
                                unset ? 0 : ov[2 * group + 1] - ov[2 * group], unset)))
                break;
            if (!next_from(s, ov[0], ov[1], &from)) break;
        }
        if (rc) break;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, n};
    }
    matcher_destroy(&m);
    return rc;
}

/* Appends the expansion of Java replacement text for the current match. Returns NULL or an
 * error message. */
static const char *expand_replacement(strbuf *sb, const matcher *m, const sqe_str *s,
                                      const sqe_str *repl) {
    const char *r = SDATA(repl);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
    for (uint32_t i = 0; i < repl->len; i++) {
        char c = r[i];
        if (c == '\\') {
            if (++i >= repl->len) return "character to be escaped is missing";
            strbuf_putc(sb, r[i]);
            continue;
        }
        if (c != '$') {
            strbuf_putc(sb, c);
            continue;
        }
        if (++i >= repl->len) return "Illegal group reference: group index is missing";
        int64_t g;
        if (r[i] == '{') {
            uint32_t j = i + 1;
            while (j < repl->len && r[j] != '}') j++;
            if (j >= repl->len || j == i + 1) return "named capturing group is missing trailing '}'";
            char name[128];
            uint32_t nl = j - i - 1;
            if (nl >= sizeof name) return "No group with that name";
            memcpy(name, r + i + 1, nl);
            name[nl] = '\0';
            int num = pcre2_substring_number_from_name(m->cur->code, (PCRE2_SPTR)name);
            if (num < 0) return "No group with that name";
            g = num;
            i = j;
        } else if (r[i] >= '0' && r[i] <= '9') {
            g = r[i] - '0';
            if (g > (int64_t)m->cur->n_groups) return "No group with that index";
            while (i + 1 < repl->len && r[i + 1] >= '0' && r[i + 1] <= '9') {
                int64_t ng = g * 10 + (r[i + 1] - '0');
                if (ng > (int64_t)m->cur->n_groups) break;
                g = ng;
                i++;
            }
        } else {
            return "Illegal group reference";
        }
        if (ov[2 * g] != PCRE2_UNSET)
            strbuf_append(sb, SDATA(s) + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
    }
    return NULL;
}

KERNEL(regexp_replace_fn) {
    REGEXP_PROLOGUE();
    vec_view ur = {0};
    if (n_args > 2) vec_view_init(&ur, args[2]);
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    FUNC_FOR_ROWS(sel, count, row) {
        REGEXP_USE_PATTERN(row);
        const sqe_str *s = ustr(&us, row);
        const sqe_str *repl = n_args > 2 ? ustr(&ur, row) : NULL;
        const char *p = SDATA(s);
        size_t from = 0, copied = 0;
        const char *bad = NULL;
        int fail = 0;
        strbuf_clear(&sb);
        for (;;) {
            int found = search(&m, s, from);
            if (found <= 0) {
                fail = found;
                break;
            }
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m.md);
            strbuf_append(&sb, p + copied, ov[0] - copied);
            if (repl && (bad = expand_replacement(&sb, &m, s, repl))) break;
            copied = ov[1];
            if (!next_from(s, ov[0], ov[1], &from)) break;
        }
        if (fail < 0) {
            if ((rc = match_failure(&m, out, row, fail))) break;
            continue;
        }
        if (bad) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                     "Invalid replacement '%.*s': %s",
                                     (int)(repl->len > 100 ? 100 : repl->len), SDATA(repl), bad)))
                break;
            continue;
        }
        strbuf_append(&sb, p + copied, s->len - copied);
        if (sb.len > FUNC_MAX_STRING) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                     "regexp_replace result is too large")))
                break;
            continue;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    matcher_destroy(&m);
    return rc;
}

KERNEL(regexp_count_fn) {
    REGEXP_PROLOGUE();
    int64_t *r = out->data;
    FUNC_FOR_ROWS(sel, count, row) {
        REGEXP_USE_PATTERN(row);
        const sqe_str *s = ustr(&us, row);
        int64_t n = 0;
        size_t from = 0;
        int found;
        while ((found = search(&m, s, from)) > 0) {
            n++;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m.md);
            if (!next_from(s, ov[0], ov[1], &from)) break;
        }
        if (found < 0) {
            if ((rc = match_failure(&m, out, row, found))) break;
            continue;
        }
        r[row] = n;
    }
    matcher_destroy(&m);
    return rc;
}

KERNEL(regexp_position_fn) {
    REGEXP_PROLOGUE();
    vec_view ust = {0}, uo = {0};
    if (n_args > 2) vec_view_init(&ust, args[2]);
    if (n_args > 3) vec_view_init(&uo, args[3]);
    int32_t *r = out->data;
    FUNC_FOR_ROWS(sel, count, row) {
        REGEXP_USE_PATTERN(row);
        const sqe_str *s = ustr(&us, row);
        int64_t start = n_args > 2 ? UVAL(&ust, int64_t, row) : 1;
        int64_t occurrence = n_args > 3 ? UVAL(&uo, int64_t, row) : 1;
        if (start < 1 || occurrence < 1) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                     start < 1 ? "start position cannot be smaller than 1"
                                               : "occurrence cannot be smaller than 1")))
                break;
            continue;
        }
        const char *p = SDATA(s);
        int64_t n_cp = utf8_count(p, s->len);
        if (start > n_cp) {
            r[row] = -1;
            continue;
        }
        size_t from = utf8_offset(p, s->len, start - 1);
        int32_t pos = -1;
        int found;
        while ((found = search(&m, s, from)) > 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m.md);
            if (--occurrence == 0) {
                pos = (int32_t)(utf8_count(p, ov[0]) + 1);
                break;
            }
            if (!next_from(s, ov[0], ov[1], &from)) break;
        }
        if (found < 0) {
            if ((rc = match_failure(&m, out, row, found))) break;
            continue;
        }
        r[row] = pos;
    }
    matcher_destroy(&m);
    return rc;
}

KERNEL(regexp_split_fn) {
    REGEXP_PROLOGUE();
    FUNC_FOR_ROWS(sel, count, row) {
        REGEXP_USE_PATTERN(row);
        const sqe_str *s = ustr(&us, row);
        const char *p = SDATA(s);
        uint32_t first = out->child_len, n = 0;
        size_t from = 0, piece = 0;
        int found;
        while ((found = search(&m, s, from)) > 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m.md);
            if ((rc = push_elem(ctx, out, &n, p + piece, ov[0] - piece, false))) break;
            piece = ov[1];
            if (!next_from(s, ov[0], ov[1], &from)) break;
        }
        if (rc) break;
        if (found < 0) {
            if ((rc = match_failure(&m, out, row, found))) break;
            continue;
        }
        if ((rc = push_elem(ctx, out, &n, p + piece, s->len - piece, false))) break;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, n};
    }
    matcher_destroy(&m);
    return rc;
}

/* --- The table ------------------------------------------------------------------------------ */

#define NP FUNC_NULL_PROPAGATES
#define RE(name, args, ret, kernel, desc) {name, args, ret, NULL, regexp_bind, kernel, NP, desc}
/* The same with a ret_fn (Trino's bounded varchar results, ret_varchar.c). */
#define RE_RET(name, args, ret_fn, kernel, desc) {name, args, "?", ret_fn, regexp_bind, kernel, NP, desc}

static const func_scalar_def regexp_defs[] = {
    RE("regexp_like", "varchar,varchar", "boolean", regexp_like_fn,
       "does the pattern match anywhere in the string"),
    RE_RET("regexp_extract", "varchar,varchar", func_ret_varchar_of_arg0, regexp_extract_fn,
       "first substring matching the pattern"),
    RE_RET("regexp_extract", "varchar,varchar,bigint", func_ret_varchar_of_arg0, regexp_extract_fn,
       "a capture group of the first match"),
    RE_RET("regexp_extract_all", "varchar,varchar", func_ret_array_varchar_of_arg0, regexp_extract_all_fn,
       "all substrings matching the pattern"),
    RE_RET("regexp_extract_all", "varchar,varchar,bigint", func_ret_array_varchar_of_arg0,
           regexp_extract_all_fn,
       "a capture group of every match"),
    RE_RET("regexp_replace", "varchar,varchar", func_ret_varchar_of_arg0, regexp_replace_fn,
       "removes every match"),
    RE_RET("regexp_replace", "varchar,varchar,varchar", func_ret_regexp_replace3, regexp_replace_fn,
       "replaces every match ($n refers to groups)"),
    RE("regexp_count", "varchar,varchar", "bigint", regexp_count_fn, "number of matches"),
    RE("regexp_position", "varchar,varchar", "integer", regexp_position_fn,
       "position of the first match (1-based, -1 if none)"),
    RE("regexp_position", "varchar,varchar,bigint", "integer", regexp_position_fn,
       "position of the first match at or after start"),
    RE("regexp_position", "varchar,varchar,bigint,bigint", "integer", regexp_position_fn,
       "position of the n-th match at or after start"),
    RE_RET("regexp_split", "varchar,varchar", func_ret_array_varchar_of_arg0, regexp_split_fn,
       "splits at every match"),
};

const func_scalar_def *func_scalar_family_regexp(uint32_t *count) {
    *count = FUNC_N(regexp_defs);
    return regexp_defs;
}
