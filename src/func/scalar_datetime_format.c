/*
 * scalar_datetime_format.c: the date/time family, formatting part: date_format and date_parse
 * (MySQL format specifiers) and format_datetime and parse_datetime (Joda-Time patterns).
 *
 * INTERFACE: func_datetime_format_defs (joined into the datetime family).
 *
 * NOTES: both format languages print the local fields of the value (a timestamp with time zone
 * in its own zone). MySQL specifiers Trino does not support (%D %U %u %V %w %X) are
 * INVALID_FUNCTION_ARGUMENT, as are parse failures, reported like Joda does:
 * Invalid format: "<input>" is malformed at "<rest>". Joda's 'z' prints the zone id (SQE has
 * no localized zone abbreviations); two-digit years parse into 1950..2049 ('yy') and 1970..2069
 * (MySQL '%y').
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "func/scalar_kernel.h"
#include "types/datetime.h"
#include "types/tz.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)
#define SDATA(s) sqe_str_data(s)
#define DAY DT_MICROS_PER_DAY

static const char *const month_names[] = {"January", "February", "March",     "April",
                                          "May",     "June",     "July",      "August",
                                          "September", "October", "November", "December"};
static const char *const day_names[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                        "Friday", "Saturday", "Sunday"};

/* Local fields of a value plus its zone. */
typedef struct local_time {
    dt_fields f;
    int32_t days;
    int32_t zone;
    int32_t offset; /* seconds */
    bool has_zone;
} local_time;

static void local_of(const vec_view *u, type_id t, uint32_t row, local_time *lt) {
    int64_t m;
    lt->has_zone = t == TYPE_TIMESTAMP_TZ;
    lt->zone = TZ_UTC;
    lt->offset = 0;
    if (t == TYPE_DATE) {
        lt->days = UVAL(u, int32_t, row);
        memset(&lt->f, 0, sizeof lt->f);
        dt_civil_from_days(lt->days, &lt->f.year, &lt->f.month, &lt->f.day);
        return;
    }
    if (t == TYPE_TIMESTAMP_TZ) {
        sqe_timestamp_tz v = UVAL(u, sqe_timestamp_tz, row);
        lt->zone = v.zone;
        lt->offset = tz_offset_at_utc(v.zone, v.micros);
        m = v.micros + (int64_t)lt->offset * 1000000;
    } else {
        m = UVAL(u, int64_t, row);
    }
    dt_fields_from_micros(m, &lt->f);
    lt->days = (int32_t)dt_floor_div(m, DAY);
}

static void put_num(strbuf *sb, int64_t v, int width) {
    char buf[32];
    if (v < 0) {
        strbuf_putc(sb, '-');
        v = -v;
    }
    int n = snprintf(buf, sizeof buf, "%" PRId64, v);
    for (int i = n; i < width; i++) strbuf_putc(sb, '0');
    strbuf_append(sb, buf, (size_t)n);
}

static void put_abbrev(strbuf *sb, const char *name) { strbuf_append(sb, name, 3); }

/* --- MySQL date_format --------------------------------------------------------------------------- */

