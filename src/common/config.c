/*
 * config.c: the SQE configuration: key registry, defaults, sqe.toml loading, environment
 * overrides, cross-key validation and rendering (`sqe config show`).
 *
 * INTERFACE: config_keys, config_init, config_reset, config_load_string, config_load_file,
 *            config_apply_env, config_validate, config_check_supported, config_load,
 *            config_render, config_catalog_find,
 *            config_parse_duration, config_parse_size, config_format_duration, config_format_size.
 *
 * NOTES:
 * - The registry (keys[] below) is the single description of every key: the struct field it
 *   fills (offset), its kind, default (in environment-variable syntax, parsed by the same code
 *   as overrides), limits, choices, an optional check, the original SQE name (alias) and the help
 *   text that docs/configuration.md repeats. Its rows live in one X-macro table per subsystem,
 *   common/config/<section>.def (coordinator, worker, auth, catalog, storage, policy,
 *   access_control, metrics, audit, session, query, spill), which also carry the UNSUPPORTED
 *   rows config_check_supported refuses. Adding a key: a field in config.h, one row in its
 *   section's .def, one row in docs/configuration.md. Checks that span keys stay here
 *   (config_validate).
 * - Keys of section "catalog" describe a config_catalog: they apply to [catalog] (the default
 *   catalog) and to every [catalogs.NAME]. They are contiguous in the registry so their position
 *   indexes config_catalog.origin.
 * - Messages name the place first: "sqe.toml:12: [query] timeout: ...", or "environment
 *   SQE_QUERY__TIMEOUT: ..." for overrides; validation errors point at the key that decided.
 * - Everything the config owns (strings, lists, catalogs) lives in cfg->arena.
 */
#include "common/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"
#include "common/toml.h"

#include <openssl/crypto.h>

extern char **environ;

/* --- checks --------------------------------------------------------------------------------- */

static int check_url(const char *v, char *why, size_t n) {
    const char *rest = NULL;
    if (strncmp(v, "http://", 7) == 0) rest = v + 7;
    if (strncmp(v, "https://", 8) == 0) rest = v + 8;
    if (!rest || !*rest || *rest == '/') {
        snprintf(why, n, "\"%s\" is not an http:// or https:// URL", v);
        return -1;
    }
    for (const char *c = v; *c; c++) {
        if (isspace((unsigned char)*c)) {
            snprintf(why, n, "URL \"%s\" contains whitespace", v);
            return -1;
        }
    }
    return 0;
}

static int check_address(const char *v, char *why, size_t n) {
    if (!*v) {
        snprintf(why, n, "an address is required (127.0.0.1 for loopback, 0.0.0.0 for all)");
        return -1;
    }
    for (const char *c = v; *c; c++) {
        if (!isalnum((unsigned char)*c) && !strchr(".-:_[]%", *c)) {
            snprintf(why, n, "\"%s\" is not a host name or IP address", v);
            return -1;
        }
    }
    return 0;
}

static int check_catalog_name(const char *v, char *why, size_t n) {
    if (!*v) {
        snprintf(why, n, "a catalog name cannot be empty");
        return -1;
    }
    for (const char *c = v; *c; c++) {
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-') {
            snprintf(why, n, "catalog name \"%s\" may only contain letters, digits, '_' and '-'",
                     v);
            return -1;
        }
    }
    return 0;
}

/* A provider name of [auth] providers. */
static int check_auth_provider(const char *v, char *why, size_t n) {
    static const char *const names[] = {"password", "anonymous", "oidc_bearer", "oidc_password",
                                        "client_credentials"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(v, names[i])) return 0;
    snprintf(why, n,
             "unknown provider \"%s\" (password, anonymous, oidc_bearer, oidc_password, "
             "client_credentials)",
             v);
    return -1;
}

/* A name of [auth.oidc] allowed_algorithms (the asymmetric JWS algorithms of auth/jws_alg.h). */
static int check_jws_alg(const char *v, char *why, size_t n) {
    static const char *const names[] = {"RS256", "RS384", "RS512", "PS256", "PS384",
                                        "PS512", "ES256", "ES384", "ES512", "EdDSA"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(v, names[i])) return 0;
    snprintf(why, n,
             "\"%s\" is not an accepted signature algorithm (RS256..RS512, PS256..PS512, "
             "ES256..ES512, EdDSA; none and HMAC are never accepted)",
             v);
    return -1;
}

/* --- the registry ----------------------------------------------------------------------------- */

#define F(field) offsetof(config, field)
#define C(field) offsetof(config_catalog, field)
#define SEC 1000LL
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)
#define KIB 1024LL
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)
#define TIB (1024 * GIB)
#define I64MAX INT64_MAX

/* The rows of the registry live in one table per subsystem, common/config/<section>.def, listed
 * in documentation order by common/config/tables.def. Each row is one of these macros:
 * section, name, kind, offset, default, min, max, choices, flags, alias, check, help. */
#define STR(s, n, off, d, fl, al, chk, h) {s, n, CONFIG_STR, off, d, 0, 0, NULL, fl, al, chk, h},
#define ENUM(s, n, off, d, ch, al, h) {s, n, CONFIG_ENUM, off, d, 0, 0, ch, 0, al, NULL, h},
#define BOOL(s, n, off, d, al, h) {s, n, CONFIG_BOOL, off, d, 0, 1, NULL, 0, al, NULL, h},
#define INT(s, n, off, d, mn, mx, al, h) {s, n, CONFIG_INT, off, d, mn, mx, NULL, 0, al, NULL, h},
#define PORT(s, n, off, d, al, h) {s, n, CONFIG_PORT, off, d, 0, 65535, NULL, 0, al, NULL, h},
#define DUR(s, n, off, d, mn, mx, al, h)                                                           \
    {s, n, CONFIG_DURATION, off, d, mn, mx, NULL, 0, al, NULL, h},
#define SIZE(s, n, off, d, mn, mx, al, h) {s, n, CONFIG_SIZE, off, d, mn, mx, NULL, 0, al, NULL, h},
#define FRAC(s, n, off, d, al, h) {s, n, CONFIG_FRACTION, off, d, 0, 1, NULL, 0, al, NULL, h},
#define LIST(s, n, off, d, chk, h) {s, n, CONFIG_LIST, off, d, 0, 0, NULL, 0, NULL, chk, h},
#define UNSUPPORTED(s, n, why) /* collected into unsupported[] below */

static const config_key keys[] = {
#include "common/config/tables.def"
};

#define N_KEYS (sizeof keys / sizeof keys[0])

const config_key *config_keys(size_t *n) {
    *n = N_KEYS;
    return keys;
}

/* Index range [first, end) of the catalog keys (contiguous; checked by the unit tests). */
static size_t catalog_first(void) {
    for (size_t i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].section, "catalog") == 0) return i;
    return N_KEYS;
}

static size_t catalog_end(void) {
    size_t end = catalog_first();
    while (end < N_KEYS && strcmp(keys[end].section, "catalog") == 0) end++;
    return end;
}

static int is_catalog_key(const config_key *k) { return strcmp(k->section, "catalog") == 0; }

static config_origin *origin_of(config *cfg, config_catalog *cat, const config_key *k) {
    size_t idx = (size_t)(k - keys);
    if (cat) return &cat->origin[idx - catalog_first()];
    return &cfg->origin[idx];
}

static const config_origin *origin_of_const(const config *cfg, const config_catalog *cat,
                                            const config_key *k) {
    return origin_of((config *)cfg, (config_catalog *)cat, k);
}

/* --- units ------------------------------------------------------------------------------------ */

