/*
 * tz.c: time zones (see tz.h): zone keys, fixed offsets, IANA zones read from the system tz
 * database in TZif format (RFC 8536), and the POSIX TZ rule in the TZif footer for instants
 * after the last transition.
 *
 * INTERFACE: tz_lookup, tz_key_for_offset, tz_name, tz_offset_at_utc, tz_local_to_utc,
 *   tz_system_default, tz_tzif_check.
 * NOTES:
 *   - Keys: 0 is UTC; 1..1681 are fixed offsets (-14:00..+14:00 in minutes, key = minutes + 841,
 *     offset 0 is UTC itself); TZ_IANA_BASE + i is the i-th IANA zone loaded by this process.
 *   - Zone files are hostile input: every count and offset is bounds-checked, the file size is
 *     capped, and any inconsistency makes the zone unknown (tz_lookup returns -1). Zones with
 *     leap-second records ("right/...") are refused.
 *   - Loaded zones are immutable and never freed. The table of zone pointers only grows; a key is
 *     published after its zone pointer is stored, so readers holding a key need no lock. The
 *     name cache (lower-cased name -> key) is guarded by a mutex.
 *   - Names are matched case-insensitively (as Trino does): if the exact path does not exist,
 *     each path component is looked up in its directory ignoring case, and the spelling found
 *     on disk becomes the canonical name.
 */
#include "types/tz.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "types/datetime.h"

#define TZ_DIR "/usr/share/zoneinfo"
#define TZ_FIXED_SPAN 840 /* minutes: +-14:00 */
#define TZ_IANA_BASE 2048
#define TZ_MAX_ZONES 2048
#define TZ_MAX_NAME 200
#define TZ_MAX_FILE (1 << 20)
#define TZ_MAX_TRANSITIONS 100000
#define TZ_MAX_OFFSET (26 * 3600)
#define TZ_CACHE_SLOTS 8192 /* power of two, > 2 * TZ_MAX_ZONES */

/* One date of a POSIX TZ rule ("Mm.w.d", "Jn" or "n") with its local time of day. */
typedef struct tz_rule_date {
    char kind;        /* 'M', 'J' or 'N' */
    int month, week, day; /* M: month 1..12, week 1..5, weekday 0..6; J/N: day in `day` */
    int32_t time;     /* seconds after local midnight (may be negative or above 24h, v3) */
} tz_rule_date;

typedef struct tz_rule {
    int32_t std_off; /* seconds east of UTC */
    int32_t dst_off;
    bool has_dst;
    tz_rule_date start, end;
} tz_rule;

typedef struct tz_zone {
    char name[TZ_MAX_NAME + 1];
    uint32_t n_trans;
    uint32_t n_types;
    int64_t *trans;    /* UTC seconds, strictly increasing */
    uint8_t *trans_type;
    int32_t *type_off; /* seconds east of UTC */
    bool has_rule;
    tz_rule rule;
} tz_zone;

static tz_zone *zones[TZ_MAX_ZONES];
static int32_t n_zones;
static pthread_mutex_t tz_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct cache_slot {
    char *lower; /* lower-cased name; NULL = empty */
    int32_t key;
} cache_slot;
static cache_slot name_cache[TZ_CACHE_SLOTS];

/* --- Fixed offsets ----------------------------------------------------------------------- */

int32_t tz_key_for_offset(int offset_minutes) {
    if (offset_minutes == 0 || offset_minutes < -TZ_FIXED_SPAN || offset_minutes > TZ_FIXED_SPAN)
        return TZ_UTC;
    return offset_minutes + TZ_FIXED_SPAN + 1;
}

static bool key_is_fixed(int32_t key) { return key >= 1 && key <= 2 * TZ_FIXED_SPAN + 1; }

static int fixed_minutes(int32_t key) { return key - TZ_FIXED_SPAN - 1; }

static const tz_zone *zone_of(int32_t key) {
    if (key < TZ_IANA_BASE || key >= TZ_IANA_BASE + TZ_MAX_ZONES) return NULL;
    return __atomic_load_n(&zones[key - TZ_IANA_BASE], __ATOMIC_ACQUIRE);
}

/* Fixed offset names, built once: "+05:30". */
static char fixed_names[2 * TZ_FIXED_SPAN + 2][16];
static pthread_once_t fixed_names_once = PTHREAD_ONCE_INIT;

