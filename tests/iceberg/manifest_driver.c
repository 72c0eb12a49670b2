/*
 * manifest_driver.c: a small driver that lets tests/iceberg/test_manifest_interop.py compare
 * SQE's Iceberg manifest lists and manifests (src/iceberg/manifest*.c, bounds.c) with
 * pyiceberg's, both ways. Built by tests/iceberg/run_manifest_tests.sh with gcc.
 *
 * Modes:
 *   read <metadata.json> [<manifest-list>]
 *       Reads the manifest list of the current snapshot (or the given file) and every manifest
 *       it names (with inheritance from the list entry); prints one JSON line per manifest
 *       list entry ({"kind":"manifest_file",...}) followed by one per manifest entry
 *       ({"kind":"entry","manifest":<path>,...}), and a first line {"kind":"list_info",...}.
 *   rewrite <metadata.json>
 *       Reads the current snapshot's manifests without inheritance and writes them back in
 *       place with ice_manifest_write (same format version, content, schema and spec), then
 *       rewrites the manifest list in place from ice_manifest_summarize plus the original
 *       entries' sequence numbers and snapshot ids. Prints {"kind":"summary",...} lines (what
 *       ice_manifest_summarize computed) for comparison with the originals.
 *   write <description.json> <manifest-out> <list-out>
 *       Writes a manifest and a one-entry manifest list from a JSON description (see
 *       write_mode below).
 *   check-list <file> | check-manifest <metadata.json> <file>
 *       Reads one file; prints "ok <entries>" or "error <ERROR_NAME> <message>".
 * Values print as: ints, dates (days), times and timestamps (micros) as JSON integers;
 * decimals as the unscaled integer in a string; floats as numbers ("NaN", "Infinity");
 * strings as strings; binary, fixed and uuid as lowercase hex strings; bytes of bounds as hex.
 * Exit status: 0 on success, 1 on an SQE error (message on stdout for check modes, stderr
 * otherwise), 2 on bad usage or IO errors.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"

static uint8_t *read_file(const char *path, size_t *len) {
    if (strncmp(path, "file://", 7) == 0) path += 7;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int write_file(const char *path, const uint8_t *data, size_t len) {
    if (strncmp(path, "file://", 7) == 0) path += 7;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t put = fwrite(data, 1, len, f);
    int rc = fclose(f);
    return put == len && rc == 0 ? 0 : -1;
}

static void hex(strbuf *sb, const uint8_t *p, size_t n) {
    strbuf_putc(sb, '"');
    for (size_t i = 0; i < n; i++) strbuf_printf(sb, "%02x", p[i]);
    strbuf_putc(sb, '"');
}

static void json_str(strbuf *sb, const char *s) {
    if (!s) {
        strbuf_puts(sb, "null");
        return;
    }
    json_t *j = json_string(s);
    char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    strbuf_puts(sb, t ? t : "\"<not utf-8>\"");
    free(t);
    json_decref(j);
}

static void int128_str(strbuf *sb, int128 v) {
    char buf[48];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        buf[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    strbuf_putc(sb, '"');
    if (neg) strbuf_putc(sb, '-');
    while (n) strbuf_putc(sb, buf[--n]);
    strbuf_putc(sb, '"');
}

static void dbl(strbuf *sb, double d) {
    if (isnan(d)) strbuf_puts(sb, "\"NaN\"");
    else if (isinf(d)) strbuf_puts(sb, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else {
        char buf[40];
        snprintf(buf, sizeof buf, "%.17g", d);
        strbuf_puts(sb, buf);
        if (!strpbrk(buf, ".e")) strbuf_puts(sb, ".0"); /* keep it a JSON float ("-0.0") */
    }
}