/* Reads a plain decimal number "12" or "1.5" at *p (no sign, exponent or hex); -1 if none. */
static int read_decimal(const char **p, double *v) {
    const char *s = *p;
    size_t n = 0;
    int dot = 0;
    while (isdigit((unsigned char)s[n]) || (s[n] == '.' && !dot)) {
        if (s[n] == '.') dot = 1;
        n++;
    }
    if (n == 0 || n > 40 || !isdigit((unsigned char)s[0]) || s[n - 1] == '.') return -1;
    char buf[48];
    memcpy(buf, s, n);
    buf[n] = 0;
    *v = strtod(buf, NULL);
    *p = s + n;
    return 0;
}

int config_parse_duration(const char *text, int64_t *ms, sqe_error *err) {
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = {{"ms", 1}, {"s", SEC}, {"m", MIN}, {"h", HOUR}, {"d", DAY}};
    const char *p = text;
    while (*p == ' ') p++;
    if (!*p) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "empty duration");
    /* A bare integer is seconds. */
    char *end;
    if (isdigit((unsigned char)*p)) {
        errno = 0;
        long long v = strtoll(p, &end, 10);
        while (*end == ' ') end++;
        if (!*end) {
            if (errno == ERANGE || v > I64MAX / SEC)
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "duration \"%s\" is too large",
                               text);
            *ms = (int64_t)v * SEC;
            return SQE_OK;
        }
    }
    double total = 0;
    while (*p) {
        double v;
        if (read_decimal(&p, &v) != 0)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "invalid duration \"%s\" (use e.g. \"250ms\", \"30s\", \"5m\", \"2h\", "
                           "\"1d\", \"1h30m\")",
                           text);
        while (*p == ' ') p++;
        size_t best = 0;
        int64_t mult = 0;
        for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
            size_t len = strlen(units[u].unit);
            if (strncmp(p, units[u].unit, len) == 0 && !isalpha((unsigned char)p[len]) &&
                len > best) {
                best = len;
                mult = units[u].ms;
            }
        }
        if (!best)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "invalid duration \"%s\": missing or unknown unit (ms, s, m, h, d)",
                           text);
        p += best;
        while (*p == ' ') p++;
        total += v * (double)mult;
        if (total > 9.0e15)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "duration \"%s\" is too large", text);
    }
    *ms = (int64_t)llround(total);
    return SQE_OK;
}

int config_parse_size(const char *text, int64_t *bytes, sqe_error *err) {
    static const struct {
        const char *unit;
        int64_t mult;
    } units[] = {
        {"b", 1},     {"kb", 1000}, {"mb", 1000000}, {"gb", 1000000000LL}, {"tb", 1000000000000LL},
        {"kib", KIB}, {"mib", MIB}, {"gib", GIB},    {"tib", TIB}};
    const char *p = text;
    while (*p == ' ') p++;
    double v;
    if (read_decimal(&p, &v) != 0)
        return err_set(
            err, SQE_ERR_INVALID_ARGUMENTS,
            "invalid size \"%s\" (use e.g. \"512MiB\", \"4GiB\", \"1MB\" or a number of bytes)",
            text);
    while (*p == ' ') p++;
    int64_t mult = 1;
    if (*p) {
        char unit[8];
        size_t n = 0;
        while (*p && n < sizeof unit - 1) unit[n++] = (char)tolower((unsigned char)*p++);
        unit[n] = 0;
        while (*p == ' ') p++;
        mult = 0;
        for (size_t u = 0; u < sizeof units / sizeof units[0] && !*p; u++)
            if (strcmp(unit, units[u].unit) == 0) mult = units[u].mult;
        if (!mult)
            return err_set(
                err, SQE_ERR_INVALID_ARGUMENTS,
                "invalid size \"%s\": unknown unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", text);
    } else if (strchr(text, '.')) {
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "invalid size \"%s\": bytes must be a whole number", text);
    }
    double total = v * (double)mult;
    if (total >= 9.2e18)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "size \"%s\" is too large", text);
    *bytes = (int64_t)llround(total);
    return SQE_OK;
}

void config_format_duration(int64_t ms, char *buf, size_t buf_len) {
    if (ms == 0) {
        snprintf(buf, buf_len, "0s");
        return;
    }
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = {{"d", DAY}, {"h", HOUR}, {"m", MIN}, {"s", SEC}, {"ms", 1}};
    size_t used = 0;
    buf[0] = 0;
    for (size_t u = 0; u < sizeof units / sizeof units[0] && ms > 0; u++) {
        if (ms < units[u].ms) continue;
        /* Whole days/hours only when nothing smaller than seconds would remain in a long list. */
        int64_t q = ms / units[u].ms;
        ms -= q * units[u].ms;
        int w = snprintf(buf + used, used < buf_len ? buf_len - used : 0, "%lld%s", (long long)q,
                         units[u].unit);
        if (w > 0) used += (size_t)w;
    }
}

void config_format_size(int64_t bytes, char *buf, size_t buf_len) {
    static const struct {
        const char *unit;
        int64_t mult;
    } units[] = {{"TiB", TIB}, {"GiB", GIB}, {"MiB", MIB}, {"KiB", KIB}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (bytes != 0 && bytes % units[u].mult == 0) {
            snprintf(buf, buf_len, "%lld%s", (long long)(bytes / units[u].mult), units[u].unit);
            return;
        }
    }
    snprintf(buf, buf_len, "%lldB", (long long)bytes);
}

/* --- setting one value ------------------------------------------------------------------------ */

static const char *kind_text(config_kind kind) {
    switch (kind) {
    case CONFIG_STR: return "a string";
    case CONFIG_ENUM: return "a string";
    case CONFIG_BOOL: return "true or false";
    case CONFIG_INT: return "an integer";
    case CONFIG_PORT: return "a port number (0-65535)";
    case CONFIG_DURATION: return "a duration such as \"30s\" or \"5m\" (or seconds as an integer)";
    case CONFIG_SIZE: return "a size such as \"512MiB\" or \"4GiB\" (or bytes as an integer)";
    case CONFIG_FRACTION: return "a number from 0 to 1";
    case CONFIG_LIST: return "an array of strings";
    }
    return "a value";
}

static int choice_ok(const char *choices, const char *v) {
    size_t n = strlen(v);
    const char *c = choices;
    while (*c) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && strncmp(c, v, n) == 0) return 1;
        if (!bar) break;
        c = bar + 1;
    }
    return 0;
}

static void *slot_of(config *cfg, config_catalog *cat, const config_key *k) {
    return (char *)(cat ? (void *)cat : (void *)cfg) + k->offset;
}

static int range_ok(const config_key *k, int64_t v, char *why, size_t n) {
    if (v >= k->min && v <= k->max) return 0;
    char lo[32], hi[32];
    if (k->kind == CONFIG_DURATION) {
        config_format_duration(k->min, lo, sizeof lo);
        config_format_duration(k->max, hi, sizeof hi);
    } else if (k->kind == CONFIG_SIZE) {
        config_format_size(k->min, lo, sizeof lo);
        config_format_size(k->max, hi, sizeof hi);
    } else {
        snprintf(lo, sizeof lo, "%lld", (long long)k->min);
        snprintf(hi, sizeof hi, "%lld", (long long)k->max);
    }
    if (k->max == I64MAX)
        snprintf(why, n, "must be at least %s", lo);
    else
        snprintf(why, n, "must be between %s and %s", lo, hi);
    return -1;
}

static int set_int64(const config_key *k, void *slot, int64_t v, char *why, size_t n) {
    if (range_ok(k, v, why, n) != 0) return -1;
    if (k->kind == CONFIG_PORT)
        *(int *)slot = (int)v;
    else
        *(int64_t *)slot = v;
    return 0;
}