/* Appends the MySQL-formatted value; returns NULL or an error message (static). */
static const char *mysql_format(strbuf *sb, const local_time *lt, const char *fmt, uint32_t n,
                                char *err, size_t errcap) {
    const dt_fields *f = &lt->f;
    int hour12 = f->hour % 12 == 0 ? 12 : f->hour % 12;
    for (uint32_t i = 0; i < n; i++) {
        if (fmt[i] != '%' || i + 1 == n) {
            strbuf_putc(sb, fmt[i]);
            continue;
        }
        char c = fmt[++i];
        switch (c) {
        case 'a': put_abbrev(sb, day_names[dt_day_of_week(lt->days) - 1]); break;
        case 'b': put_abbrev(sb, month_names[f->month - 1]); break;
        case 'c': put_num(sb, f->month, 1); break;
        case 'd': put_num(sb, f->day, 2); break;
        case 'e': put_num(sb, f->day, 1); break;
        case 'f': put_num(sb, f->micros, 6); break;
        case 'H': put_num(sb, f->hour, 2); break;
        case 'h':
        case 'I': put_num(sb, hour12, 2); break;
        case 'i': put_num(sb, f->minute, 2); break;
        case 'j': put_num(sb, dt_day_of_year(lt->days), 3); break;
        case 'k': put_num(sb, f->hour, 1); break;
        case 'l': put_num(sb, hour12, 1); break;
        case 'M': strbuf_puts(sb, month_names[f->month - 1]); break;
        case 'm': put_num(sb, f->month, 2); break;
        case 'p': strbuf_puts(sb, f->hour < 12 ? "AM" : "PM"); break;
        case 'r':
            put_num(sb, hour12, 2);
            strbuf_putc(sb, ':');
            put_num(sb, f->minute, 2);
            strbuf_putc(sb, ':');
            put_num(sb, f->second, 2);
            strbuf_puts(sb, f->hour < 12 ? " AM" : " PM");
            break;
        case 'S':
        case 's': put_num(sb, f->second, 2); break;
        case 'T':
            put_num(sb, f->hour, 2);
            strbuf_putc(sb, ':');
            put_num(sb, f->minute, 2);
            strbuf_putc(sb, ':');
            put_num(sb, f->second, 2);
            break;
        case 'v':
        case 'x': {
            int32_t w, wy;
            dt_iso_week(lt->days, &w, &wy);
            if (c == 'v') put_num(sb, w, 2);
            else put_num(sb, wy, 4);
            break;
        }
        case 'W': strbuf_puts(sb, day_names[dt_day_of_week(lt->days) - 1]); break;
        case 'Y': put_num(sb, f->year, 4); break;
        case 'y': put_num(sb, ((f->year % 100) + 100) % 100, 2); break;
        case '%': strbuf_putc(sb, '%'); break;
        case 'D':
        case 'U':
        case 'u':
        case 'V':
        case 'w':
        case 'X':
            snprintf(err, errcap, "%%%c not supported in date format string", c);
            return err;
        default: strbuf_putc(sb, c); break;
        }
    }
    return NULL;
}

KERNEL(date_format_fn) {
    vec_view ux, uf;
    vec_view_init(&ux, args[0]);
    vec_view_init(&uf, args[1]);
    type_id t = (type_id)args[0]->type.id;
    strbuf sb;
    strbuf_init(&sb);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        local_time lt;
        local_of(&ux, t, row, &lt);
        const sqe_str *fmt = ustr(&uf, row);
        char err[128];
        sb.len = 0;
        const char *e = mysql_format(&sb, &lt, SDATA(fmt), fmt->len, err, sizeof err);
        if (e) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "%s", e)))
                break;
            continue;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

/* --- Parsing helpers ------------------------------------------------------------------------------ */

typedef struct parse_state {
    const char *s;
    uint32_t n, pos;
    int32_t year, month, day, hour, minute, second, micros, doy;
    int pm; /* -1 unset, 0 AM, 1 PM */
    bool hour12;
    int32_t zone;
    bool has_zone;
} parse_state;

static void parse_init(parse_state *p, const char *s, uint32_t n) {
    memset(p, 0, sizeof *p);
    p->s = s;
    p->n = n;
    p->year = 1970;
    p->month = 1;
    p->day = 1;
    p->pm = -1;
}

/* Reads 1..max_digits digits (an optional sign when `sign`). */
static bool read_int(parse_state *p, int max_digits, bool sign, int32_t *out) {
    bool neg = false;
    if (sign && p->pos < p->n && (p->s[p->pos] == '-' || p->s[p->pos] == '+')) {
        neg = p->s[p->pos] == '-';
        p->pos++;
    }
    int64_t v = 0;
    int k = 0;
    while (k < max_digits && p->pos < p->n && isdigit((unsigned char)p->s[p->pos])) {
        v = v * 10 + (p->s[p->pos++] - '0');
        k++;
    }
    if (k == 0 || v > INT32_MAX) return false;
    *out = (int32_t)(neg ? -v : v);
    return true;
}