static void fixed_names_init(void) {
    for (int m = -TZ_FIXED_SPAN; m <= TZ_FIXED_SPAN; m++) {
        int a = m < 0 ? -m : m;
        snprintf(fixed_names[m + TZ_FIXED_SPAN + 1], sizeof fixed_names[0], "%c%02d:%02d",
                 m < 0 ? '-' : '+', a / 60, a % 60);
    }
}

const char *tz_name(int32_t key) {
    if (key_is_fixed(key)) {
        pthread_once(&fixed_names_once, fixed_names_init);
        return fixed_names[key];
    }
    const tz_zone *z = zone_of(key);
    return z ? z->name : "UTC";
}

/* Parses "+05:30", "-08", "+0530", "+5", "-5:30" (the whole text). */
static bool parse_offset_text(const char *s, size_t len, int *minutes) {
    if (len < 2 || (s[0] != '+' && s[0] != '-')) return false;
    int sign = s[0] == '-' ? -1 : 1;
    size_t i = 1;
    int digits[4], n = 0;
    bool colon = false;
    size_t colon_at = 0;
    for (; i < len; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            if (n == 4) return false;
            digits[n++] = s[i] - '0';
        } else if (s[i] == ':' && !colon && n > 0) {
            colon = true;
            colon_at = (size_t)n;
        } else {
            return false;
        }
    }
    int h, m;
    if (colon) {
        if (colon_at > 2 || n - colon_at != 2) return false;
        h = colon_at == 1 ? digits[0] : digits[0] * 10 + digits[1];
        m = digits[colon_at] * 10 + digits[colon_at + 1];
    } else if (n <= 2) {
        h = n == 1 ? digits[0] : digits[0] * 10 + digits[1];
        m = 0;
    } else if (n == 4) {
        h = digits[0] * 10 + digits[1];
        m = digits[2] * 10 + digits[3];
    } else {
        return false;
    }
    if (m > 59 || h * 60 + m > TZ_FIXED_SPAN) return false;
    *minutes = sign * (h * 60 + m);
    return true;
}

static bool is_utc_name(const char *lower) {
    static const char *const names[] = {"utc",     "z",         "ut",   "uct",  "gmt",
                                        "gmt0",    "greenwich", "universal", "zulu", "gmt+0",
                                        "gmt-0",   "utc0",      NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(lower, names[i]) == 0) return true;
    return false;
}