static int set_string(config *cfg, const config_key *k, void *slot, const char *v, char *why,
                      size_t n) {
    if (k->kind == CONFIG_ENUM && !choice_ok(k->choices, v)) {
        char list[160];
        size_t used = 0;
        for (const char *c = k->choices; *c && used + 8 < sizeof list; c++) {
            if (*c == '|') {
                used += (size_t)snprintf(list + used, sizeof list - used, "\", \"");
            } else {
                list[used++] = *c;
                list[used] = 0;
            }
        }
        snprintf(why, n, "\"%s\" is not one of \"%s\"", v, list);
        return -1;
    }
    if (k->check && *v && k->check(v, why, n) != 0) return -1;
    char *copy = arena_strdup(&cfg->arena, v);
    if (!copy) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    *(const char **)slot = copy;
    return 0;
}

/* Appends item to a list being built (arena array grown by copying). */
static int list_push(config *cfg, config_list *l, const char *s, size_t len) {
    const char **items = ARENA_ARRAY(&cfg->arena, const char *, l->n + 1);
    char *copy = arena_strndup(&cfg->arena, s, len);
    if (!items || !copy) return -1;
    if (l->n) memcpy(items, l->items, l->n * sizeof *items);
    items[l->n++] = copy;
    l->items = items;
    return 0;
}

/* Sets a value given as text (defaults and environment variables). */
static int set_text(config *cfg, config_catalog *cat, const config_key *k, const char *text,
                    char *why, size_t n) {
    void *slot = slot_of(cfg, cat, k);
    sqe_error e;
    switch (k->kind) {
    case CONFIG_STR:
    case CONFIG_ENUM: return set_string(cfg, k, slot, text, why, n);
    case CONFIG_BOOL: {
        static const char *yes[] = {"true", "1", "yes", "on"}, *no[] = {"false", "0", "no", "off"};
        for (size_t i = 0; i < 4; i++) {
            if (strcasecmp(text, yes[i]) == 0) {
                *(int *)slot = 1;
                return 0;
            }
            if (strcasecmp(text, no[i]) == 0) {
                *(int *)slot = 0;
                return 0;
            }
        }
        snprintf(why, n, "\"%s\" is not a boolean (true/false, 1/0, yes/no, on/off)", text);
        return -1;
    }
    case CONFIG_INT:
    case CONFIG_PORT: {
        char *end;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (end == text || *end || errno == ERANGE) {
            snprintf(why, n, "\"%s\" is not %s", text, kind_text(k->kind));
            return -1;
        }
        return set_int64(k, slot, (int64_t)v, why, n);
    }
    case CONFIG_DURATION:
    case CONFIG_SIZE: {
        int64_t v;
        int rc = k->kind == CONFIG_DURATION ? config_parse_duration(text, &v, &e)
                                            : config_parse_size(text, &v, &e);
        if (rc != SQE_OK) {
            if (snprintf(why, n, "%s", e.message) < 0) why[0] = 0;
            return -1;
        }
        return set_int64(k, slot, v, why, n);
    }
    case CONFIG_FRACTION: {
        char *end;
        double v = strtod(text, &end);
        if (end == text || *end || !(v >= 0 && v <= 1)) {
            snprintf(why, n, "\"%s\" is not %s", text, kind_text(k->kind));
            return -1;
        }
        *(double *)slot = v;
        return 0;
    }
    case CONFIG_LIST: {
        config_list l = {0};
        const char *p = text;
        while (*p) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            const char *s = p;
            while (len && isspace((unsigned char)*s)) s++, len--;
            while (len && isspace((unsigned char)s[len - 1])) len--;
            if (len) {
                char item[1024];
                snprintf(item, sizeof item, "%.*s", (int)len, s);
                if (k->check && k->check(item, why, n) != 0) return -1;
                if (list_push(cfg, &l, s, len) != 0) {
                    snprintf(why, n, "out of memory");
                    return -1;
                }
            }
            if (!comma) break;
            p = comma + 1;
        }
        *(config_list *)slot = l;
        return 0;
    }
    }
    snprintf(why, n, "unknown kind");
    return -1;
}

static const char *toml_kind_text(const toml_value *v) {
    switch (v->type) {
    case TOML_TABLE: return "a table";
    case TOML_ARRAY: return "an array";
    case TOML_STRING: return "a string";
    case TOML_INTEGER: return "an integer";
    case TOML_FLOAT: return "a float";
    case TOML_BOOL: return "a boolean";
    default: return "a date/time";
    }
}

/* Sets a value from the TOML file. */
static int set_toml(config *cfg, config_catalog *cat, const config_key *k, const toml_value *v,
                    char *why, size_t n) {
    void *slot = slot_of(cfg, cat, k);
    switch (k->kind) {
    case CONFIG_STR:
    case CONFIG_ENUM:
        if (v->type != TOML_STRING) break;
        if (strlen(v->u.str.ptr) != v->u.str.len) {
            snprintf(why, n, "the string contains a NUL character");
            return -1;
        }
        return set_string(cfg, k, slot, v->u.str.ptr, why, n);
    case CONFIG_BOOL:
        if (v->type != TOML_BOOL) break;
        *(int *)slot = v->u.boolean;
        return 0;
    case CONFIG_INT:
    case CONFIG_PORT:
        if (v->type != TOML_INTEGER) break;
        return set_int64(k, slot, v->u.integer, why, n);
    case CONFIG_DURATION:
        if (v->type == TOML_INTEGER) {
            if (v->u.integer < 0 || v->u.integer > I64MAX / SEC) {
                snprintf(why, n, "%lld seconds is out of range", (long long)v->u.integer);
                return -1;
            }
            return set_int64(k, slot, v->u.integer * SEC, why, n);
        }
        if (v->type != TOML_STRING) break;
        return set_text(cfg, cat, k, v->u.str.ptr, why, n);
    case CONFIG_SIZE:
        if (v->type == TOML_INTEGER) return set_int64(k, slot, v->u.integer, why, n);
        if (v->type != TOML_STRING) break;
        return set_text(cfg, cat, k, v->u.str.ptr, why, n);
    case CONFIG_FRACTION: {
        double d;
        if (v->type == TOML_FLOAT)
            d = v->u.flt;
        else if (v->type == TOML_INTEGER)
            d = (double)v->u.integer;
        else
            break;
        if (!(d >= 0 && d <= 1)) {
            snprintf(why, n, "must be between 0 and 1");
            return -1;
        }
        *(double *)slot = d;
        return 0;
    }
    case CONFIG_LIST: {
        if (v->type != TOML_ARRAY) break;
        config_list l = {0};
        for (size_t i = 0; i < toml_array_count(v); i++) {
            const toml_value *item = toml_array_at(v, i);
            if (item->type != TOML_STRING || strlen(item->u.str.ptr) != item->u.str.len) {
                snprintf(why, n, "item %zu is %s, expected a string", i + 1, toml_kind_text(item));
                return -1;
            }
            if (k->check && k->check(item->u.str.ptr, why, n) != 0) return -1;
            if (list_push(cfg, &l, item->u.str.ptr, item->u.str.len) != 0) {
                snprintf(why, n, "out of memory");
                return -1;
            }
        }
        *(config_list *)slot = l;
        return 0;
    }
    }
    snprintf(why, n, "expected %s, got %s", kind_text(k->kind), toml_kind_text(v));
    return -1;
}

/* --- init and catalogs ------------------------------------------------------------------------ */

static int apply_defaults(config *cfg, config_catalog *cat, int catalog_keys, sqe_error *err) {
    for (size_t i = 0; i < N_KEYS; i++) {
        const config_key *k = &keys[i];
        if (is_catalog_key(k) != catalog_keys) continue;
        char why[256];
        if (set_text(cfg, cat, k, k->def, why, sizeof why) != 0) {
            if (strcmp(why, "out of memory") == 0) return err_nomem(err, "configuration");
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "bad default of [%s] %s: %s",
                           k->section, k->name, why);
        }
        *origin_of(cfg, cat, k) = (config_origin){CONFIG_DEFAULT, 0};
    }
    return SQE_OK;
}