static void value(strbuf *sb, const vec *v, uint32_t row) {
    if (vec_is_null(v, row)) {
        strbuf_puts(sb, "null");
        return;
    }
    uint32_t p;
    const vec *f = vec_resolve(v, row, &p);
    const void *d = f->data;
    switch ((type_id)v->type.id) {
    case TYPE_BOOLEAN: strbuf_puts(sb, ((const uint8_t *)d)[p] ? "true" : "false"); break;
    case TYPE_INTEGER:
    case TYPE_DATE: strbuf_printf(sb, "%d", ((const int32_t *)d)[p]); break;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: strbuf_printf(sb, "%" PRId64, ((const int64_t *)d)[p]); break;
    case TYPE_TIMESTAMP_TZ:
        strbuf_printf(sb, "%" PRId64, ((const sqe_timestamp_tz *)d)[p].micros);
        break;
    case TYPE_REAL: dbl(sb, ((const float *)d)[p]); break;
    case TYPE_DOUBLE: dbl(sb, ((const double *)d)[p]); break;
    case TYPE_DECIMAL:
        int128_str(sb, type_decimal_is_long(v->type) ? ((const int128 *)d)[p]
                                                     : ((const int64_t *)d)[p]);
        break;
    case TYPE_UUID: hex(sb, (const uint8_t *)d + (size_t)p * 16, 16); break;
    case TYPE_VARCHAR: {
        const sqe_str *s = &((const sqe_str *)d)[p];
        char *c = strndup(sqe_str_data(s), s->len);
        json_str(sb, c);
        free(c);
        break;
    }
    case TYPE_VARBINARY: {
        const sqe_str *s = &((const sqe_str *)d)[p];
        hex(sb, (const uint8_t *)sqe_str_data(s), s->len);
        break;
    }
    default: strbuf_puts(sb, "\"?\""); break;
    }
}

static void opt_long(strbuf *sb, const char *key, bool has, int64_t v) {
    if (has) strbuf_printf(sb, ",\"%s\":%" PRId64, key, v);
    else strbuf_printf(sb, ",\"%s\":null", key);
}

static void counts(strbuf *sb, const char *key, const ice_counts *c) {
    strbuf_printf(sb, ",\"%s\":", key);
    if (!c->present) {
        strbuf_puts(sb, "null");
        return;
    }
    strbuf_putc(sb, '{');
    for (uint32_t i = 0; i < c->n; i++)
        strbuf_printf(sb, "%s\"%d\":%" PRId64, i ? "," : "", c->items[i].field_id,
                      c->items[i].value);
    strbuf_putc(sb, '}');
}

static void bounds(strbuf *sb, const char *key, const ice_bounds *b) {
    strbuf_printf(sb, ",\"%s\":", key);
    if (!b->present) {
        strbuf_puts(sb, "null");
        return;
    }
    strbuf_putc(sb, '{');
    for (uint32_t i = 0; i < b->n; i++) {
        strbuf_printf(sb, "%s\"%d\":{\"raw\":", i ? "," : "", b->items[i].field_id);
        hex(sb, b->items[i].raw.data, b->items[i].raw.len);
        strbuf_puts(sb, ",\"value\":");
        value(sb, &b->items[i].value, 0);
        strbuf_putc(sb, '}');
    }
    strbuf_putc(sb, '}');
}

static void print_manifest_file(const ice_manifest_file *mf, const char *kind) {
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "{\"kind\":\"%s\",\"manifest_path\":", kind);
    json_str(&sb, mf->manifest_path);
    strbuf_printf(&sb, ",\"manifest_length\":%" PRId64 ",\"partition_spec_id\":%d,\"content\":%d",
                  mf->manifest_length, mf->partition_spec_id, (int)mf->content);
    strbuf_printf(&sb, ",\"sequence_number\":%" PRId64 ",\"min_sequence_number\":%" PRId64,
                  mf->sequence_number, mf->min_sequence_number);
    strbuf_printf(&sb, ",\"added_snapshot_id\":%" PRId64, mf->added_snapshot_id);
    opt_long(&sb, "added_files_count", mf->has_added_files_count, mf->added_files_count);
    opt_long(&sb, "existing_files_count", mf->has_existing_files_count, mf->existing_files_count);
    opt_long(&sb, "deleted_files_count", mf->has_deleted_files_count, mf->deleted_files_count);
    opt_long(&sb, "added_rows_count", mf->has_added_rows_count, mf->added_rows_count);
    opt_long(&sb, "existing_rows_count", mf->has_existing_rows_count, mf->existing_rows_count);
    opt_long(&sb, "deleted_rows_count", mf->has_deleted_rows_count, mf->deleted_rows_count);
    opt_long(&sb, "first_row_id", mf->has_first_row_id, mf->first_row_id);
    strbuf_puts(&sb, ",\"partitions\":");
    if (!mf->has_partitions) strbuf_puts(&sb, "null");
    else {
        strbuf_putc(&sb, '[');
        for (uint32_t i = 0; i < mf->n_partitions; i++) {
            const ice_field_summary *fs = &mf->partitions[i];
            strbuf_printf(&sb, "%s{\"contains_null\":%s,\"contains_nan\":%s,\"lower_bound\":",
                          i ? "," : "", fs->contains_null ? "true" : "false",
                          fs->contains_nan < 0 ? "null" : fs->contains_nan ? "true" : "false");
            if (fs->has_lower) hex(&sb, fs->lower.data, fs->lower.len);
            else strbuf_puts(&sb, "null");
            strbuf_puts(&sb, ",\"upper_bound\":");
            if (fs->has_upper) hex(&sb, fs->upper.data, fs->upper.len);
            else strbuf_puts(&sb, "null");
            strbuf_putc(&sb, '}');
        }
        strbuf_putc(&sb, ']');
    }
    strbuf_puts(&sb, "}");
    puts(strbuf_cstr(&sb));
    strbuf_reset(&sb);
}