/* --- TZif parsing (RFC 8536) ------------------------------------------------------------- */

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p) {
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

typedef struct tzif_counts {
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
} tzif_counts;

/* Reads a 44-byte header at p (RFC 8536 section 3.1). */
static bool read_header(const unsigned char *p, size_t avail, tzif_counts *c, int *version) {
    if (avail < 44 || memcmp(p, "TZif", 4) != 0) return false;
    *version = p[4] == 0 ? 1 : p[4] - '0';
    if (*version < 1 || *version > 9) return false;
    c->isutcnt = be32(p + 20);
    c->isstdcnt = be32(p + 24);
    c->leapcnt = be32(p + 28);
    c->timecnt = be32(p + 32);
    c->typecnt = be32(p + 36);
    c->charcnt = be32(p + 40);
    if (c->typecnt == 0 || c->typecnt > 256 || c->charcnt == 0 || c->charcnt > 65536 ||
        c->timecnt > TZ_MAX_TRANSITIONS || c->leapcnt > 10000 ||
        (c->isutcnt != 0 && c->isutcnt != c->typecnt) ||
        (c->isstdcnt != 0 && c->isstdcnt != c->typecnt))
        return false;
    return true;
}

static size_t block_size(const tzif_counts *c, int time_size) {
    return (size_t)c->timecnt * (size_t)time_size + c->timecnt + (size_t)c->typecnt * 6 +
           c->charcnt + (size_t)c->leapcnt * (size_t)(time_size + 4) + c->isstdcnt + c->isutcnt;
}

/* POSIX TZ string pieces. Each returns the position after what it read, or NULL on error. */
static const char *posix_name(const char *p, const char *end) {
    if (p < end && *p == '<') {
        p++;
        const char *start = p;
        while (p < end && *p != '>') {
            if (!isalnum((unsigned char)*p) && *p != '+' && *p != '-') return NULL;
            p++;
        }
        if (p >= end || p - start < 1) return NULL;
        return p + 1;
    }
    const char *start = p;
    while (p < end && isalpha((unsigned char)*p)) p++;
    return p - start >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] with hh up to max_hours; stores seconds. */
static const char *posix_hms(const char *p, const char *end, int max_hours, int32_t *secs) {
    int sign = 1;
    if (p < end && (*p == '+' || *p == '-')) sign = *p++ == '-' ? -1 : 1;
    int parts[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (i > 0) {
            if (p >= end || *p != ':') break;
            p++;
        }
        int v = 0, n = 0;
        while (p < end && *p >= '0' && *p <= '9' && n < 3) v = v * 10 + (*p++ - '0'), n++;
        if (n == 0) return NULL;
        parts[i] = v;
    }
    if (parts[0] > max_hours || parts[1] > 59 || parts[2] > 59) return NULL;
    *secs = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
    return p;
}

static const char *posix_date(const char *p, const char *end, tz_rule_date *d) {
    memset(d, 0, sizeof *d);
    d->time = 7200; /* default 02:00:00 */
    if (p < end && *p == 'M') {
        p++;
        int vals[3];
        for (int i = 0; i < 3; i++) {
            if (i > 0) {
                if (p >= end || *p != '.') return NULL;
                p++;
            }
            int v = 0, n = 0;
            while (p < end && *p >= '0' && *p <= '9' && n < 2) v = v * 10 + (*p++ - '0'), n++;
            if (n == 0) return NULL;
            vals[i] = v;
        }
        if (vals[0] < 1 || vals[0] > 12 || vals[1] < 1 || vals[1] > 5 || vals[2] > 6) return NULL;
        d->kind = 'M';
        d->month = vals[0];
        d->week = vals[1];
        d->day = vals[2];
    } else {
        d->kind = 'N';
        if (p < end && *p == 'J') {
            d->kind = 'J';
            p++;
        }
        int v = 0, n = 0;
        while (p < end && *p >= '0' && *p <= '9' && n < 3) v = v * 10 + (*p++ - '0'), n++;
        if (n == 0 || v > 365 || (d->kind == 'J' && v < 1)) return NULL;
        d->day = v;
    }
    if (p < end && *p == '/') {
        p = posix_hms(p + 1, end, 167, &d->time);
        if (!p) return NULL;
    }
    return p;
}

/* Parses the footer TZ string ("EST5EDT,M3.2.0,M11.1.0"). Empty strings give no rule. */
static bool parse_posix_tz(const char *p, const char *end, tz_rule *r, bool *has_rule) {
    *has_rule = false;
    if (p == end) return true;
    memset(r, 0, sizeof *r);
    int32_t off;
    if (!(p = posix_name(p, end)) || !(p = posix_hms(p, end, 24, &off))) return false;
    r->std_off = -off;
    if (p == end) {
        *has_rule = true;
        return true;
    }
    if (!(p = posix_name(p, end))) return false;
    r->has_dst = true;
    r->dst_off = r->std_off + 3600;
    if (p < end && *p != ',') {
        if (!(p = posix_hms(p, end, 24, &off))) return false;
        r->dst_off = -off;
    }
    if (p == end) {
        /* POSIX leaves the default rule to the implementation; use the US rule as glibc does. */
        r->start = (tz_rule_date){'M', 3, 2, 0, 7200};
        r->end = (tz_rule_date){'M', 11, 1, 0, 7200};
        *has_rule = true;
        return true;
    }
    if (*p != ',' || !(p = posix_date(p + 1, end, &r->start))) return false;
    if (p >= end || *p != ',' || !(p = posix_date(p + 1, end, &r->end))) return false;
    if (p != end) return false;
    *has_rule = true;
    return true;
}

static void zone_free(tz_zone *z) {
    if (!z) return;
    free(z->trans);
    free(z->trans_type);
    free(z->type_off);
    free(z);
}

/* Builds a zone from the bytes of a TZif file; NULL when the file is not acceptable. */
static tz_zone *zone_parse(const unsigned char *data, size_t size, const char *name) {
    tzif_counts c;
    int version;
    if (!read_header(data, size, &c, &version)) return NULL;
    size_t pos = 44;
    int time_size = 4;
    if (version >= 2) {
        size_t skip = block_size(&c, 4);
        if (skip > size - pos) return NULL;
        pos += skip;
        int v2;
        if (!read_header(data + pos, size - pos, &c, &v2)) return NULL;
        pos += 44;
        time_size = 8;
    }
    size_t need = block_size(&c, time_size);
    if (need > size - pos) return NULL;
    if (c.leapcnt) return NULL; /* leap-second ("right/") zones are not supported */
    tz_zone *z = calloc(1, sizeof *z);
    if (!z) return NULL;
    snprintf(z->name, sizeof z->name, "%s", name);
    z->n_trans = c.timecnt;
    z->n_types = c.typecnt;
    z->trans = malloc(sizeof(int64_t) * (c.timecnt ? c.timecnt : 1));
    z->trans_type = malloc(c.timecnt ? c.timecnt : 1);
    z->type_off = malloc(sizeof(int32_t) * c.typecnt);
    if (!z->trans || !z->trans_type || !z->type_off) goto out_bad;
    const unsigned char *p = data + pos;
    for (uint32_t i = 0; i < c.timecnt; i++) {
        z->trans[i] = time_size == 8 ? be64(p + (size_t)i * 8) : (int32_t)be32(p + (size_t)i * 4);
        if (i > 0 && z->trans[i] <= z->trans[i - 1]) goto out_bad;
    }
    p += (size_t)c.timecnt * (size_t)time_size;
    for (uint32_t i = 0; i < c.timecnt; i++) {
        if (p[i] >= c.typecnt) goto out_bad;
        z->trans_type[i] = p[i];
    }
    p += c.timecnt;
    for (uint32_t i = 0; i < c.typecnt; i++) {
        int32_t off = (int32_t)be32(p + (size_t)i * 6);
        if (off <= -TZ_MAX_OFFSET || off >= TZ_MAX_OFFSET) goto out_bad;
        if (p[(size_t)i * 6 + 5] >= c.charcnt) goto out_bad; /* abbreviation index */
        z->type_off[i] = off;
    }
    pos += need;
    if (version >= 2) {
        /* Footer: "\n" TZ-string "\n" (RFC 8536 section 3.3). */
        if (pos >= size || data[pos] != '\n') goto out_bad;
        const char *start = (const char *)data + pos + 1;
        const char *nl = memchr(start, '\n', size - pos - 1);
        if (!nl) goto out_bad;
        if (!parse_posix_tz(start, nl, &z->rule, &z->has_rule)) goto out_bad;
    }
    return z;
out_bad:
    zone_free(z);
    return NULL;
}

/* Reads a whole regular file of at most TZ_MAX_FILE bytes. */
static unsigned char *read_file(const char *path, size_t *size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        st.st_size > TZ_MAX_FILE)
        goto out_close;
    buf = malloc((size_t)st.st_size);
    if (!buf) goto out_close;
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            free(buf);
            buf = NULL;
            goto out_close;
        }
        got += (size_t)n;
    }
    *size = got;