int config_init(config *cfg, sqe_error *err) {
    memset(cfg, 0, sizeof *cfg);
    arena_init(&cfg->arena, NULL);
    cfg->path = "";
    SQE_TRY(apply_defaults(cfg, NULL, 0, err));
    return apply_defaults(cfg, &cfg->catalog, 1, err);
}

void config_reset(config *cfg) {
    arena_destroy(&cfg->arena);
    memset(cfg, 0, sizeof *cfg);
    cfg->path = "";
}

/* Finds or adds [catalogs.NAME]; name compared exactly (or case-insensitively for env). */
static config_catalog *catalog_get(config *cfg, const char *name, size_t len, int nocase,
                                   sqe_error *err, int *rc) {
    for (size_t i = 0; i < cfg->n_catalogs; i++) {
        const char *have = cfg->catalogs[i].name;
        if (strlen(have) == len &&
            (nocase ? strncasecmp(have, name, len) : strncmp(have, name, len)) == 0)
            return &cfg->catalogs[i];
    }
    if (cfg->n_catalogs >= CONFIG_MAX_CATALOGS) {
        *rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "too many catalogs (at most %d)",
                      CONFIG_MAX_CATALOGS);
        return NULL;
    }
    config_catalog *arr = ARENA_ARRAY(&cfg->arena, config_catalog, cfg->n_catalogs + 1);
    char *copy = arena_strndup(&cfg->arena, name, len);
    if (!arr || !copy) {
        *rc = err_nomem(err, "configuration");
        return NULL;
    }
    if (cfg->n_catalogs) memcpy(arr, cfg->catalogs, cfg->n_catalogs * sizeof *arr);
    cfg->catalogs = arr;
    config_catalog *cat = &arr[cfg->n_catalogs++];
    *rc = apply_defaults(cfg, cat, 1, err);
    if (*rc != SQE_OK) return NULL;
    if (nocase)
        for (char *c = copy; *c; c++) *c = (char)tolower((unsigned char)*c);
    cat->name = copy;
    return cat;
}

const config_catalog *config_catalog_find(const config *cfg, const char *name) {
    if (strcmp(cfg->catalog.name, name) == 0) return &cfg->catalog;
    for (size_t i = 0; i < cfg->n_catalogs; i++)
        if (strcmp(cfg->catalogs[i].name, name) == 0) return &cfg->catalogs[i];
    return NULL;
}

/* --- loading a file --------------------------------------------------------------------------- */

static int is_section(const char *s) {
    for (size_t i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].section, s) == 0) return 1;
    return 0;
}

static const config_key *find_key(const char *section, const char *name, int nocase) {
    for (size_t i = 0; i < N_KEYS; i++) {
        const config_key *k = &keys[i];
        if (strcmp(k->section, section) != 0) continue;
        int (*cmp)(const char *, const char *) = nocase ? strcasecmp : strcmp;
        if (cmp(k->name, name) == 0 || (k->alias && cmp(k->alias, name) == 0)) return k;
    }
    return NULL;
}

static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40) return 99;
    size_t row[41];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t best = prev + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

/* " (did you mean 'x'?)" when a key of section is close to name. */
static void suggest(const char *section, const char *name, char *buf, size_t n) {
    buf[0] = 0;
    size_t best = 3;
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].section, section) != 0) continue;
        size_t d = edit_distance(keys[i].name, name);
        if (d < best) {
            best = d;
            snprintf(buf, n, " (did you mean '%s'?)", keys[i].name);
        }
    }
}

typedef struct load_ctx {
    config *cfg;
    const char *file;
    sqe_error *err;
} load_ctx;

static int key_error(load_ctx *ctx, int line, const char *section, const char *key,
                     const char *why) {
    return err_set_at(ctx->err, SQE_ERR_INVALID_ARGUMENTS, line, 0, "%s:%d: [%s] %s: %s", ctx->file,
                      line, section, key, why);
}

static int apply_pair(load_ctx *ctx, config_catalog *cat, const char *section, const char *display,
                      const toml_kv *kv) {
    const config_key *k = find_key(section, kv->key, 0);
    char why[300];
    if (!k || strlen(kv->key) != kv->key_len) {
        char hint[96];
        suggest(section, kv->key, hint, sizeof hint);
        snprintf(why, sizeof why, "unknown key%s", hint);
        return key_error(ctx, kv->value->line, display, kv->key, why);
    }
    if ((k->flags & CONFIG_DEFAULT_ONLY) && cat != &ctx->cfg->catalog)
        return key_error(ctx, kv->value->line, display, kv->key,
                         "only allowed in [catalog]; a [catalogs.NAME] table is named by NAME");
    if (set_toml(ctx->cfg, cat, k, kv->value, why, sizeof why) != 0)
        return key_error(ctx, kv->value->line, display, kv->key, why);
    *origin_of(ctx->cfg, cat, k) = (config_origin){CONFIG_FILE, kv->value->line};
    return SQE_OK;
}

static int apply_section(load_ctx *ctx, const char *section, const toml_value *t) {
    for (size_t i = 0; i < toml_table_count(t); i++) {
        const toml_kv *kv = toml_table_at(t, i);
        char sub[128];
        snprintf(sub, sizeof sub, "%s.%s", section, kv->key);
        if (kv->value->type == TOML_TABLE && is_section(sub)) {
            SQE_TRY(apply_section(ctx, sub, kv->value));
            continue;
        }
        if (kv->value->type == TOML_TABLE && !find_key(section, kv->key, 0))
            return err_set_at(ctx->err, SQE_ERR_INVALID_ARGUMENTS, kv->value->line, 0,
                              "%s:%d: [%s]: unknown section", ctx->file, kv->value->line, sub);
        SQE_TRY(apply_pair(ctx, NULL, section, section, kv));
    }
    return SQE_OK;
}

static int apply_catalog(load_ctx *ctx, config_catalog *cat, const char *display,
                         const toml_value *t) {
    for (size_t i = 0; i < toml_table_count(t); i++)
        SQE_TRY(apply_pair(ctx, cat, "catalog", display, toml_table_at(t, i)));
    return SQE_OK;
}

int config_load_string(config *cfg, const char *text, size_t len, const char *filename,
                       sqe_error *err) {
    const char *file = filename ? filename : "<config>";
    toml_doc *doc = NULL;
    sqe_error terr;
    if (toml_parse(text, len, &doc, &terr) != SQE_OK) {
        if (terr.code == SQE_ERR_OUT_OF_MEMORY) return err_nomem(err, "configuration");
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, terr.line, terr.column, "%s:%d:%d: %s",
                          file, terr.line, terr.column, terr.message);
    }
    char *path_copy = arena_strdup(&cfg->arena, file);
    if (!path_copy) {
        toml_doc_destroy(doc);
        return err_nomem(err, "configuration");
    }
    cfg->path = path_copy;
    load_ctx ctx = {cfg, path_copy, err};
    int rc = SQE_OK;
    const toml_value *root = doc->root;
    for (size_t i = 0; i < toml_table_count(root) && rc == SQE_OK; i++) {
        const toml_kv *kv = toml_table_at(root, i);
        const toml_value *v = kv->value;
        if (strcmp(kv->key, "catalogs") == 0 && v->type == TOML_TABLE) {
            for (size_t j = 0; j < toml_table_count(v) && rc == SQE_OK; j++) {
                const toml_kv *ckv = toml_table_at(v, j);
                char display[160];
                snprintf(display, sizeof display, "catalogs.%s", ckv->key);
                char why[256];
                if (ckv->value->type != TOML_TABLE) {
                    rc = err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, ckv->value->line, 0,
                                    "%s:%d: [catalogs] %s: expected a table [catalogs.%s], got %s",
                                    file, ckv->value->line, ckv->key, ckv->key,
                                    toml_kind_text(ckv->value));
                    break;
                }
                if (strlen(ckv->key) != ckv->key_len ||
                    check_catalog_name(ckv->key, why, sizeof why) != 0) {
                    rc = err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, ckv->value->line, 0,
                                    "%s:%d: [%s]: %s", file, ckv->value->line, display, why);
                    break;
                }
                config_catalog *cat = catalog_get(cfg, ckv->key, ckv->key_len, 0, err, &rc);
                if (!cat) break;
                rc = apply_catalog(&ctx, cat, display, ckv->value);
            }
        } else if (strcmp(kv->key, "catalog") == 0 && v->type == TOML_TABLE) {
            rc = apply_catalog(&ctx, &cfg->catalog, "catalog", v);
        } else if (v->type == TOML_TABLE && is_section(kv->key)) {
            rc = apply_section(&ctx, kv->key, v);
        } else if (v->type == TOML_TABLE) {
            rc = err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, v->line, 0,
                            "%s:%d: [%s]: unknown section", file, v->line, kv->key);
        } else {
            rc = err_set_at(
                err, SQE_ERR_INVALID_ARGUMENTS, v->line, 0,
                "%s:%d: %s: key outside of any section (put it under [coordinator], [query], ...)",
                file, v->line, kv->key);
        }
    }
    toml_doc_destroy(doc);
    return rc;
}