/* Reads a fraction of 1..9 digits as micros. */
static bool read_fraction(parse_state *p, int max_digits, int32_t *micros) {
    int k = 0;
    int64_t v = 0;
    while (k < max_digits && p->pos < p->n && isdigit((unsigned char)p->s[p->pos])) {
        if (k < 6) v = v * 10 + (p->s[p->pos] - '0');
        p->pos++;
        k++;
    }
    if (k == 0) return false;
    for (int i = k; i < 6; i++) v *= 10;
    *micros = (int32_t)v;
    return true;
}

/* Matches one of names (full, or its 3-letter abbreviation when abbrev), case-insensitively;
 * returns the index or -1. */
static int read_name(parse_state *p, const char *const *names, int n_names, bool abbrev) {
    for (int i = 0; i < n_names; i++) {
        size_t len = abbrev ? 3 : strlen(names[i]);
        if (p->pos + len <= p->n && strncasecmp(p->s + p->pos, names[i], len) == 0) {
            p->pos += (uint32_t)len;
            return i;
        }
    }
    if (!abbrev) return read_name(p, names, n_names, true); /* Joda accepts short forms too */
    return -1;
}

static bool read_ampm(parse_state *p) {
    if (p->pos + 2 > p->n) return false;
    if (strncasecmp(p->s + p->pos, "AM", 2) == 0) p->pm = 0;
    else if (strncasecmp(p->s + p->pos, "PM", 2) == 0) p->pm = 1;
    else return false;
    p->pos += 2;
    return true;
}

/* Builds local micros from the parsed fields; false when a field is out of range. */
static bool parse_finish(parse_state *p, int64_t *local, const char **what) {
    if (p->hour12) {
        if (p->hour < 1 || p->hour > 12) {
            *what = "hourOfHalfday";
            return false;
        }
        p->hour %= 12;
        if (p->pm == 1) p->hour += 12;
    } else if (p->pm == 1 && p->hour < 12) {
        p->hour += 12;
    }
    if (p->month < 1 || p->month > 12) *what = "monthOfYear";
    else if (p->doy == 0 && (p->day < 1 || p->day > dt_days_in_month(p->year, p->month)))
        *what = "dayOfMonth";
    else if (p->hour < 0 || p->hour > 23) *what = "hourOfDay";
    else if (p->minute < 0 || p->minute > 59) *what = "minuteOfHour";
    else if (p->second < 0 || p->second > 59) *what = "secondOfMinute";
    else if (p->year < -FUNC_TIMESTAMP_MAX_YEAR || p->year > FUNC_TIMESTAMP_MAX_YEAR) *what = "year";
    else *what = NULL;
    if (*what) return false;
    int32_t days = p->doy ? dt_days_from_civil(p->year, 1, 1) + p->doy - 1
                          : dt_days_from_civil(p->year, p->month, p->day);
    *local = (int64_t)days * DAY + ((int64_t)p->hour * 3600 + p->minute * 60 + p->second) *
                                       INT64_C(1000000) + p->micros;
    return true;
}

static int parse_error(func_ctx *ctx, vec *out, uint32_t row, const parse_state *p,
                       const char *what) {
    int shown = (int)(p->n > 100 ? 100 : p->n);
    if (what)
        return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                              "Cannot parse \"%.*s\": Value for %s is out of range", shown, p->s,
                              what);
    uint32_t at = p->pos < p->n ? p->pos : p->n;
    return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                          "Invalid format: \"%.*s\" is malformed at \"%.*s\"", shown, p->s,
                          (int)((p->n - at) > 100 ? 100 : p->n - at), p->s + at);
}

/* --- MySQL date_parse ------------------------------------------------------------------------------ */