static void print_entry(const ice_manifest *m, const ice_manifest_entry *e, const char *path) {
    const ice_data_file *f = &e->file;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "{\"kind\":\"entry\",\"manifest\":");
    json_str(&sb, path);
    strbuf_printf(&sb, ",\"manifest_format_version\":%d,\"manifest_content\":%d,\"status\":%d",
                  m->format_version, (int)m->content, (int)e->status);
    opt_long(&sb, "snapshot_id", e->has_snapshot_id, e->snapshot_id);
    opt_long(&sb, "sequence_number", e->has_sequence_number, e->sequence_number);
    opt_long(&sb, "file_sequence_number", e->has_file_sequence_number, e->file_sequence_number);
    strbuf_printf(&sb, ",\"content\":%d,\"file_path\":", (int)f->content);
    json_str(&sb, f->file_path);
    strbuf_puts(&sb, ",\"file_format\":");
    json_str(&sb, f->file_format);
    strbuf_printf(&sb, ",\"spec_id\":%d,\"partition\":{", f->spec_id);
    for (uint32_t k = 0; k < f->n_partition; k++) {
        if (k) strbuf_putc(&sb, ',');
        json_str(&sb, m->partition_fields[k].name);
        strbuf_putc(&sb, ':');
        value(&sb, &f->partition[k], f->partition_row);
    }
    strbuf_putc(&sb, '}');
    strbuf_puts(&sb, ",\"partition_types\":{");
    for (uint32_t k = 0; k < m->n_partition_fields; k++) {
        char tb[64];
        type_format(m->partition_fields[k].sqe, tb, sizeof tb);
        strbuf_printf(&sb, "%s\"%d\":\"%s\"", k ? "," : "", m->partition_fields[k].field_id, tb);
    }
    strbuf_putc(&sb, '}');
    strbuf_printf(&sb, ",\"record_count\":%" PRId64 ",\"file_size_in_bytes\":%" PRId64,
                  f->record_count, f->file_size_in_bytes);
    opt_long(&sb, "block_size_in_bytes", f->has_block_size_in_bytes, f->block_size_in_bytes);
    counts(&sb, "column_sizes", &f->column_sizes);
    counts(&sb, "value_counts", &f->value_counts);
    counts(&sb, "null_value_counts", &f->null_value_counts);
    counts(&sb, "nan_value_counts", &f->nan_value_counts);
    bounds(&sb, "lower_bounds", &f->lower_bounds);
    bounds(&sb, "upper_bounds", &f->upper_bounds);
    strbuf_puts(&sb, ",\"key_metadata\":");
    if (f->has_key_metadata) hex(&sb, f->key_metadata.data, f->key_metadata.len);
    else strbuf_puts(&sb, "null");
    strbuf_puts(&sb, ",\"split_offsets\":");
    if (!f->has_split_offsets) strbuf_puts(&sb, "null");
    else {
        strbuf_putc(&sb, '[');
        for (uint32_t i = 0; i < f->n_split_offsets; i++)
            strbuf_printf(&sb, "%s%" PRId64, i ? "," : "", f->split_offsets[i]);
        strbuf_putc(&sb, ']');
    }
    strbuf_puts(&sb, ",\"equality_ids\":");
    if (!f->has_equality_ids) strbuf_puts(&sb, "null");
    else {
        strbuf_putc(&sb, '[');
        for (uint32_t i = 0; i < f->n_equality_ids; i++)
            strbuf_printf(&sb, "%s%d", i ? "," : "", f->equality_ids[i]);
        strbuf_putc(&sb, ']');
    }
    opt_long(&sb, "sort_order_id", f->has_sort_order_id, f->sort_order_id);
    opt_long(&sb, "first_row_id", f->has_first_row_id, f->first_row_id);
    strbuf_puts(&sb, ",\"referenced_data_file\":");
    json_str(&sb, f->referenced_data_file);
    opt_long(&sb, "content_offset", f->has_content_offset, f->content_offset);
    opt_long(&sb, "content_size_in_bytes", f->has_content_size_in_bytes, f->content_size_in_bytes);
    strbuf_puts(&sb, "}");
    puts(strbuf_cstr(&sb));
    strbuf_reset(&sb);
}