int config_load_file(config *cfg, const char *path, sqe_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(err, SQE_ERR_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
    strbuf sb;
    strbuf_init(&sb);
    char chunk[16384];
    size_t n;
    int rc = SQE_OK;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        strbuf_append(&sb, chunk, n);
        if (sb.len > 16 * MIB) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "%s: larger than 16 MiB", path);
            break;
        }
    }
    if (rc == SQE_OK && ferror(f))
        rc = err_set(err, SQE_ERR_IO_ERROR, "%s: read error: %s", path, strerror(errno));
    if (rc == SQE_OK && sb.failed) rc = err_nomem(err, "configuration file");
    fclose(f);
    if (rc == SQE_OK) rc = config_load_string(cfg, sb.data ? sb.data : "", sb.len, path, err);
    strbuf_reset(&sb);
    return rc;
}

/* --- environment ------------------------------------------------------------------------------ */

/* SQE_<SECTION>__<KEY> name of a key ("catalogs.<name>" for catalog keys of a named catalog). */
static void env_name(const char *section, const char *key, char *buf, size_t n) {
    size_t used = (size_t)snprintf(buf, n, "SQE_");
    for (const char *c = section; *c && used + 1 < n; c++)
        buf[used++] = *c == '.' ? '_' : (char)toupper((unsigned char)*c);
    if (used + 2 < n) {
        buf[used++] = '_';
        buf[used++] = '_';
    }
    for (const char *c = key; *c && used + 1 < n; c++)
        buf[used++] = (char)toupper((unsigned char)*c);
    buf[used < n ? used : n - 1] = 0;
}

static int env_error(sqe_error *err, const char *var, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int env_error(sqe_error *err, const char *var, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "environment %s: %s", var, msg);
}

static int apply_env_one(config *cfg, const char *var, size_t var_len, const char *value,
                         sqe_error *err) {
    char name[256];
    if (var_len >= sizeof name) return env_error(err, "SQE_...", "variable name too long");
    memcpy(name, var, var_len);
    name[var_len] = 0;
    const config_key *k = NULL;
    config_catalog *cat = NULL;
    char display[160];
    if (strcmp(name, "SQE_PRODUCTION_MODE") == 0) {
        k = find_key("coordinator", "production_mode", 0);
        snprintf(display, sizeof display, "coordinator");
    } else {
        const char *sep = strstr(name + 4, "__");
        if (!sep) return SQE_OK; /* not a configuration variable (SQE_BIN, ...) */
        char sec[128], key[128];
        size_t sl = (size_t)(sep - (name + 4));
        if (sl == 0 || sl >= sizeof sec || strlen(sep + 2) >= sizeof key || !sep[2])
            return env_error(err, name, "expected SQE_<SECTION>__<KEY>");
        for (size_t i = 0; i < sl; i++) sec[i] = (char)tolower((unsigned char)name[4 + i]);
        sec[sl] = 0;
        snprintf(key, sizeof key, "%s", sep + 2);
        if (strcmp(sec, "catalog") == 0) {
            cat = &cfg->catalog;
            snprintf(display, sizeof display, "catalog");
        } else if (strncmp(sec, "catalogs_", 9) == 0 && sec[9]) {
            char why[200];
            if (check_catalog_name(sec + 9, why, sizeof why) != 0)
                return env_error(err, name, "%s", why);
            int rc = SQE_OK;
            cat = catalog_get(cfg, sec + 9, strlen(sec + 9), 1, err, &rc);
            if (!cat) return rc;
            snprintf(display, sizeof display, "catalogs.%s", cat->name);
        } else {
            /* Match the section with dots spelled as underscores. */
            const char *found = NULL;
            for (size_t i = 0; i < N_KEYS && !found; i++) {
                char spelled[128];
                snprintf(spelled, sizeof spelled, "%s", keys[i].section);
                for (char *c = spelled; *c; c++)
                    if (*c == '.') *c = '_';
                if (strcmp(spelled, sec) == 0 && !is_catalog_key(&keys[i])) found = keys[i].section;
            }
            if (!found) return env_error(err, name, "unknown section in SQE_<SECTION>__<KEY>");
            snprintf(display, sizeof display, "%s", found);
        }
        k = find_key(cat ? "catalog" : display, key, 1);
        if (!k) {
            char lower[128], hint[96];
            for (size_t i = 0; i <= strlen(key); i++)
                lower[i] = (char)tolower((unsigned char)key[i]);
            suggest(cat ? "catalog" : display, lower, hint, sizeof hint);
            return env_error(err, name, "[%s] %s: unknown key%s", display, lower, hint);
        }
        if ((k->flags & CONFIG_DEFAULT_ONLY) && cat != &cfg->catalog)
            return env_error(err, name, "[%s] %s: only allowed for [catalog]", display, k->name);
    }
    char why[300];
    if (set_text(cfg, cat, k, value, why, sizeof why) != 0)
        return env_error(err, name, "[%s] %s: %s", display, k->name, why);
    *origin_of(cfg, cat, k) = (config_origin){CONFIG_ENV, 0};
    return SQE_OK;
}

int config_apply_env(config *cfg, char *const *envp, sqe_error *err) {
    if (!envp) envp = environ;
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *e = envp[i];
        if (strncmp(e, "SQE_", 4) != 0) continue;
        const char *eq = strchr(e, '=');
        if (!eq) continue;
        SQE_TRY(apply_env_one(cfg, e, (size_t)(eq - e), eq + 1, err));
    }
    return SQE_OK;
}

/* --- validation ------------------------------------------------------------------------------- */

/* Error about a key, placed where its value came from: "sqe.toml:12: [sec] key: why",
 * "environment SQE_SEC__KEY: [sec] key: why", or "sqe.toml: [sec] key: why" for a default. */
static int invalid(const config *cfg, sqe_error *err, const config_catalog *cat,
                   const char *section, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int invalid(const config *cfg, sqe_error *err, const config_catalog *cat,
                   const char *section, const char *name, const char *fmt, ...) {
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    char display[160];
    if (cat && cat != &cfg->catalog)
        snprintf(display, sizeof display, "catalogs.%s", cat->name);
    else
        snprintf(display, sizeof display, "%s", cat ? "catalog" : section);
    const config_key *k = find_key(cat ? "catalog" : section, name, 0);
    const config_origin *o = k ? origin_of_const(cfg, cat, k) : NULL;
    char where[300] = "";
    int line = 0;
    if (o && o->source == CONFIG_FILE) {
        snprintf(where, sizeof where, "%s:%d: ", cfg->path, o->line);
        line = o->line;
    } else if (o && o->source == CONFIG_ENV) {
        char env[200];
        env_name(display, name, env, sizeof env);
        snprintf(where, sizeof where, "environment %s: ", env);
    } else if (cfg->path && *cfg->path) {
        snprintf(where, sizeof where, "%s: ", cfg->path);
    }
    return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, line, 0, "%s[%s] %s: %s", where, display,
                      name, why);
}