/* Returns 0 ok, 1 malformed input, 2 unsupported specifier (message in err). */
static int mysql_parse(parse_state *p, const char *fmt, uint32_t n, char *err, size_t errcap) {
    for (uint32_t i = 0; i < n; i++) {
        if (fmt[i] != '%' || i + 1 == n) {
            if (p->pos >= p->n || p->s[p->pos] != fmt[i]) return 1;
            p->pos++;
            continue;
        }
        char c = fmt[++i];
        bool ok = true;
        switch (c) {
        case 'a': ok = read_name(p, day_names, 7, true) >= 0; break;
        case 'W': ok = read_name(p, day_names, 7, false) >= 0; break;
        case 'b': {
            int m = read_name(p, month_names, 12, true);
            ok = m >= 0;
            p->month = m + 1;
            break;
        }
        case 'M': {
            int m = read_name(p, month_names, 12, false);
            ok = m >= 0;
            p->month = m + 1;
            break;
        }
        case 'c':
        case 'm': ok = read_int(p, 2, false, &p->month); break;
        case 'd':
        case 'e': ok = read_int(p, 2, false, &p->day); break;
        case 'f': ok = read_fraction(p, 9, &p->micros); break;
        case 'H':
        case 'k': ok = read_int(p, 2, false, &p->hour); break;
        case 'h':
        case 'I':
        case 'l':
            ok = read_int(p, 2, false, &p->hour);
            p->hour12 = true;
            break;
        case 'i': ok = read_int(p, 2, false, &p->minute); break;
        case 'j': ok = read_int(p, 3, false, &p->doy); break;
        case 'p': ok = read_ampm(p); break;
        case 'r':
            p->hour12 = true;
            ok = read_int(p, 2, false, &p->hour) && p->pos < p->n && p->s[p->pos++] == ':' &&
                 read_int(p, 2, false, &p->minute) && p->pos < p->n && p->s[p->pos++] == ':' &&
                 read_int(p, 2, false, &p->second);
            while (ok && p->pos < p->n && p->s[p->pos] == ' ') p->pos++;
            ok = ok && read_ampm(p);
            break;
        case 'S':
        case 's': ok = read_int(p, 2, false, &p->second); break;
        case 'T':
            ok = read_int(p, 2, false, &p->hour) && p->pos < p->n && p->s[p->pos++] == ':' &&
                 read_int(p, 2, false, &p->minute) && p->pos < p->n && p->s[p->pos++] == ':' &&
                 read_int(p, 2, false, &p->second);
            break;
        case 'Y': ok = read_int(p, 4, false, &p->year); break;
        case 'y': {
            int32_t y;
            ok = read_int(p, 2, false, &y);
            p->year = y < 70 ? 2000 + y : 1900 + y;
            break;
        }
        case '%':
            ok = p->pos < p->n && p->s[p->pos] == '%';
            p->pos++;
            break;
        case 'D':
        case 'U':
        case 'u':
        case 'V':
        case 'v':
        case 'w':
        case 'X':
        case 'x':
            snprintf(err, errcap, "%%%c not supported in date format string", c);
            return 2;
        default:
            ok = p->pos < p->n && p->s[p->pos] == c;
            p->pos++;
            break;
        }
        if (!ok) return 1;
    }
    return p->pos == p->n ? 0 : 1;
}

KERNEL(date_parse_fn) {
    vec_view us, uf;
    vec_view_init(&us, args[0]);
    vec_view_init(&uf, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *fmt = ustr(&uf, row);
        parse_state p;
        parse_init(&p, SDATA(s), s->len);
        char err[128];
        int r = mysql_parse(&p, SDATA(fmt), fmt->len, err, sizeof err);
        if (r == 2) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "%s", err));
            continue;
        }
        int64_t local;
        const char *what = NULL;
        if (r != 0 || !parse_finish(&p, &local, &what)) {
            SQE_TRY(parse_error(ctx, out, row, &p, r ? NULL : what));
            continue;
        }
        VEC_DATA(out, int64_t)[row] = local - dt_floor_mod(local, 1000); /* timestamp(3) */
    }
    return SQE_OK;
}

/* --- Joda patterns ------------------------------------------------------------------------------- */

/* One pattern token: a run of one letter, or literal text. */
typedef struct joda_token {
    char letter;      /* 0 for literal */
    uint32_t count;
    const char *text; /* literal */
    uint32_t len;
    bool quote_pair;  /* '' inside or outside quotes: a single quote */
} joda_token;