out_close:
    close(fd);
    return buf;
}

int tz_tzif_check(const void *data, size_t size) {
    if (!data) return -1;
    tz_zone *z = zone_parse(data, size, "check");
    if (!z) return -1;
    zone_free(z);
    return 0;
}

/* --- Name resolution and the zone registry ----------------------------------------------- */

static bool valid_zone_name(const char *s, size_t len) {
    if (len == 0 || len > TZ_MAX_NAME || s[0] == '/' || s[len - 1] == '/') return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!(isalnum((unsigned char)c) || c == '/' || c == '_' || c == '-' || c == '+'))
            return false;
        if (c == '/' && i + 1 < len && s[i + 1] == '/') return false;
    }
    /* Components may not be "." or ".." (dots are not accepted at all above). */
    return true;
}

/* Finds the on-disk spelling of name (case-insensitively) under TZ_DIR into canonical. */
static bool resolve_name(const char *name, char *canonical, size_t cap) {
    char path[sizeof TZ_DIR + TZ_MAX_NAME + 2];
    snprintf(path, sizeof path, "%s/%s", TZ_DIR, name);
    if (access(path, R_OK) == 0) {
        snprintf(canonical, cap, "%s", name);
        return true;
    }
    /* Walk component by component. */
    size_t out = 0;
    const char *p = name;
    canonical[0] = '\0';
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char dir[sizeof path];
        snprintf(dir, sizeof dir, "%s/%s", TZ_DIR, canonical);
        DIR *d = opendir(dir);
        if (!d) return false;
        struct dirent *ent;
        bool found = false;
        while ((ent = readdir(d)) != NULL) {
            if (strlen(ent->d_name) == n && strncasecmp(ent->d_name, p, n) == 0) {
                if (out + n + 2 > cap) break;
                if (out) canonical[out++] = '/';
                memcpy(canonical + out, ent->d_name, n);
                out += n;
                canonical[out] = '\0';
                found = true;
                break;
            }
        }
        closedir(d);
        if (!found) return false;
        p += n;
        if (*p == '/') p++;
    }
    return out > 0;
}

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Cache lookup/insert; call with tz_lock held. */
static cache_slot *cache_find(const char *lower) {
    uint64_t h = name_hash(lower);
    for (uint32_t i = 0; i < TZ_CACHE_SLOTS; i++) {
        cache_slot *s = &name_cache[(h + i) & (TZ_CACHE_SLOTS - 1)];
        if (!s->lower || strcmp(s->lower, lower) == 0) return s;
    }
    return NULL;
}