static int is_loopback(const char *addr) {
    return strcmp(addr, "localhost") == 0 || strcmp(addr, "::1") == 0 ||
           strcmp(addr, "[::1]") == 0 || strncmp(addr, "127.", 4) == 0;
}

static bool list_has(const config_list *l, const char *item) {
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->items[i], item)) return true;
    return false;
}

/* The host of an http(s) URL into buf ("" when it has none). */
static void url_host(const char *url, char *buf, size_t n) {
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    size_t len = strcspn(h, "/?#");
    const char *at = memchr(h, '@', len);
    if (at) {
        len -= (size_t)(at + 1 - h);
        h = at + 1;
    }
    if (*h == '[') {
        const char *close = memchr(h, ']', len);
        len = close ? (size_t)(close + 1 - h) : len;
    } else {
        const char *colon = memchr(h, ':', len);
        if (colon) len = (size_t)(colon - h);
    }
    snprintf(buf, n, "%.*s", (int)len, h);
}

/* An identity-provider URL of [auth.oidc]: https, or http to a loopback host with
 * allow_insecure_http. */
static int validate_oidc_url(const config *cfg, const char *name, const char *url,
                             sqe_error *err) {
    if (!*url || !strncmp(url, "https://", 8)) return SQE_OK;
    char host[256];
    url_host(url, host, sizeof host);
    if (!cfg->auth.oidc.allow_insecure_http)
        return invalid(cfg, err, NULL, "auth.oidc", name,
                       "plain http is refused (set allow_insecure_http = true for a loopback "
                       "identity provider in tests)");
    if (!is_loopback(host))
        return invalid(cfg, err, NULL, "auth.oidc", name,
                       "plain http is allowed only to a loopback host, not %s", host);
    return SQE_OK;
}

int config_oidc_client_secret(const config_oidc *o, char **out, sqe_error *err) {
    *out = NULL;
    if (!*o->client_secret_file) {
        if (!*o->client_secret) return SQE_OK;
        *out = strdup(o->client_secret);
        return *out ? SQE_OK : err_nomem(err, "client secret");
    }
    FILE *f = fopen(o->client_secret_file, "rb");
    if (!f)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "[auth.oidc] client_secret_file %s cannot be read: %s",
                       o->client_secret_file, strerror(errno));
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    bool more = n == sizeof buf && fgetc(f) != EOF;
    fclose(f);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) n--;
    int rc = SQE_OK;
    if (more)
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                     "[auth.oidc] client_secret_file %s is larger than 4 KiB",
                     o->client_secret_file);
    else if (!n)
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "[auth.oidc] client_secret_file %s is empty",
                     o->client_secret_file);
    else if (!(*out = strndup(buf, n)))
        rc = err_nomem(err, "client secret");
    OPENSSL_cleanse(buf, sizeof buf);
    return rc;
}

bool config_auth_uses(const config *cfg, const char *provider) {
    if (cfg->auth.providers.n) return list_has(&cfg->auth.providers, provider);
    if (!strcmp(cfg->auth.mode, "password")) return !strcmp(provider, "password");
    if (!strcmp(provider, "password")) return *cfg->auth.users_file != 0;
    return !strcmp(provider, "anonymous");
}

static int validate_auth(const config *cfg, sqe_error *err) {
    const config_auth *a = &cfg->auth;
    const config_oidc *o = &a->oidc;
    for (size_t i = 0; i < a->providers.n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(a->providers.items[i], a->providers.items[j]))
                return invalid(cfg, err, NULL, "auth", "providers", "\"%s\" is listed twice",
                               a->providers.items[i]);
    if (config_auth_uses(cfg, "password") && !*a->users_file)
        return invalid(cfg, err, NULL, "auth", "users_file",
                       a->providers.n ? "required by the password provider"
                                      : "required when mode = \"password\"");
    bool oidc = config_auth_uses(cfg, "oidc_bearer") || config_auth_uses(cfg, "oidc_password") ||
                config_auth_uses(cfg, "client_credentials");
    bool exchange = false;
    for (size_t i = 0; i <= cfg->n_catalogs && !exchange; i++) {
        const config_catalog *cat = i == 0 ? &cfg->catalog : &cfg->catalogs[i - 1];
        exchange = !strcmp(cat->auth, "token_exchange");
    }
    if (o->external_authentication && !config_auth_uses(cfg, "oidc_bearer"))
        return invalid(cfg, err, NULL, "auth.oidc", "external_authentication",
                       "needs the oidc_bearer provider in [auth] providers (the client then "
                       "sends the token it obtained as a bearer)");
    if (!oidc && !exchange) return SQE_OK;
    if (!*o->issuer)
        return invalid(cfg, err, NULL, "auth.oidc", "issuer",
                       "required by the oidc_* providers and auth = \"token_exchange\"");
    SQE_TRY(validate_oidc_url(cfg, "issuer", o->issuer, err));
    SQE_TRY(validate_oidc_url(cfg, "discovery_url", o->discovery_url, err));
    if (!*o->audience && !*o->client_id)
        return invalid(cfg, err, NULL, "auth.oidc", "audience",
                       "required (or client_id, which is then the audience)");
    if (o->allowed_algorithms.n == 0)
        return invalid(cfg, err, NULL, "auth.oidc", "allowed_algorithms",
                       "is empty: no token could be accepted");
    if (*o->client_secret && *o->client_secret_file)
        return invalid(cfg, err, NULL, "auth.oidc", "client_secret_file",
                       "set either client_secret or client_secret_file, not both");
    bool grants = config_auth_uses(cfg, "oidc_password") ||
                  config_auth_uses(cfg, "client_credentials") || exchange ||
                  o->external_authentication;
    if (grants && !*o->client_id)
        return invalid(cfg, err, NULL, "auth.oidc", "client_id",
                       "required by oidc_password, client_credentials, token exchange and "
                       "external authentication");
    return SQE_OK;
}

static int validate_catalog(const config *cfg, const config_catalog *cat, sqe_error *err) {
    if (strcmp(cat->type, "rest") == 0) {
        char why[256];
        if (!*cat->uri) return invalid(cfg, err, cat, NULL, "uri", "required when type = \"rest\"");
        if (check_url(cat->uri, why, sizeof why) != 0)
            return invalid(cfg, err, cat, NULL, "uri", "%s", why);
        if (strcmp(cat->auth, "static") == 0 && !*cat->token)
            return invalid(cfg, err, cat, NULL, "token", "required when auth = \"static\"");
        if (strcmp(cat->auth, "client_credentials") == 0 && !strchr(cat->credential, ':'))
            return invalid(
                cfg, err, cat, NULL, "credential",
                "\"client_id:client_secret\" is required when auth = \"client_credentials\"");
        if (strcmp(cat->auth, "token_exchange") == 0 && !*cat->audience)
            return invalid(cfg, err, cat, NULL, "audience",
                           "required when auth = \"token_exchange\"");
        if (cfg->coordinator.production_mode && !cat->require_vended_credentials)
            return invalid(cfg, err, cat, NULL, "require_vended_credentials",
                           "must be true for a REST catalog in production mode");
    }
    return SQE_OK;
}

