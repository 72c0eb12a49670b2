/*
 * manifest_list.c: Iceberg manifest lists (spec "Manifest Lists": manifest_file and
 * field_summary, format v1, v2 and v3), read from and written to Avro container files, plus
 * the field-access helpers of manifest_int.h that manifest.c shares.
 *
 * INTERFACE: ice_manifest_list_read, ice_manifest_list_write
 *            (internal: ice_mf_bad, ice_mf_field, ice_mf_get_*, ice_mf_parse_long,
 *             ice_mf_wfield, ice_mf_wnull, ice_mf_wsome, ice_mf_schema_field)
 * NOTES:
 *   - Fields are looked up by field id, so renamed fields of old writers (Java once wrote
 *     "added_data_files_count") and reordered fields read right; fields of unknown ids are
 *     skipped. Every present field must have the Avro type the spec gives it.
 *   - v1 lists read with content 0 and sequence numbers 0 (Appendix E); files whose header says
 *     format-version >= 2 must carry the v2-required fields.
 *   - The writer's schemas are Iceberg Java's V1Metadata / V2Metadata / V3Metadata
 *     MANIFEST_LIST_SCHEMA: record "manifest_file", summaries record "r508", optional fields as
 *     ["null", T] with default null. Header keys as Java's ManifestListWriter writes them:
 *     snapshot-id, parent-snapshot-id ("null" without a parent), sequence-number (v2+),
 *     first-row-id (v3), format-version.
 */
#include "iceberg/manifest_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ------------------------------------------------------------------------ */

int ice_mf_bad(ice_mf_ctx *c, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(c->err, SQE_ERR_INVALID_FILE, "Invalid Iceberg %s: %s", c->kind, msg);
}

const avro_value *ice_mf_field(const avro_value *rec, int32_t id, const char *name,
                               bool *present) {
    if (present) *present = false;
    if (!rec || !rec->schema || rec->schema->type != AVRO_RECORD) return NULL;
    const avro_schema *s = rec->schema;
    int found = -1;
    for (uint32_t i = 0; i < s->n_fields; i++) {
        if (s->fields[i].has_field_id && s->fields[i].field_id == id) {
            found = (int)i;
            break;
        }
    }
    if (found < 0 && name) {
        for (uint32_t i = 0; i < s->n_fields; i++) {
            if (!s->fields[i].has_field_id && strcmp(s->fields[i].name, name) == 0) {
                found = (int)i;
                break;
            }
        }
    }
    if (found < 0) return NULL;
    if (present) *present = true;
    const avro_value *v = avro_value_unwrap(&rec->rec.fields[found]);
    if (avro_value_is_null(v)) return NULL;
    return v;
}

static int missing(ice_mf_ctx *c, const char *path) {
    return ice_mf_bad(c, "%s: missing required field", path);
}

static int wrong(ice_mf_ctx *c, const char *path, const avro_value *v, const char *want) {
    return ice_mf_bad(c, "%s: expected Avro %s, found %s", path, want,
                      avro_type_name(v->schema->type));
}

int ice_mf_get_int(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                   bool required, bool *has, int32_t *out) {
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    if (has) *has = false;
    if (!v) return required ? missing(c, path) : SQE_OK;
    if (v->schema->type != AVRO_INT) return wrong(c, path, v, "int");
    *out = v->i;
    if (has) *has = true;
    return SQE_OK;
}

int ice_mf_get_long(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                    bool required, bool *has, int64_t *out) {
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    if (has) *has = false;
    if (!v) return required ? missing(c, path) : SQE_OK;
    if (v->schema->type == AVRO_LONG) *out = v->l;
    else if (v->schema->type == AVRO_INT) *out = v->i;
    else return wrong(c, path, v, "long");
    if (has) *has = true;
    return SQE_OK;
}

int ice_mf_get_bool(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                    bool required, bool *has, bool *out) {
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    if (has) *has = false;
    if (!v) return required ? missing(c, path) : SQE_OK;
    if (v->schema->type != AVRO_BOOLEAN) return wrong(c, path, v, "boolean");
    *out = v->b;
    if (has) *has = true;
    return SQE_OK;
}