static int fail(const sqe_error *err, const char *what) {
    fprintf(stderr, "manifest_driver: %s: %s: %s\n", what, err_code_lookup(err->code)->name,
            err->message);
    return 1;
}

static ice_metadata *load_metadata(arena *a, const char *path, sqe_error *err) {
    size_t len;
    uint8_t *json = read_file(path, &len);
    if (!json) {
        fprintf(stderr, "manifest_driver: cannot read %s\n", path);
        exit(2);
    }
    ice_metadata *m = NULL;
    int rc = ice_metadata_parse(a, (const char *)json, len, &m, err);
    free(json);
    if (rc != SQE_OK) {
        fail(err, path);
        exit(1);
    }
    return m;
}

static const char *current_list(const ice_metadata *m) {
    const ice_snapshot *s = ice_metadata_current_snapshot(m);
    if (!s || !s->manifest_list) {
        fprintf(stderr, "manifest_driver: no current snapshot with a manifest list\n");
        exit(2);
    }
    return s->manifest_list;
}

static int read_mode(const char *meta_path, const char *list_path) {
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    ice_metadata *m = load_metadata(&a, meta_path, &err);
    if (!list_path) list_path = current_list(m);
    size_t len;
    uint8_t *buf = read_file(list_path, &len);
    if (!buf) {
        fprintf(stderr, "manifest_driver: cannot read %s\n", list_path);
        return 2;
    }
    ice_manifest_file *files = NULL;
    uint32_t n = 0;
    ice_manifest_list_info info;
    int rc = ice_manifest_list_read(&a, buf, len, &files, &n, &info, &err);
    if (rc != SQE_OK) {
        free(buf);
        arena_destroy(&a);
        return fail(&err, list_path);
    }
    printf("{\"kind\":\"list_info\",\"format_version\":%d", info.format_version);
    printf(",\"snapshot_id\":");
    info.has_snapshot_id ? printf("%" PRId64, info.snapshot_id) : printf("null");
    printf(",\"parent_snapshot_id\":");
    info.has_parent_snapshot_id ? printf("%" PRId64, info.parent_snapshot_id) : printf("null");
    printf(",\"sequence_number\":");
    info.has_sequence_number ? printf("%" PRId64, info.sequence_number) : printf("null");
    printf(",\"first_row_id\":");
    info.has_first_row_id ? printf("%" PRId64, info.first_row_id) : printf("null");
    printf("}\n");
    for (uint32_t i = 0; i < n; i++) print_manifest_file(&files[i], "manifest_file");
    for (uint32_t i = 0; i < n && rc == SQE_OK; i++) {
        size_t mlen;
        uint8_t *mbuf = read_file(files[i].manifest_path, &mlen);
        if (!mbuf) {
            fprintf(stderr, "manifest_driver: cannot read %s\n", files[i].manifest_path);
            rc = 2;
            break;
        }
        ice_manifest *mf = NULL;
        rc = ice_manifest_read(&a, mbuf, mlen, m, &files[i], &mf, &err);
        if (rc != SQE_OK) {
            rc = fail(&err, files[i].manifest_path);
        } else {
            for (uint32_t k = 0; k < mf->n_entries; k++)
                print_entry(mf, &mf->entries[k], files[i].manifest_path);
        }
        free(mbuf);
    }
    free(buf);
    arena_destroy(&a);
    return rc;
}