int config_validate(const config *cfg, sqe_error *err) {
    const config_coordinator *co = &cfg->coordinator;
    const config_tls *tls = &co->tls;
    if (!*tls->cert_file != !*tls->key_file)
        return invalid(cfg, err, NULL, "coordinator.tls",
                       *tls->cert_file ? "key_file" : "cert_file",
                       "cert_file and key_file must be set together");
    if (*tls->ca_file && !*tls->cert_file)
        return invalid(cfg, err, NULL, "coordinator.tls", "ca_file",
                       "client certificates need cert_file and key_file");

    /* Listener ports of the coordinator must differ. */
    const struct {
        const char *section, *name;
        int port;
    } ports[] = {{"coordinator", "flight_sql_port", co->flight_sql_port},
                 {"coordinator", "trino_http_port", co->trino_http_port},
                 {"metrics", "prometheus_port", cfg->metrics.prometheus_port},
                 {"metrics", "health_port", cfg->metrics.health_port}};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < i; j++)
            if (ports[i].port && ports[i].port == ports[j].port)
                return invalid(cfg, err, NULL, ports[i].section, ports[i].name,
                               "port %d is also [%s] %s", ports[i].port, ports[j].section,
                               ports[j].name);
    if (co->flight_sql_port == 0 && co->trino_http_port == 0)
        return invalid(cfg, err, NULL, "coordinator", "trino_http_port",
                       "flight_sql_port and trino_http_port are both 0: no client could connect");

    SQE_TRY(validate_auth(cfg, err));
    if (cfg->query.max_concurrent_per_user > cfg->query.max_concurrent)
        return invalid(cfg, err, NULL, "query", "max_concurrent_per_user",
                       "%lld is more than max_concurrent (%lld)",
                       (long long)cfg->query.max_concurrent_per_user,
                       (long long)cfg->query.max_concurrent);
    if (co->memory_limit && cfg->query.memory_limit > co->memory_limit)
        return invalid(cfg, err, NULL, "query", "memory_limit",
                       "is more than [coordinator] memory_limit");
    if (cfg->session.idle_timeout_ms > cfg->session.absolute_timeout_ms)
        return invalid(cfg, err, NULL, "session", "idle_timeout",
                       "is longer than absolute_timeout");
    if (strcmp(cfg->policy.engine, "ranger") == 0 && !*cfg->policy.ranger.url)
        return invalid(cfg, err, NULL, "policy.ranger", "url",
                       "required when [policy] engine = \"ranger\"");
    if (strcmp(cfg->access_control.backend, "none") != 0 && !*cfg->access_control.url)
        return invalid(cfg, err, NULL, "access_control", "url", "required when backend = \"%s\"",
                       cfg->access_control.backend);
    if (cfg->metrics.audit_export.enabled && !*cfg->metrics.audit_export.otlp_endpoint &&
        !*cfg->metrics.otlp_endpoint)
        return invalid(cfg, err, NULL, "metrics.audit_export", "otlp_endpoint",
                       "required when enabled (or set [metrics] otlp_endpoint)");

    if (cfg->storage.tvf.allow_local_paths && cfg->storage.tvf.allowed_local_roots.n == 0)
        return invalid(cfg, err, NULL, "storage.tvf", "allowed_local_roots",
                       "required when allow_local_paths = true: the directories SQL may read and "
                       "write");
    if (!*cfg->storage.s3_access_key_id != !*cfg->storage.s3_secret_access_key)
        return invalid(cfg, err, NULL, "storage",
                       *cfg->storage.s3_access_key_id ? "s3_secret_access_key" : "s3_access_key_id",
                       "s3_access_key_id and s3_secret_access_key must be set together");
    if (!strncmp(cfg->storage.s3_endpoint, "http://", 7) && !cfg->storage.s3_allow_http)
        return invalid(cfg, err, NULL, "storage", "s3_endpoint",
                       "a plain-http endpoint needs s3_allow_http = true");

    SQE_TRY(validate_catalog(cfg, &cfg->catalog, err));
    for (size_t i = 0; i < cfg->n_catalogs; i++) {
        const config_catalog *cat = &cfg->catalogs[i];
        if (strcmp(cat->name, cfg->catalog.name) == 0)
            return invalid(cfg, err, cat, NULL, "name",
                           "a catalog named \"%s\" is already defined by [catalog]", cat->name);
        SQE_TRY(validate_catalog(cfg, cat, err));
    }

    if (co->production_mode) {
        if (config_auth_uses(cfg, "anonymous"))
            return invalid(cfg, err, NULL, "auth", cfg->auth.providers.n ? "providers" : "mode",
                           "anonymous access is refused in production mode");
        if (cfg->auth.oidc.allow_insecure_http)
            return invalid(cfg, err, NULL, "auth.oidc", "allow_insecure_http",
                           "plain-http identity providers are refused in production mode");
        if (!is_loopback(co->bind_address) && !*tls->cert_file)
            return invalid(
                cfg, err, NULL, "coordinator", "bind_address",
                "%s is not loopback and TLS is off ([coordinator.tls] cert_file): plaintext "
                "is refused in production mode",
                co->bind_address);
        int uses_workers = strcmp(co->mode, "local") != 0 &&
                           (co->worker_urls.n > 0 || strcmp(co->mode, "distributed") == 0);
        if (co->allow_unauthenticated_workers)
            return invalid(cfg, err, NULL, "coordinator", "allow_unauthenticated_workers",
                           "refused in production mode");
        if (uses_workers && !*co->worker_secret)
            return invalid(cfg, err, NULL, "coordinator", "worker_secret",
                           "workers need a secret in production mode");
        if (cfg->worker.allow_unauthenticated)
            return invalid(cfg, err, NULL, "worker", "allow_unauthenticated",
                           "refused in production mode");
        if (cfg->query.max_sql_bytes == 0)
            return invalid(cfg, err, NULL, "query", "max_sql_bytes",
                           "0 (no limit) is refused in production mode");
        if (strcmp(cfg->policy.engine, "ranger") == 0) {
            if (!*cfg->policy.mask_key)
                return invalid(cfg, err, NULL, "policy", "mask_key",
                               "required with ranger in production mode");
            if (!cfg->policy.ranger.project_tags)
                return invalid(cfg, err, NULL, "policy.ranger", "project_tags",
                               "must be true in production mode");
        }
    }
    return SQE_OK;
}

/* --- what `sqe serve` does not do yet ------------------------------------------------------- */

/* Keys accepted from the original SQE's files whose feature does not exist yet: any value but
 * the default is refused by config_check_supported (a whole section when name is NULL). These
 * are the UNSUPPORTED rows of the key tables; the key rows expand to nothing here. */
#define STR(...)
#define ENUM(...)
#define BOOL(...)
#define INT(...)
#define PORT(...)
#define DUR(...)
#define SIZE(...)
#define FRAC(...)
#define LIST(...)
#define UNSUPPORTED(s, n, why) {s, n, why},

static const struct {
    const char *section, *name, *why;
} unsupported[] = {
#include "common/config/tables.def"
};

static void render_value(strbuf *out, const config_key *k, const void *slot);

/* Why k is not supported yet, or NULL. */
static const char *unsupported_why(const config_key *k) {
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (!strcmp(unsupported[i].section, k->section) &&
            (!unsupported[i].name || !strcmp(unsupported[i].name, k->name)))
            return unsupported[i].why;
    return NULL;
}

/* Does the value of k in (cfg, cat) differ from its value in (def, dcat)? */
static bool differs(const config *cfg, const config_catalog *cat, const config *def,
                    const config_catalog *dcat, const config_key *k) {
    strbuf a, b;
    strbuf_init(&a);
    strbuf_init(&b);
    render_value(&a, k, (const char *)(cat ? (const void *)cat : (const void *)cfg) + k->offset);
    render_value(&b, k, (const char *)(dcat ? (const void *)dcat : (const void *)def) + k->offset);
    bool d = a.failed || b.failed || strcmp(strbuf_cstr(&a), strbuf_cstr(&b)) != 0;
    strbuf_reset(&a);
    strbuf_reset(&b);
    return d;
}