/* Splits the pattern into tokens; returns the count or -1 on a bad pattern. */
static int joda_tokens(const char *pat, uint32_t n, joda_token *toks, int max) {
    int k = 0;
    for (uint32_t i = 0; i < n && k < max;) {
        char c = pat[i];
        joda_token *t = &toks[k];
        memset(t, 0, sizeof *t);
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            uint32_t j = i;
            while (j < n && pat[j] == c) j++;
            t->letter = c;
            t->count = j - i;
            i = j;
        } else if (c == '\'') {
            if (i + 1 < n && pat[i + 1] == '\'') {
                t->text = "'";
                t->len = 1;
                i += 2;
            } else {
                uint32_t j = i + 1;
                while (j < n && !(pat[j] == '\'' && !(j + 1 < n && pat[j + 1] == '\''))) {
                    if (pat[j] == '\'') j++; /* '' inside quotes */
                    j++;
                }
                if (j >= n) return -1;
                t->text = pat + i + 1;
                t->len = j - i - 1;
                t->quote_pair = true;
                i = j + 1;
            }
        } else {
            uint32_t j = i;
            while (j < n && pat[j] != '\'' && !((pat[j] >= 'a' && pat[j] <= 'z') ||
                                                (pat[j] >= 'A' && pat[j] <= 'Z')))
                j++;
            t->text = pat + i;
            t->len = j - i;
            i = j;
        }
        k++;
    }
    return k;
}

/* Appends literal text, folding '' into '. */
static void put_literal(strbuf *sb, const joda_token *t) {
    for (uint32_t i = 0; i < t->len; i++) {
        strbuf_putc(sb, t->text[i]);
        if (t->quote_pair && t->text[i] == '\'' && i + 1 < t->len && t->text[i + 1] == '\'') i++;
    }
}

static void put_offset(strbuf *sb, int32_t off, bool colon) {
    char sign = off < 0 ? '-' : '+';
    if (off < 0) off = -off;
    char buf[16];
    snprintf(buf, sizeof buf, colon ? "%c%02d:%02d" : "%c%02d%02d", sign, off / 3600,
             off / 60 % 60);
    strbuf_puts(sb, buf);
}

static const char *joda_format(strbuf *sb, const local_time *lt, const joda_token *toks, int n,
                               char *err, size_t errcap) {
    const dt_fields *f = &lt->f;
    for (int i = 0; i < n; i++) {
        const joda_token *t = &toks[i];
        int w = (int)t->count;
        if (!t->letter) {
            put_literal(sb, t);
            continue;
        }
        switch (t->letter) {
        case 'G': strbuf_puts(sb, f->year > 0 ? "AD" : "BC"); break;
        case 'C': put_num(sb, (f->year > 0 ? f->year : 1 - f->year) / 100, w); break;
        case 'Y':
        case 'y':
        case 'x': {
            int32_t y = f->year;
            if (t->letter == 'x') {
                int32_t wk;
                dt_iso_week(lt->days, &wk, &y);
            }
            if (t->letter == 'Y' && y <= 0) y = 1 - y;
            if (w == 2) put_num(sb, ((y % 100) + 100) % 100, 2);
            else put_num(sb, y, w);
            break;
        }
        case 'w': {
            int32_t wk, wy;
            dt_iso_week(lt->days, &wk, &wy);
            put_num(sb, wk, w);
            break;
        }
        case 'e': put_num(sb, dt_day_of_week(lt->days), w); break;
        case 'E': {
            const char *name = day_names[dt_day_of_week(lt->days) - 1];
            if (w >= 4) strbuf_puts(sb, name);
            else put_abbrev(sb, name);
            break;
        }
        case 'D': put_num(sb, dt_day_of_year(lt->days), w); break;
        case 'M':
            if (w >= 4) strbuf_puts(sb, month_names[f->month - 1]);
            else if (w == 3) put_abbrev(sb, month_names[f->month - 1]);
            else put_num(sb, f->month, w);
            break;
        case 'd': put_num(sb, f->day, w); break;
        case 'a': strbuf_puts(sb, f->hour < 12 ? "AM" : "PM"); break;
        case 'K': put_num(sb, f->hour % 12, w); break;
        case 'h': put_num(sb, f->hour % 12 == 0 ? 12 : f->hour % 12, w); break;
        case 'H': put_num(sb, f->hour, w); break;
        case 'k': put_num(sb, f->hour == 0 ? 24 : f->hour, w); break;
        case 'm': put_num(sb, f->minute, w); break;
        case 's': put_num(sb, f->second, w); break;
        case 'S': {
            char digits[7];
            snprintf(digits, sizeof digits, "%06d", f->micros);
            for (int k = 0; k < w; k++) strbuf_putc(sb, k < 6 ? digits[k] : '0');
            break;
        }
        case 'z': strbuf_puts(sb, tz_name(lt->zone)); break;
        case 'Z':
            if (w >= 3) strbuf_puts(sb, tz_name(lt->zone));
            else put_offset(sb, lt->offset, w == 2);
            break;
        default:
            snprintf(err, errcap, "Illegal pattern component: %c", t->letter);
            return err;
        }
    }
    return NULL;
}