static int rewrite_mode(const char *meta_path) {
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    ice_metadata *m = load_metadata(&a, meta_path, &err);
    const char *list_path = current_list(m);
    size_t len;
    uint8_t *buf = read_file(list_path, &len);
    if (!buf) return 2;
    ice_manifest_file *files = NULL;
    uint32_t n = 0;
    ice_manifest_list_info info;
    int rc = ice_manifest_list_read(&a, buf, len, &files, &n, &info, &err);
    free(buf);
    if (rc != SQE_OK) return fail(&err, list_path);
    ice_manifest_file *out = calloc(n ? n : 1, sizeof *out);
    for (uint32_t i = 0; i < n && rc == SQE_OK; i++) {
        size_t mlen;
        uint8_t *mbuf = read_file(files[i].manifest_path, &mlen);
        if (!mbuf) return 2;
        ice_manifest *mf = NULL;
        rc = ice_manifest_read(&a, mbuf, mlen, m, NULL, &mf, &err);
        free(mbuf);
        if (rc != SQE_OK) return fail(&err, files[i].manifest_path);
        ice_manifest_write_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.format_version = mf->format_version;
        wo.content = mf->content;
        wo.schema = mf->has_schema_id ? ice_metadata_schema(m, mf->schema_id)
                                      : ice_metadata_current_schema(m);
        wo.spec = mf->spec;
        wo.snapshot_id = files[i].added_snapshot_id;
        wo.codec = AVRO_CODEC_DEFLATE;
        uint8_t *bytes = NULL;
        size_t blen = 0;
        rc = ice_manifest_write(&wo, mf->entries, mf->n_entries, &bytes, &blen, &err);
        if (rc != SQE_OK) return fail(&err, "ice_manifest_write");
        if (write_file(files[i].manifest_path, bytes, blen) != 0) return 2;
        free(bytes);
        rc = ice_manifest_summarize(&a, &wo, mf->entries, mf->n_entries, files[i].manifest_path,
                                    (int64_t)blen, &out[i], &err);
        if (rc != SQE_OK) return fail(&err, "ice_manifest_summarize");
        print_manifest_file(&out[i], "summary");
        /* What summarize cannot know: the list's sequence numbers and snapshot. */
        out[i].added_snapshot_id = files[i].added_snapshot_id;
        out[i].sequence_number = files[i].sequence_number;
        if (out[i].min_sequence_number == ICE_SEQ_UNASSIGNED)
            out[i].min_sequence_number = files[i].sequence_number;
        out[i].has_first_row_id = files[i].has_first_row_id;
        out[i].first_row_id = files[i].first_row_id;
        out[i].has_key_metadata = files[i].has_key_metadata;
        out[i].key_metadata = files[i].key_metadata;
    }
    ice_manifest_list_write_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.format_version = info.format_version;
    lo.snapshot_id = info.has_snapshot_id ? info.snapshot_id : m->current_snapshot_id;
    lo.has_parent_snapshot_id = info.has_parent_snapshot_id;
    lo.parent_snapshot_id = info.parent_snapshot_id;
    lo.sequence_number = info.sequence_number;
    lo.first_row_id = info.first_row_id;
    lo.codec = AVRO_CODEC_DEFLATE;
    uint8_t *bytes = NULL;
    size_t blen = 0;
    rc = ice_manifest_list_write(&lo, out, n, &bytes, &blen, NULL, &err);
    if (rc != SQE_OK) return fail(&err, "ice_manifest_list_write");
    if (write_file(list_path, bytes, blen) != 0) return 2;
    free(bytes);
    free(out);
    arena_destroy(&a);
    return 0;
}

/* ---- write mode ---------------------------------------------------------------------------- */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool unhex(arena *a, const char *s, ice_bytes *out) {
    size_t n = strlen(s);
    if (n % 2) return false;
    uint8_t *b = arena_alloc(a, n / 2 + 1);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        b[i] = (uint8_t)(hi * 16 + lo);
    }
    out->data = b;
    out->len = n / 2;
    return true;
}