int ice_mf_get_string(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                      bool required, const char **out) {
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    *out = NULL;
    if (!v) return required ? missing(c, path) : SQE_OK;
    if (v->schema->type != AVRO_STRING) return wrong(c, path, v, "string");
    if (memchr(v->bytes.data, 0, v->bytes.len))
        return ice_mf_bad(c, "%s: string contains a NUL byte", path);
    *out = (const char *)v->bytes.data;
    return SQE_OK;
}

int ice_mf_get_bytes(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                     bool required, bool *has, ice_bytes *out) {
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    if (has) *has = false;
    if (!v) return required ? missing(c, path) : SQE_OK;
    if (v->schema->type != AVRO_BYTES && v->schema->type != AVRO_FIXED)
        return wrong(c, path, v, "bytes");
    out->data = v->bytes.data;
    out->len = v->bytes.len;
    if (has) *has = true;
    return SQE_OK;
}

bool ice_mf_parse_long(const uint8_t *text, size_t len, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (len && (text[0] == '-' || text[0] == '+')) {
        neg = text[0] == '-';
        i = 1;
    }
    if (i >= len || len - i > 19) return false;
    uint64_t x = 0;
    for (; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return false;
        x = x * 10 + (uint64_t)(text[i] - '0');
    }
    if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX) return false;
    *out = neg ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

avro_value *ice_mf_wfield(arena *a, avro_value *rec, const avro_schema *s, const char *name) {
    uint32_t idx;
    if (!avro_schema_field(s, name, &idx)) return NULL;
    if (!rec->rec.fields) {
        rec->rec.fields = ARENA_ARRAY(a, avro_value, s->n_fields ? s->n_fields : 1);
        if (!rec->rec.fields) return NULL;
        rec->schema = s;
        /* Every optional field starts as null: the writer needs a value for each field. */
        for (uint32_t i = 0; i < s->n_fields; i++)
            if (s->fields[i].type->type == AVRO_UNION) ice_mf_wnull(&rec->rec.fields[i]);
    }
    return &rec->rec.fields[idx];
}

/* The value behind a null branch: never written to (the writer reads nothing of it). */
static avro_value null_value;

void ice_mf_wnull(avro_value *v) {
    v->u.branch = 0;
    v->u.value = &null_value;
}

avro_value *ice_mf_wsome(arena *a, avro_value *v) {
    avro_value *inner = ARENA_NEW(a, avro_value);
    if (!inner) return NULL;
    v->u.branch = 1;
    v->u.value = inner;
    return inner;
}

void ice_mf_schema_field(strbuf *sb, bool *first, const char *name, const char *type_json,
                         bool optional, int32_t field_id) {
    if (!*first) strbuf_putc(sb, ',');
    *first = false;
    if (optional)
        strbuf_printf(sb, "{\"name\":\"%s\",\"type\":[\"null\",%s],\"default\":null,\"field-id\":%d}",
                      name, type_json, field_id);
    else
        strbuf_printf(sb, "{\"name\":\"%s\",\"type\":%s,\"field-id\":%d}", name, type_json,
                      field_id);
}

/* ---- reading ------------------------------------------------------------------------------- */

static int meta_long(ice_mf_ctx *c, avro_reader *r, const char *key, bool *has, int64_t *out) {
    size_t len;
    const uint8_t *v = avro_reader_meta(r, key, &len);
    *has = false;
    if (!v) return SQE_OK;
    if (len == 4 && memcmp(v, "null", 4) == 0) return SQE_OK;
    if (!ice_mf_parse_long(v, len, out))
        return ice_mf_bad(c, "header \"%s\" is not an integer", key);
    *has = true;
    return SQE_OK;
}

static int read_summary(ice_mf_ctx *c, const avro_value *v, uint32_t idx, ice_field_summary *fs) {
    char path[64];
    v = avro_value_unwrap(v);
    if (!v || !v->schema || v->schema->type != AVRO_RECORD)
        return ice_mf_bad(c, "partitions[%u]: expected a field_summary record", idx);
    bool has;
    snprintf(path, sizeof path, "partitions[%u].contains_null", idx);
    SQE_TRY(ice_mf_get_bool(c, v, 509, path, true, NULL, &fs->contains_null));
    bool nan = false;
    snprintf(path, sizeof path, "partitions[%u].contains_nan", idx);
    SQE_TRY(ice_mf_get_bool(c, v, 518, path, false, &has, &nan));
    fs->contains_nan = has ? (nan ? 1 : 0) : -1;
    snprintf(path, sizeof path, "partitions[%u].lower_bound", idx);
    SQE_TRY(ice_mf_get_bytes(c, v, 510, path, false, &fs->has_lower, &fs->lower));
    snprintf(path, sizeof path, "partitions[%u].upper_bound", idx);
    SQE_TRY(ice_mf_get_bytes(c, v, 511, path, false, &fs->has_upper, &fs->upper));
    return SQE_OK;
}