#define MAX_TOKENS 128

KERNEL(format_datetime_fn) {
    vec_view ux, uf;
    vec_view_init(&ux, args[0]);
    vec_view_init(&uf, args[1]);
    type_id t = (type_id)args[0]->type.id;
    strbuf sb;
    strbuf_init(&sb);
    joda_token toks[MAX_TOKENS];
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *fmt = ustr(&uf, row);
        int n = joda_tokens(SDATA(fmt), fmt->len, toks, MAX_TOKENS);
        char err[128];
        const char *e = n < 0 ? "Invalid pattern: unterminated quote" : NULL;
        local_time lt;
        local_of(&ux, t, row, &lt);
        sb.len = 0;
        if (!e) e = joda_format(&sb, &lt, toks, n, err, sizeof err);
        if (e) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "%s", e)))
                break;
            continue;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

static bool is_numeric_letter(char c) { return c && strchr("CYyxwedDMdKhHkmsS", c) && c != 'E'; }

/* Reads a zone: an offset (+hh:mm, +hhmm, Z) or a zone id. */
static bool read_zone(parse_state *p, bool id) {
    const char *s = p->s + p->pos;
    uint32_t left = p->n - p->pos;
    if (left && (s[0] == 'Z' || s[0] == 'z') && !id) {
        p->pos++;
        p->zone = TZ_UTC;
        p->has_zone = true;
        return true;
    }
    uint32_t k = 0;
    if (!id && left && (s[0] == '+' || s[0] == '-')) {
        k = 1;
        while (k < left && (isdigit((unsigned char)s[k]) || s[k] == ':') && k < 6) k++;
    } else {
        while (k < left && (isalnum((unsigned char)s[k]) || strchr("/_+-:", s[k]))) k++;
    }
    int32_t key;
    if (k == 0 || tz_lookup(s, k, &key) != 0) return false;
    p->pos += k;
    p->zone = key;
    p->has_zone = true;
    return true;
}