/* Sets row 0 of the arena vector v (SQE type of Iceberg type t) from JSON j. */
static bool set_value(arena *a, const ice_type *t, vec *v, json_t *j) {
    if (json_is_null(j)) return ice_arena_vec_set_null(a, v, 0, NULL) == SQE_OK;
    void *d = v->data;
    switch (v->type.id) {
    case TYPE_BOOLEAN: ((uint8_t *)d)[0] = json_is_true(j); return true;
    case TYPE_INTEGER:
    case TYPE_DATE: ((int32_t *)d)[0] = (int32_t)json_integer_value(j); return true;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: ((int64_t *)d)[0] = json_integer_value(j); return true;
    case TYPE_TIMESTAMP_TZ: ((sqe_timestamp_tz *)d)[0].micros = json_integer_value(j); return true;
    case TYPE_REAL: ((float *)d)[0] = (float)json_number_value(j); return true;
    case TYPE_DOUBLE: ((double *)d)[0] = json_number_value(j); return true;
    case TYPE_DECIMAL: {
        const char *s = json_string_value(j);
        if (!s) return false;
        bool neg = *s == '-';
        int128 x = 0;
        for (s += neg; *s; s++) x = x * 10 + (*s - '0');
        if (neg) x = -x;
        if (type_decimal_is_long(v->type)) ((int128 *)d)[0] = x;
        else ((int64_t *)d)[0] = (int64_t)x;
        return true;
    }
    case TYPE_VARCHAR: {
        const char *s = json_string_value(j);
        if (!s) return false;
        char *c = arena_strdup(a, s);
        ((sqe_str *)d)[0] = sqe_str_make(c, (uint32_t)strlen(c));
        return true;
    }
    case TYPE_VARBINARY:
    case TYPE_UUID: {
        ice_bytes b;
        if (!json_is_string(j) || !unhex(a, json_string_value(j), &b)) return false;
        if (v->type.id == TYPE_UUID) {
            if (b.len != 16) return false;
            memcpy(d, b.data, 16);
        } else {
            ((sqe_str *)d)[0] = sqe_str_make((const char *)b.data, (uint32_t)b.len);
        }
        return true;
    }
    default: return false;
    }
    (void)t;
}

static bool opt_json_long(json_t *o, const char *key, bool *has, int64_t *v) {
    json_t *j = json_object_get(o, key);
    *has = j && !json_is_null(j);
    if (*has) *v = json_integer_value(j);
    return true;
}

static void read_counts_json(arena *a, json_t *o, const char *key, ice_counts *c) {
    json_t *j = json_object_get(o, key);
    memset(c, 0, sizeof *c);
    if (!j || json_is_null(j)) return;
    c->present = true;
    c->n = (uint32_t)json_object_size(j);
    c->items = ARENA_ARRAY(a, ice_id_count, c->n ? c->n : 1);
    const char *k;
    json_t *v;
    uint32_t i = 0;
    json_object_foreach(j, k, v) {
        c->items[i].field_id = atoi(k);
        c->items[i].value = json_integer_value(v);
        i++;
    }
}

static void read_bounds_json(arena *a, json_t *o, const char *key, ice_bounds *b) {
    json_t *j = json_object_get(o, key);
    memset(b, 0, sizeof *b);
    if (!j || json_is_null(j)) return;
    b->present = true;
    b->n = (uint32_t)json_object_size(j);
    b->items = ARENA_ARRAY(a, ice_bound, b->n ? b->n : 1);
    const char *k;
    json_t *v;
    uint32_t i = 0;
    json_object_foreach(j, k, v) {
        b->items[i].field_id = atoi(k);
        unhex(a, json_string_value(v) ? json_string_value(v) : "", &b->items[i].raw);
        i++;
    }
}

/*
 * Description: {"metadata": "<table metadata path>", "format_version": 2, "content": 0,
 *   "snapshot_id": S, "parent_snapshot_id": P|null, "sequence_number": N, "first_row_id": R,
 *   "manifest_location": "<path recorded in the list>",
 *   "entries": [{"status", "snapshot_id", "sequence_number", "file_sequence_number", "content",
 *     "file_path", "file_format", "partition": [values in spec order], "record_count",
 *     "file_size_in_bytes", "column_sizes": {"id": n}, "value_counts", "null_value_counts",
 *     "nan_value_counts", "lower_bounds": {"id": "hex"}, "upper_bounds", "split_offsets": [..],
 *     "equality_ids": [..], "sort_order_id", "first_row_id", "referenced_data_file"}]}
 * Partition values use the printed encodings (see the top of the file).
 */