static int nonneg(ice_mf_ctx *c, bool has, int64_t v, const char *path) {
    if (has && v < 0) return ice_mf_bad(c, "%s: negative value %" PRId64, path, v);
    return SQE_OK;
}

static int read_manifest_file(ice_mf_ctx *c, const avro_value *rec, int version, uint32_t idx,
                              ice_manifest_file *mf) {
    memset(mf, 0, sizeof *mf);
    bool v2 = version >= 2;
    bool has;
    int32_t content = 0;
    SQE_TRY(ice_mf_get_string(c, rec, 500, "manifest_path", true, &mf->manifest_path));
    SQE_TRY(ice_mf_get_long(c, rec, 501, "manifest_length", true, NULL, &mf->manifest_length));
    SQE_TRY(nonneg(c, true, mf->manifest_length, "manifest_length"));
    SQE_TRY(ice_mf_get_int(c, rec, 502, "partition_spec_id", true, NULL, &mf->partition_spec_id));
    SQE_TRY(ice_mf_get_int(c, rec, 517, "content", v2, &has, &content));
    if (content != 0 && content != 1)
        return ice_mf_bad(c, "content: %d is not 0 (data) or 1 (deletes)", content);
    mf->content = (ice_manifest_content)content;
    SQE_TRY(ice_mf_get_long(c, rec, 515, "sequence_number", v2, &mf->has_sequence_number,
                            &mf->sequence_number));
    SQE_TRY(ice_mf_get_long(c, rec, 516, "min_sequence_number", v2,
                            &mf->has_min_sequence_number, &mf->min_sequence_number));
    SQE_TRY(ice_mf_get_long(c, rec, 503, "added_snapshot_id", true, NULL, &mf->added_snapshot_id));
    SQE_TRY(ice_mf_get_int(c, rec, 504, "added_files_count", v2, &mf->has_added_files_count,
                           &mf->added_files_count));
    SQE_TRY(ice_mf_get_int(c, rec, 505, "existing_files_count", v2,
                           &mf->has_existing_files_count, &mf->existing_files_count));
    SQE_TRY(ice_mf_get_int(c, rec, 506, "deleted_files_count", v2,
                           &mf->has_deleted_files_count, &mf->deleted_files_count));
    SQE_TRY(ice_mf_get_long(c, rec, 512, "added_rows_count", v2, &mf->has_added_rows_count,
                            &mf->added_rows_count));
    SQE_TRY(ice_mf_get_long(c, rec, 513, "existing_rows_count", v2,
                            &mf->has_existing_rows_count, &mf->existing_rows_count));
    SQE_TRY(ice_mf_get_long(c, rec, 514, "deleted_rows_count", v2,
                            &mf->has_deleted_rows_count, &mf->deleted_rows_count));
    SQE_TRY(nonneg(c, mf->has_added_files_count, mf->added_files_count, "added_files_count"));
    SQE_TRY(nonneg(c, mf->has_existing_files_count, mf->existing_files_count,
                   "existing_files_count"));
    SQE_TRY(nonneg(c, mf->has_deleted_files_count, mf->deleted_files_count,
                   "deleted_files_count"));
    SQE_TRY(nonneg(c, mf->has_added_rows_count, mf->added_rows_count, "added_rows_count"));
    SQE_TRY(nonneg(c, mf->has_existing_rows_count, mf->existing_rows_count,
                   "existing_rows_count"));
    SQE_TRY(nonneg(c, mf->has_deleted_rows_count, mf->deleted_rows_count, "deleted_rows_count"));
    const avro_value *parts = ice_mf_field(rec, 507, NULL, NULL);
    if (parts) {
        if (parts->schema->type != AVRO_ARRAY) return wrong(c, "partitions", parts, "array");
        mf->has_partitions = true;
        mf->n_partitions = parts->arr.n;
        if (parts->arr.n) {
            mf->partitions = ARENA_ARRAY(c->a, ice_field_summary, parts->arr.n);
            if (!mf->partitions) return err_nomem(c->err, "manifest list");
        }
        for (uint32_t i = 0; i < parts->arr.n; i++)
            SQE_TRY(read_summary(c, &parts->arr.items[i], i, &mf->partitions[i]));
    }
    SQE_TRY(ice_mf_get_bytes(c, rec, 519, "key_metadata", false, &mf->has_key_metadata,
                             &mf->key_metadata));
    SQE_TRY(ice_mf_get_long(c, rec, 520, "first_row_id", false, &mf->has_first_row_id,
                            &mf->first_row_id));
    SQE_TRY(nonneg(c, mf->has_first_row_id, mf->first_row_id, "first_row_id"));
    if (!v2) { /* Appendix E: read v1 lists with sequence numbers 0 */
        if (!mf->has_sequence_number) mf->sequence_number = 0;
        if (!mf->has_min_sequence_number) mf->min_sequence_number = 0;
    }
    (void)idx;
    return SQE_OK;
}