static int check_catalog_supported(const config *cfg, const config_catalog *cat,
                                   const config *def, sqe_error *err) {
    for (size_t i = catalog_first(), end = catalog_end(); i < end; i++) {
        const char *why = unsupported_why(&keys[i]);
        if (why && differs(cfg, cat, def, &def->catalog, &keys[i]))
            return invalid(cfg, err, cat, NULL, keys[i].name,
                           "not yet supported (%s); remove it or leave the default", why);
    }
    return SQE_OK;
}

int config_check_supported(const config *cfg, sqe_error *err) {
    config def;
    SQE_TRY(config_init(&def, err));
    int rc = SQE_OK;
    for (size_t i = 0; !rc && i < N_KEYS; i++) {
        const config_key *k = &keys[i];
        const char *why = is_catalog_key(k) ? NULL : unsupported_why(k);
        if (why && differs(cfg, NULL, &def, NULL, k))
            rc = invalid(cfg, err, NULL, k->section, k->name,
                         "not yet supported (%s); remove it or leave the default", why);
    }
    if (!rc) rc = check_catalog_supported(cfg, &cfg->catalog, &def, err);
    for (size_t i = 0; !rc && i < cfg->n_catalogs; i++)
        rc = check_catalog_supported(cfg, &cfg->catalogs[i], &def, err);
    config_reset(&def);
    SQE_TRY(rc);
    /* values of supported keys that name what does not exist yet */
    if (!strcmp(cfg->coordinator.mode, "distributed"))
        return invalid(cfg, err, NULL, "coordinator", "mode",
                       "\"distributed\" is not yet supported (there are no workers); use "
                       "\"local\" or \"hybrid\"");
    if (!strcmp(cfg->coordinator.memory_pool, "fair"))
        return invalid(cfg, err, NULL, "coordinator", "memory_pool",
                       "\"fair\" is not yet supported; queries share the memory first come "
                       "first served (\"greedy\")");
    return SQE_OK;
}

/* Replaces a leading "~/" of a path setting by $HOME. */
static int expand_home(config *cfg, const char **path, sqe_error *err) {
    const char *home = getenv("HOME");
    if (strncmp(*path, "~/", 2) != 0 || !home || !*home) return SQE_OK;
    const char *p = arena_sprintf(&cfg->arena, "%s%s", home, *path + 1);
    if (!p) return err_nomem(err, "configuration");
    *path = p;
    return SQE_OK;
}

int config_load(config *cfg, const char *path, char *const *envp, sqe_error *err) {
    int rc = config_init(cfg, err);
    if (rc == SQE_OK && path) rc = config_load_file(cfg, path, err);
    if (rc == SQE_OK) rc = config_apply_env(cfg, envp, err);
    if (rc == SQE_OK) rc = expand_home(cfg, &cfg->coordinator.data_dir, err);
    if (rc == SQE_OK) rc = expand_home(cfg, &cfg->session.dir, err);
    if (rc == SQE_OK) rc = expand_home(cfg, &cfg->spill.dir, err);
    if (rc == SQE_OK) rc = expand_home(cfg, &cfg->catalog.warehouse, err);
    if (rc == SQE_OK) rc = config_validate(cfg, err);
    if (rc != SQE_OK) config_reset(cfg);
    return rc;
}

/* --- rendering -------------------------------------------------------------------------------- */

static void render_value(strbuf *out, const config_key *k, const void *slot) {
    char buf[64];
    switch (k->kind) {
    case CONFIG_STR:
    case CONFIG_ENUM: {
        const char *s = *(const char *const *)slot;
        if ((k->flags & CONFIG_SECRET) && *s)
            strbuf_puts(out, "\"<redacted>\"");
        else
            toml_quote_append(out, s, strlen(s));
        return;
    }
    case CONFIG_BOOL: strbuf_puts(out, *(const int *)slot ? "true" : "false"); return;
    case CONFIG_INT: strbuf_printf(out, "%lld", (long long)*(const int64_t *)slot); return;
    case CONFIG_PORT: strbuf_printf(out, "%d", *(const int *)slot); return;
    case CONFIG_DURATION:
        config_format_duration(*(const int64_t *)slot, buf, sizeof buf);
        strbuf_printf(out, "\"%s\"", buf);
        return;
    case CONFIG_SIZE:
        config_format_size(*(const int64_t *)slot, buf, sizeof buf);
        strbuf_printf(out, "\"%s\"", buf);
        return;
    case CONFIG_FRACTION: {
        double d = *(const double *)slot;
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, d);
            if (strtod(buf, NULL) == d) break;
        }
        strbuf_puts(out, buf);
        if (!strpbrk(buf, ".e")) strbuf_puts(out, ".0");
        return;
    }
    case CONFIG_LIST: {
        const config_list *l = slot;
        strbuf_putc(out, '[');
        for (size_t i = 0; i < l->n; i++) {
            if (i) strbuf_puts(out, ", ");
            toml_quote_append(out, l->items[i], strlen(l->items[i]));
        }
        strbuf_putc(out, ']');
        return;
    }
    }
}

static void render_key(const config *cfg, const config_catalog *cat, const char *display,
                       const config_key *k, strbuf *out) {
    strbuf_printf(out, "%s = ", k->name);
    render_value(out, k, (const char *)(cat ? (const void *)cat : (const void *)cfg) + k->offset);
    const config_origin *o = origin_of_const(cfg, cat, k);
    if (o->source == CONFIG_FILE) {
        strbuf_printf(out, "  # %s:%d", cfg->path, o->line);
    } else if (o->source == CONFIG_ENV) {
        char env[200];
        if (cat == NULL && strcmp(k->name, "production_mode") == 0)
            snprintf(env, sizeof env, "SQE_COORDINATOR__PRODUCTION_MODE or SQE_PRODUCTION_MODE");
        else
            env_name(display, k->name, env, sizeof env);
        strbuf_printf(out, "  # %s", env);
    }
    strbuf_putc(out, '\n');
}

static void render_catalog(const config *cfg, const config_catalog *cat, strbuf *out) {
    char display[160];
    if (cat == &cfg->catalog) {
        snprintf(display, sizeof display, "catalog");
        strbuf_puts(out, "\n[catalog]\n");
    } else {
        snprintf(display, sizeof display, "catalogs.%s", cat->name);
        strbuf_puts(out, "\n[catalogs.");
        toml_key_append(out, cat->name, strlen(cat->name));
        strbuf_puts(out, "]\n");
    }
    for (size_t i = catalog_first(), end = catalog_end(); i < end; i++) {
        if ((keys[i].flags & CONFIG_DEFAULT_ONLY) && cat != &cfg->catalog) continue;
        render_key(cfg, cat, display, &keys[i], out);
    }
}

void config_render(const config *cfg, strbuf *out) {
    strbuf_puts(out, "# SQE effective configuration (defaults, then ");
    strbuf_puts(out, cfg->path && *cfg->path ? cfg->path : "no file");
    strbuf_puts(out, ", then SQE_<SECTION>__<KEY> variables); secrets are redacted.\n");
    const char *section = NULL;
    for (size_t i = 0; i < N_KEYS; i++) {
        const config_key *k = &keys[i];
        if (is_catalog_key(k)) {
            if (i == catalog_first()) {
                render_catalog(cfg, &cfg->catalog, out);
                for (size_t c = 0; c < cfg->n_catalogs; c++)
                    render_catalog(cfg, &cfg->catalogs[c], out);
            }
            section = NULL;
            continue;
        }
        if (!section || strcmp(section, k->section) != 0) {
            section = k->section;
            strbuf_printf(out, "\n[%s]\n", section);
        }
        render_key(cfg, NULL, section, k, out);
    }
}