static int write_mode(const char *desc_path, const char *manifest_out, const char *list_out) {
    json_error_t jerr;
    json_t *d = json_load_file(desc_path, 0, &jerr);
    if (!d) {
        fprintf(stderr, "manifest_driver: %s: %s\n", desc_path, jerr.text);
        return 2;
    }
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    ice_metadata *m = load_metadata(&a, json_string_value(json_object_get(d, "metadata")), &err);
    ice_manifest_write_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.format_version = (int)json_integer_value(json_object_get(d, "format_version"));
    wo.content = (ice_manifest_content)json_integer_value(json_object_get(d, "content"));
    wo.schema = ice_metadata_current_schema(m);
    wo.spec = ice_metadata_default_spec(m);
    wo.snapshot_id = json_integer_value(json_object_get(d, "snapshot_id"));
    wo.codec = AVRO_CODEC_NULL;
    ice_type ptype;
    int rc = ice_partition_spec_type(&a, wo.schema, wo.spec, &ptype, &err);
    if (rc != SQE_OK) return fail(&err, "partition type");
    json_t *ents = json_object_get(d, "entries");
    uint32_t n = (uint32_t)json_array_size(ents);
    ice_manifest_entry *entries = ARENA_ARRAY(&a, ice_manifest_entry, n ? n : 1);
    for (uint32_t i = 0; i < n; i++) {
        json_t *o = json_array_get(ents, i);
        ice_manifest_entry *e = &entries[i];
        ice_data_file *f = &e->file;
        e->status = (ice_entry_status)json_integer_value(json_object_get(o, "status"));
        opt_json_long(o, "snapshot_id", &e->has_snapshot_id, &e->snapshot_id);
        opt_json_long(o, "sequence_number", &e->has_sequence_number, &e->sequence_number);
        opt_json_long(o, "file_sequence_number", &e->has_file_sequence_number,
                      &e->file_sequence_number);
        f->content = (ice_file_content)json_integer_value(json_object_get(o, "content"));
        f->file_path = json_string_value(json_object_get(o, "file_path"));
        f->file_format = json_string_value(json_object_get(o, "file_format"));
        json_t *pv = json_object_get(o, "partition");
        f->n_partition = ptype.n_fields;
        vec *cols = ARENA_ARRAY(&a, vec, ptype.n_fields ? ptype.n_fields : 1);
        for (uint32_t k = 0; k < ptype.n_fields; k++) {
            sqe_type st;
            if (ice_schema_to_sqe_type(&ptype.fields[k].type, &st, &err) != SQE_OK)
                return fail(&err, "partition type");
            ice_arena_vec_init(&a, &cols[k], st, 1, NULL);
            if (!set_value(&a, &ptype.fields[k].type, &cols[k], json_array_get(pv, k))) {
                fprintf(stderr, "manifest_driver: bad partition value %u of entry %u\n", k, i);
                return 2;
            }
        }
        f->partition = cols;
        f->partition_row = 0;
        f->record_count = json_integer_value(json_object_get(o, "record_count"));
        f->file_size_in_bytes = json_integer_value(json_object_get(o, "file_size_in_bytes"));
        read_counts_json(&a, o, "column_sizes", &f->column_sizes);
        read_counts_json(&a, o, "value_counts", &f->value_counts);
        read_counts_json(&a, o, "null_value_counts", &f->null_value_counts);
        read_counts_json(&a, o, "nan_value_counts", &f->nan_value_counts);
        read_bounds_json(&a, o, "lower_bounds", &f->lower_bounds);
        read_bounds_json(&a, o, "upper_bounds", &f->upper_bounds);
        json_t *so = json_object_get(o, "split_offsets");
        if (so && !json_is_null(so)) {
            f->has_split_offsets = true;
            f->n_split_offsets = (uint32_t)json_array_size(so);
            f->split_offsets = ARENA_ARRAY(&a, int64_t, f->n_split_offsets + 1);
            for (uint32_t k = 0; k < f->n_split_offsets; k++)
                f->split_offsets[k] = json_integer_value(json_array_get(so, k));
        }
        json_t *eq = json_object_get(o, "equality_ids");
        if (eq && !json_is_null(eq)) {
            f->has_equality_ids = true;
            f->n_equality_ids = (uint32_t)json_array_size(eq);
            f->equality_ids = ARENA_ARRAY(&a, int32_t, f->n_equality_ids + 1);
            for (uint32_t k = 0; k < f->n_equality_ids; k++)
                f->equality_ids[k] = (int32_t)json_integer_value(json_array_get(eq, k));
        }
        int64_t x;
        opt_json_long(o, "sort_order_id", &f->has_sort_order_id, &x);
        f->sort_order_id = (int32_t)x;
        opt_json_long(o, "first_row_id", &f->has_first_row_id, &f->first_row_id);
        f->referenced_data_file = json_string_value(json_object_get(o, "referenced_data_file"));
    }
    uint8_t *bytes = NULL;
    size_t blen = 0;
    rc = ice_manifest_write(&wo, entries, n, &bytes, &blen, &err);
    if (rc != SQE_OK) return fail(&err, "ice_manifest_write");
    if (write_file(manifest_out, bytes, blen) != 0) return 2;
    free(bytes);
    ice_manifest_file mf;
    const char *loc = json_string_value(json_object_get(d, "manifest_location"));
    rc = ice_manifest_summarize(&a, &wo, entries, n, loc ? loc : manifest_out, (int64_t)blen, &mf,
                                &err);
    if (rc != SQE_OK) return fail(&err, "ice_manifest_summarize");
    ice_manifest_list_write_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.format_version = wo.format_version;
    lo.snapshot_id = wo.snapshot_id;
    bool has_parent;
    opt_json_long(d, "parent_snapshot_id", &has_parent, &lo.parent_snapshot_id);
    lo.has_parent_snapshot_id = has_parent;
    lo.sequence_number = json_integer_value(json_object_get(d, "sequence_number"));
    lo.first_row_id = json_integer_value(json_object_get(d, "first_row_id"));
    lo.codec = AVRO_CODEC_DEFLATE;
    rc = ice_manifest_list_write(&lo, &mf, 1, &bytes, &blen, NULL, &err);
    if (rc != SQE_OK) return fail(&err, "ice_manifest_list_write");
    if (write_file(list_out, bytes, blen) != 0) return 2;
    free(bytes);
    arena_destroy(&a);
    json_decref(d);
    return 0;
}