int ice_manifest_list_read(arena *a, const uint8_t *buf, size_t len, ice_manifest_file **out,
                           uint32_t *n, ice_manifest_list_info *info, sqe_error *err) {
    ice_mf_ctx c = {a, err, "manifest list"};
    avro_reader *r = NULL;
    SQE_TRY(avro_reader_open(buf, len, a, &r, err));
    int rc = SQE_OK;
    ice_manifest_list_info li;
    memset(&li, 0, sizeof li);
    li.format_version = 1;
    bool has_version;
    int64_t version = 1;
    ice_manifest_file *files = NULL;
    uint32_t count = 0, cap = 0;
    if ((rc = meta_long(&c, r, "format-version", &has_version, &version)) != SQE_OK) goto out_close;
    if (has_version && (version < 1 || version > ICE_FORMAT_VERSION_MAX)) {
        rc = has_version && version > ICE_FORMAT_VERSION_MAX
                 ? err_set(err, SQE_ERR_NOT_SUPPORTED,
                           "unsupported: Iceberg manifest list format version %" PRId64, version)
                 : ice_mf_bad(&c, "format-version %" PRId64 " is not valid", version);
        goto out_close;
    }
    li.format_version = (int)version;
    if ((rc = meta_long(&c, r, "snapshot-id", &li.has_snapshot_id, &li.snapshot_id)) ||
        (rc = meta_long(&c, r, "parent-snapshot-id", &li.has_parent_snapshot_id,
                        &li.parent_snapshot_id)) ||
        (rc = meta_long(&c, r, "sequence-number", &li.has_sequence_number, &li.sequence_number)) ||
        (rc = meta_long(&c, r, "first-row-id", &li.has_first_row_id, &li.first_row_id)))
        goto out_close;
    if (avro_reader_schema(r)->type != AVRO_RECORD) {
        rc = ice_mf_bad(&c, "the file's schema is not a record");
        goto out_close;
    }
    for (;;) {
        avro_value *rec = NULL;
        if ((rc = avro_reader_next(r, &rec, err)) != SQE_OK) goto out_close;
        if (!rec) break;
        if (count == cap) {
            uint32_t ncap = cap ? cap * 2 : 8;
            ice_manifest_file *nf = ARENA_ARRAY(a, ice_manifest_file, ncap);
            if (!nf) {
                rc = err_nomem(err, "manifest list");
                goto out_close;
            }
            if (count) memcpy(nf, files, sizeof *files * count);
            files = nf;
            cap = ncap;
        }
        rc = read_manifest_file(&c, rec, li.format_version, count, &files[count]);
        if (rc != SQE_OK) {
            char msg[sizeof err->message];
            if (err) {
                snprintf(msg, sizeof msg, "%s", err->message);
                /* Name the entry: "Invalid Iceberg manifest list: entry 3: ...". */
                const char *tail = strstr(msg, "manifest list: ");
                if (tail) err_set(err, rc, "Invalid Iceberg manifest list: entry %u: %s", count,
                                  tail + strlen("manifest list: "));
            }
            goto out_close;
        }
        count++;
    }
    *out = files;
    *n = count;
    if (info) *info = li;
out_close:
    avro_reader_close(r);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------- */

static const char summary_type[] =
    "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"r508\",\"fields\":["
    "{\"name\":\"contains_null\",\"type\":\"boolean\",\"field-id\":509},"
    "{\"name\":\"contains_nan\",\"type\":[\"null\",\"boolean\"],\"default\":null,\"field-id\":518},"
    "{\"name\":\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":510},"
    "{\"name\":\"upper_bound\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":511}"
    "]},\"element-id\":508}";