/* Returns 0 ok, 1 malformed, 2 bad pattern. */
static int joda_parse(parse_state *p, const joda_token *toks, int n) {
    for (int i = 0; i < n; i++) {
        const joda_token *t = &toks[i];
        if (!t->letter) {
            strbuf lit;
            strbuf_init(&lit);
            put_literal(&lit, t);
            bool ok = p->pos + lit.len <= p->n && memcmp(p->s + p->pos, strbuf_cstr(&lit), lit.len) == 0;
            p->pos += (uint32_t)lit.len;
            strbuf_reset(&lit);
            if (!ok) return 1;
            continue;
        }
        /* adjacent numeric fields take exactly their width */
        bool fixed = i + 1 < n && is_numeric_letter(toks[i + 1].letter);
        int width = fixed ? (int)t->count : 9;
        int32_t v = 0;
        bool ok = true;
        switch (t->letter) {
        case 'G': ok = p->pos + 2 <= p->n; p->pos += 2; break;
        case 'y':
        case 'Y':
        case 'x':
            if (t->count == 2) {
                uint32_t start = p->pos;
                ok = read_int(p, 2, false, &v);
                if (ok && p->pos - start == 2) p->year = v < 50 ? 2000 + v : 1900 + v;
                else p->year = v;
            } else {
                ok = read_int(p, width, true, &p->year);
            }
            break;
        case 'M':
            if (t->count >= 3) {
                int m = read_name(p, month_names, 12, t->count == 3);
                ok = m >= 0;
                p->month = m + 1;
            } else {
                ok = read_int(p, fixed ? width : 2, false, &p->month);
            }
            break;
        case 'd': ok = read_int(p, fixed ? width : 2, false, &p->day); break;
        case 'D': ok = read_int(p, fixed ? width : 3, false, &p->doy); break;
        case 'E': ok = read_name(p, day_names, 7, t->count < 4) >= 0; break;
        case 'e':
        case 'w':
        case 'C': ok = read_int(p, fixed ? width : 2, false, &v); break;
        case 'a': ok = read_ampm(p); break;
        case 'H':
        case 'k':
            ok = read_int(p, fixed ? width : 2, false, &p->hour);
            if (t->letter == 'k' && p->hour == 24) p->hour = 0;
            break;
        case 'h':
        case 'K':
            ok = read_int(p, fixed ? width : 2, false, &p->hour);
            if (t->letter == 'K') p->hour = p->hour == 0 ? 12 : p->hour;
            p->hour12 = true;
            break;
        case 'm': ok = read_int(p, fixed ? width : 2, false, &p->minute); break;
        case 's': ok = read_int(p, fixed ? width : 2, false, &p->second); break;
        case 'S': ok = read_fraction(p, fixed ? width : 9, &p->micros); break;
        case 'Z': ok = read_zone(p, t->count >= 3); break;
        case 'z': ok = read_zone(p, true); break;
        default: return 2;
        }
        if (!ok) return 1;
    }
    return p->pos == p->n ? 0 : 1;
}

KERNEL(parse_datetime_fn) {
    vec_view us, uf;
    vec_view_init(&us, args[0]);
    vec_view_init(&uf, args[1]);
    joda_token toks[MAX_TOKENS];
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *fmt = ustr(&uf, row);
        int n = joda_tokens(SDATA(fmt), fmt->len, toks, MAX_TOKENS);
        parse_state p;
        parse_init(&p, SDATA(s), s->len);
        int r = n < 0 ? 2 : joda_parse(&p, toks, n);
        if (r == 2) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Invalid pattern: %.*s", (int)(fmt->len > 64 ? 64 : fmt->len),
                                   SDATA(fmt)));
            continue;
        }
        int64_t local;
        const char *what = NULL;
        if (r != 0 || !parse_finish(&p, &local, &what)) {
            SQE_TRY(parse_error(ctx, out, row, &p, r ? NULL : what));
            continue;
        }
        int32_t zone = p.has_zone ? p.zone : ctx->session_zone;
        int64_t utc = tz_local_to_utc(zone, local);
        VEC_DATA(out, sqe_timestamp_tz)[row] =
            (sqe_timestamp_tz){utc - dt_floor_mod(utc, 1000), zone, 0};
    }
    return SQE_OK;
}

#define NP FUNC_NULL_PROPAGATES

static const func_scalar_def datetime_format_defs[] = {
    {"date_format", "timestamp,varchar", "varchar", NULL, NULL, date_format_fn, NP,
     "formats with MySQL specifiers"},
    {"date_format", "timestamp with time zone,varchar", "varchar", NULL, NULL, date_format_fn,
     NP, "formats with MySQL specifiers"},
    {"date_parse", "varchar,varchar", "timestamp(3)", NULL, NULL, date_parse_fn, NP,
     "parses with MySQL specifiers"},
    {"format_datetime", "timestamp,varchar", "varchar", NULL, NULL, format_datetime_fn, NP,
     "formats with a Joda-Time pattern"},
    {"format_datetime", "timestamp with time zone,varchar", "varchar", NULL, NULL,
     format_datetime_fn, NP, "formats with a Joda-Time pattern"},
    {"parse_datetime", "varchar,varchar", "timestamp(3) with time zone", NULL, NULL,
     parse_datetime_fn, NP | FUNC_SESSION, "parses with a Joda-Time pattern"},
};

const func_scalar_def *func_datetime_format_defs(uint32_t *count) {
    *count = FUNC_N(datetime_format_defs);
    return datetime_format_defs;
}