static int check_mode(const char *meta_path, const char *path) {
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    memset(&err, 0, sizeof err);
    ice_metadata *m = meta_path ? load_metadata(&a, meta_path, &err) : NULL;
    size_t len;
    uint8_t *buf = read_file(path, &len);
    if (!buf) return 2;
    int rc;
    uint32_t n = 0;
    if (m) {
        ice_manifest *mf = NULL;
        rc = ice_manifest_read(&a, buf, len, m, NULL, &mf, &err);
        if (rc == SQE_OK) n = mf->n_entries;
    } else {
        ice_manifest_file *files;
        rc = ice_manifest_list_read(&a, buf, len, &files, &n, NULL, &err);
    }
    if (rc == SQE_OK) printf("ok %u\n", n);
    else printf("error %s %s\n", err_code_lookup(err.code)->name, err.message);
    free(buf);
    arena_destroy(&a);
    return rc == SQE_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "read") == 0) return read_mode(argv[2], argc > 3 ? argv[3] : NULL);
    if (argc == 3 && strcmp(argv[1], "rewrite") == 0) return rewrite_mode(argv[2]);
    if (argc == 5 && strcmp(argv[1], "write") == 0) return write_mode(argv[2], argv[3], argv[4]);
    if (argc == 3 && strcmp(argv[1], "check-list") == 0) return check_mode(NULL, argv[2]);
    if (argc == 4 && strcmp(argv[1], "check-manifest") == 0) return check_mode(argv[2], argv[3]);
    fprintf(stderr, "usage: manifest_driver read <metadata.json> [<list>] | rewrite <metadata.json> "
                    "| write <desc.json> <manifest> <list> | check-list <file> | "
                    "check-manifest <metadata.json> <file>\n");
    return 2;
}