/* The manifest_file schema of a format version (Java's V<n>Metadata.MANIFEST_LIST_SCHEMA). */
static void list_schema(strbuf *sb, int version) {
    bool first = true;
    bool v2 = version >= 2;
    strbuf_puts(sb, "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":[");
    ice_mf_schema_field(sb, &first, "manifest_path", "\"string\"", false, 500);
    ice_mf_schema_field(sb, &first, "manifest_length", "\"long\"", false, 501);
    ice_mf_schema_field(sb, &first, "partition_spec_id", "\"int\"", false, 502);
    if (v2) {
        ice_mf_schema_field(sb, &first, "content", "\"int\"", false, 517);
        ice_mf_schema_field(sb, &first, "sequence_number", "\"long\"", false, 515);
        ice_mf_schema_field(sb, &first, "min_sequence_number", "\"long\"", false, 516);
    }
    ice_mf_schema_field(sb, &first, "added_snapshot_id", "\"long\"", false, 503);
    ice_mf_schema_field(sb, &first, "added_files_count", "\"int\"", !v2, 504);
    ice_mf_schema_field(sb, &first, "existing_files_count", "\"int\"", !v2, 505);
    ice_mf_schema_field(sb, &first, "deleted_files_count", "\"int\"", !v2, 506);
    if (!v2) ice_mf_schema_field(sb, &first, "partitions", summary_type, true, 507);
    ice_mf_schema_field(sb, &first, "added_rows_count", "\"long\"", !v2, 512);
    ice_mf_schema_field(sb, &first, "existing_rows_count", "\"long\"", !v2, 513);
    ice_mf_schema_field(sb, &first, "deleted_rows_count", "\"long\"", !v2, 514);
    if (v2) ice_mf_schema_field(sb, &first, "partitions", summary_type, true, 507);
    ice_mf_schema_field(sb, &first, "key_metadata", "\"bytes\"", true, 519);
    if (version >= 3) ice_mf_schema_field(sb, &first, "first_row_id", "\"long\"", true, 520);
    strbuf_puts(sb, "]}");
}

static int bad_arg(sqe_error *err, const char *what, uint32_t idx) {
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "cannot write Iceberg manifest list: file %u: %s",
                   idx, what);
}

/* Sets field name (required or optional) to an int/long/bytes value. */
static int put_long_field(arena *a, avro_value *rec, const avro_schema *s, const char *name,
                          bool has, int64_t v, bool is_int) {
    avro_value *f = ice_mf_wfield(a, rec, s, name);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    uint32_t idx;
    const avro_field *fd = avro_schema_field(s, name, &idx);
    if (fd->type->type == AVRO_UNION) {
        if (!has) {
            ice_mf_wnull(f);
            return SQE_OK;
        }
        f = ice_mf_wsome(a, f);
        if (!f) return SQE_ERR_OUT_OF_MEMORY;
    }
    if (is_int) f->i = (int32_t)v;
    else f->l = v;
    return SQE_OK;
}

static int put_bytes_field(arena *a, avro_value *rec, const avro_schema *s, const char *name,
                           bool has, ice_bytes b) {
    avro_value *f = ice_mf_wfield(a, rec, s, name);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    if (!has) {
        ice_mf_wnull(f);
        return SQE_OK;
    }
    f = ice_mf_wsome(a, f);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    f->bytes.data = b.data;
    f->bytes.len = b.len;
    return SQE_OK;
}

static int build_summaries(arena *a, avro_value *rec, const avro_schema *s,
                           const ice_manifest_file *mf) {
    avro_value *f = ice_mf_wfield(a, rec, s, "partitions");
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    if (!mf->has_partitions) {
        ice_mf_wnull(f);
        return SQE_OK;
    }
    uint32_t idx;
    const avro_schema *arr_s = avro_schema_field(s, "partitions", &idx)->type->branches[1];
    const avro_schema *sum_s = arr_s->items;
    avro_value *arr = ice_mf_wsome(a, f);
    if (!arr) return SQE_ERR_OUT_OF_MEMORY;
    arr->arr.n = mf->n_partitions;
    if (mf->n_partitions) {
        arr->arr.items = ARENA_ARRAY(a, avro_value, mf->n_partitions);
        if (!arr->arr.items) return SQE_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < mf->n_partitions; i++) {
        const ice_field_summary *fs = &mf->partitions[i];
        avro_value *sv = &arr->arr.items[i];
        avro_value *cn = ice_mf_wfield(a, sv, sum_s, "contains_null");
        if (!cn) return SQE_ERR_OUT_OF_MEMORY;
        cn->b = fs->contains_null;
        avro_value *nan = ice_mf_wfield(a, sv, sum_s, "contains_nan");
        if (fs->contains_nan >= 0) {
            nan = ice_mf_wsome(a, nan);
            if (!nan) return SQE_ERR_OUT_OF_MEMORY;
            nan->b = fs->contains_nan == 1;
        }
        if (put_bytes_field(a, sv, sum_s, "lower_bound", fs->has_lower, fs->lower) ||
            put_bytes_field(a, sv, sum_s, "upper_bound", fs->has_upper, fs->upper))
            return SQE_ERR_OUT_OF_MEMORY;
    }
    return SQE_OK;
}

int ice_manifest_list_write(const ice_manifest_list_write_opts *opts,
                            const ice_manifest_file *files, uint32_t n, uint8_t **bytes,
                            size_t *len, int64_t *next_row_id, sqe_error *err) {
    *bytes = NULL;
    *len = 0;
    int version = opts->format_version ? opts->format_version : 2;
    if (version < 1 || version > ICE_FORMAT_VERSION_MAX)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "cannot write Iceberg manifest list: format version %d", version);
    bool v2 = version >= 2;
    for (uint32_t i = 0; i < n; i++) {
        const ice_manifest_file *mf = &files[i];
        if (!mf->manifest_path) return bad_arg(err, "no manifest_path", i);
        if (mf->manifest_length < 0) return bad_arg(err, "negative manifest_length", i);
        if (mf->content != ICE_MANIFEST_DATA && mf->content != ICE_MANIFEST_DELETES)
            return bad_arg(err, "bad content", i);
        if (!v2 && mf->content != ICE_MANIFEST_DATA)
            return bad_arg(err, "format v1 has no delete manifests", i);
        if (v2 && !(mf->has_added_files_count && mf->has_existing_files_count &&
                    mf->has_deleted_files_count && mf->has_added_rows_count &&
                    mf->has_existing_rows_count && mf->has_deleted_rows_count))
            return bad_arg(err, "format v2 requires all file and row counts", i);
        if (mf->added_files_count < 0 || mf->existing_files_count < 0 ||
            mf->deleted_files_count < 0 || mf->added_rows_count < 0 ||
            mf->existing_rows_count < 0 || mf->deleted_rows_count < 0)
            return bad_arg(err, "negative count", i);
        if (mf->has_partitions && mf->n_partitions && !mf->partitions)
            return bad_arg(err, "partition summaries missing", i);
    }
    strbuf schema;
    strbuf_init(&schema);
    list_schema(&schema, version);
    if (schema.failed) {
        strbuf_reset(&schema);
        return err_nomem(err, "manifest list schema");
    }
    char snap[24], parent[24], seq[24], frid[24], ver[4];
    snprintf(snap, sizeof snap, "%" PRId64, opts->snapshot_id);
    if (opts->has_parent_snapshot_id)
        snprintf(parent, sizeof parent, "%" PRId64, opts->parent_snapshot_id);
    else
        snprintf(parent, sizeof parent, "null");
    snprintf(seq, sizeof seq, "%" PRId64, opts->sequence_number);
    snprintf(frid, sizeof frid, "%" PRId64, opts->first_row_id);
    snprintf(ver, sizeof ver, "%d", version);
    avro_kv meta[5];
    uint32_t n_meta = 0;
    meta[n_meta++] = (avro_kv){"snapshot-id", (const uint8_t *)snap, strlen(snap)};
    meta[n_meta++] = (avro_kv){"parent-snapshot-id", (const uint8_t *)parent, strlen(parent)};
    if (v2) meta[n_meta++] = (avro_kv){"sequence-number", (const uint8_t *)seq, strlen(seq)};
    if (version >= 3) meta[n_meta++] = (avro_kv){"first-row-id", (const uint8_t *)frid, strlen(frid)};
    meta[n_meta++] = (avro_kv){"format-version", (const uint8_t *)ver, strlen(ver)};
    avro_writer_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.codec = opts->codec;
    wo.sync = opts->sync;
    avro_writer *w = NULL;
    int rc = avro_writer_open(schema.data, schema.len, meta, n_meta, &wo, &w, err);
    strbuf_reset(&schema);
    if (rc != SQE_OK) return rc;
    const avro_schema *s = avro_writer_schema(w);
    arena *a = avro_writer_arena(w);
    int64_t next_id = opts->first_row_id;
    for (uint32_t i = 0; i < n && rc == SQE_OK; i++) {
        const ice_manifest_file *mf = &files[i];
        avro_value rec;
        memset(&rec, 0, sizeof rec);
        avro_value *f = ice_mf_wfield(a, &rec, s, "manifest_path");
        if (!f) {
            rc = err_nomem(err, "manifest list");
            break;
        }
        f->bytes.data = (const uint8_t *)mf->manifest_path;
        f->bytes.len = strlen(mf->manifest_path);
        int64_t seqno = mf->sequence_number == ICE_SEQ_UNASSIGNED || !mf->has_sequence_number
                            ? opts->sequence_number
                            : mf->sequence_number;
        int64_t min_seq = mf->min_sequence_number == ICE_SEQ_UNASSIGNED || !mf->has_min_sequence_number
                              ? opts->sequence_number
                              : mf->min_sequence_number;
        bool has_frid = mf->has_first_row_id;
        int64_t frid_v = mf->first_row_id;
        if (version >= 3 && !has_frid && mf->content == ICE_MANIFEST_DATA) {
            has_frid = true;
            frid_v = next_id;
            next_id += mf->added_rows_count + mf->existing_rows_count;
        }
        int bad = put_long_field(a, &rec, s, "manifest_length", true, mf->manifest_length, false) ||
                  put_long_field(a, &rec, s, "partition_spec_id", true, mf->partition_spec_id, true) ||
                  put_long_field(a, &rec, s, "added_snapshot_id", true, mf->added_snapshot_id, false) ||
                  put_long_field(a, &rec, s, "added_files_count", mf->has_added_files_count,
                                 mf->added_files_count, true) ||
                  put_long_field(a, &rec, s, "existing_files_count", mf->has_existing_files_count,
                                 mf->existing_files_count, true) ||
                  put_long_field(a, &rec, s, "deleted_files_count", mf->has_deleted_files_count,
                                 mf->deleted_files_count, true) ||
                  put_long_field(a, &rec, s, "added_rows_count", mf->has_added_rows_count,
                                 mf->added_rows_count, false) ||
                  put_long_field(a, &rec, s, "existing_rows_count", mf->has_existing_rows_count,
                                 mf->existing_rows_count, false) ||
                  put_long_field(a, &rec, s, "deleted_rows_count", mf->has_deleted_rows_count,
                                 mf->deleted_rows_count, false) ||
                  build_summaries(a, &rec, s, mf) ||
                  put_bytes_field(a, &rec, s, "key_metadata", mf->has_key_metadata,
                                  mf->key_metadata);
        if (!bad && v2)
            bad = put_long_field(a, &rec, s, "content", true, mf->content, true) ||
                  put_long_field(a, &rec, s, "sequence_number", true, seqno, false) ||
                  put_long_field(a, &rec, s, "min_sequence_number", true, min_seq, false);
        if (!bad && version >= 3)
            bad = put_long_field(a, &rec, s, "first_row_id", has_frid, frid_v, false);
        if (bad) {
            rc = err_nomem(err, "manifest list");
            break;
        }
        rc = avro_writer_append(w, &rec, err);
    }
    if (rc == SQE_OK) rc = avro_writer_finish(w, bytes, len, err);
    avro_writer_destroy(w);
    if (rc == SQE_OK && next_row_id) *next_row_id = next_id;
    return rc;
}