static int lookup_iana(const char *name, size_t len, int32_t *key) {
    if (!valid_zone_name(name, len)) return -1;
    char lower[TZ_MAX_NAME + 1];
    for (size_t i = 0; i < len; i++) lower[i] = (char)tolower((unsigned char)name[i]);
    lower[len] = '\0';
    pthread_mutex_lock(&tz_lock);
    cache_slot *slot = cache_find(lower);
    if (slot && slot->lower) {
        *key = slot->key;
        pthread_mutex_unlock(&tz_lock);
        return 0;
    }
    pthread_mutex_unlock(&tz_lock);

    char exact[TZ_MAX_NAME + 1], canonical[TZ_MAX_NAME + 1];
    memcpy(exact, name, len);
    exact[len] = '\0';
    if (!resolve_name(exact, canonical, sizeof canonical)) return -1;
    char path[sizeof TZ_DIR + TZ_MAX_NAME + 2];
    snprintf(path, sizeof path, "%s/%s", TZ_DIR, canonical);
    size_t size = 0;
    unsigned char *data = read_file(path, &size);
    if (!data) return -1;
    tz_zone *z = zone_parse(data, size, canonical);
    free(data);
    if (!z) return -1;

    pthread_mutex_lock(&tz_lock);
    slot = cache_find(lower);
    int rc = -1;
    if (slot && slot->lower) { /* another thread won the race */
        *key = slot->key;
        rc = 0;
    } else if (slot && n_zones < TZ_MAX_ZONES) {
        char *copy = strdup(lower);
        if (copy) {
            int32_t idx = n_zones++;
            __atomic_store_n(&zones[idx], z, __ATOMIC_RELEASE);
            z = NULL;
            slot->lower = copy;
            slot->key = TZ_IANA_BASE + idx;
            *key = slot->key;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&tz_lock);
    zone_free(z);
    return rc;
}

int tz_lookup(const char *name, size_t len, int32_t *key) {
    if (!name || len == 0 || len > TZ_MAX_NAME) return -1;
    char lower[TZ_MAX_NAME + 1];
    for (size_t i = 0; i < len; i++) lower[i] = (char)tolower((unsigned char)name[i]);
    lower[len] = '\0';
    int minutes;
    if (parse_offset_text(name, len, &minutes)) {
        *key = tz_key_for_offset(minutes);
        return 0;
    }
    /* Trino's normalization: "Etc/" prefix, UTC synonyms, UTC/GMT/UT followed by an offset
     * (inverted under Etc/, as in the tz database). */
    const char *n = lower;
    bool etc = strncmp(n, "etc/", 4) == 0;
    if (etc) n += 4;
    if (is_utc_name(n)) {
        *key = TZ_UTC;
        return 0;
    }
    size_t prefix = strncmp(n, "utc", 3) == 0 || strncmp(n, "gmt", 3) == 0 ? 3
                    : strncmp(n, "ut", 2) == 0                            ? 2
                                                                           : 0;
    if (prefix && parse_offset_text(n + prefix, strlen(n + prefix), &minutes)) {
        if (etc && minutes % 60 == 0) minutes = -minutes;
        *key = tz_key_for_offset(minutes);
        return 0;
    }
    return lookup_iana(name, len, key);
}

/* --- Offsets ----------------------------------------------------------------------------- */

static int64_t rule_date_days(const tz_rule_date *d, int32_t year) {
    int64_t jan1 = dt_days_from_civil(year, 1, 1);
    switch (d->kind) {
    case 'J': return jan1 + d->day - 1 + (dt_is_leap_year(year) && d->day >= 60);
    case 'N': return jan1 + d->day;
    default: {
        int64_t first = dt_days_from_civil(year, d->month, 1);
        int dow_first = (int)dt_floor_mod(first + 4, 7); /* 1970-01-01 was a Thursday */
        int day = 1 + (d->day - dow_first + 7) % 7 + (d->week - 1) * 7;
        int dim = dt_days_in_month(year, d->month);
        while (day > dim) day -= 7;
        return first + day - 1;
    }
    }
}

static int32_t rule_offset(const tz_rule *r, int64_t t) {
    if (!r->has_dst) return r->std_off;
    int64_t local_days = dt_floor_div(t + r->std_off, 86400);
    int32_t year, month, day;
    dt_civil_from_days((int32_t)local_days, &year, &month, &day);
    int64_t start = rule_date_days(&r->start, year) * 86400 + r->start.time - r->std_off;
    int64_t end = rule_date_days(&r->end, year) * 86400 + r->end.time - r->dst_off;
    bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? r->dst_off : r->std_off;
}

static int32_t zone_offset(const tz_zone *z, int64_t t) {
    if (z->n_trans == 0) return z->has_rule ? rule_offset(&z->rule, t) : z->type_off[0];
    if (t < z->trans[0]) return z->type_off[0];
    if (t >= z->trans[z->n_trans - 1] && z->has_rule) return rule_offset(&z->rule, t);
    uint32_t lo = 0, hi = z->n_trans; /* last transition <= t */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (z->trans[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return z->type_off[z->trans_type[lo]];
}

int32_t tz_offset_at_utc(int32_t key, int64_t utc_micros) {
    if (key == TZ_UTC) return 0;
    if (key_is_fixed(key)) return fixed_minutes(key) * 60;
    const tz_zone *z = zone_of(key);
    if (!z) return 0;
    return zone_offset(z, dt_floor_div(utc_micros, DT_MICROS_PER_SECOND));
}

int64_t tz_local_to_utc(int32_t key, int64_t local_micros) {
    if (key == TZ_UTC) return local_micros;
    if (key_is_fixed(key)) return local_micros - (int64_t)fixed_minutes(key) * 60 * 1000000;
    const tz_zone *z = zone_of(key);
    if (!z) return local_micros;
    int64_t local = dt_floor_div(local_micros, DT_MICROS_PER_SECOND);
    int64_t frac = local_micros - local * DT_MICROS_PER_SECOND;
    /* The offsets in force a day before and after bracket every candidate instant. */
    int32_t before = zone_offset(z, local - 86400);
    int32_t after = zone_offset(z, local + 86400);
    int64_t utc;
    if (before == after) {
        utc = local - before;
        int32_t actual = zone_offset(z, utc);
        if (actual != before) utc = local - actual; /* two transitions within two days */
    } else {
        int64_t ub = local - before, ua = local - after;
        bool vb = zone_offset(z, ub) == before, va = zone_offset(z, ua) == after;
        if (vb && va)
            utc = ub < ua ? ub : ua; /* overlap: the earlier instant */
        else if (vb)
            utc = ub;
        else if (va)
            utc = ua;
        else
            utc = ub; /* gap: shift forward by its length (the offset before the gap) */
    }
    return utc * DT_MICROS_PER_SECOND + frac;
}

/* --- Default zone ------------------------------------------------------------------------ */

static int32_t default_key = TZ_UTC;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void default_init(void) {
    const char *tz = getenv("TZ");
    int32_t key;
    if (tz && *tz) {
        if (*tz == ':') tz++;
        const char *prefix = TZ_DIR "/";
        if (strncmp(tz, prefix, strlen(prefix)) == 0) tz += strlen(prefix);
        if (tz_lookup(tz, strlen(tz), &key) == 0) default_key = key;
        return;
    }
    char target[512];
    ssize_t n = readlink("/etc/localtime", target, sizeof target - 1);
    if (n <= 0) return;
    target[n] = '\0';
    const char *p = strstr(target, "zoneinfo/");
    if (!p) return;
    p += strlen("zoneinfo/");
    if (tz_lookup(p, strlen(p), &key) == 0) default_key = key;
}

int32_t tz_system_default(void) {
    pthread_once(&default_once, default_init);
    return default_key;
}
