/*
 * flight_sqlinfo.c: the CommandGetSqlInfo result: server facts as the Flight SQL schema
 * `info_name: uint32 not null, value: dense_union<string_value: utf8, bool_value: bool,
 * bigint_value: int64, int32_bitmask: int32, string_list: list<utf8>, int32_to_int32_list_map:
 * map<int32, list<int32>>>`, written directly as Arrow IPC (the general encoder has no unions
 * and no unsigned integers).
 *
 * INTERFACE: flight_sqlinfo_encode (flight_int.h).
 * NOTES: union type ids are 0..5 in declaration order (clients read by type code); metadata V5
 * unions have no validity buffer. Only string, bool, bigint and int32 values are produced; the
 * list and map children are always empty.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/arrow/arrow_fbs.h"
#include "format/arrow/flatbuf.h"
#include "server/flight/flight_int.h"

typedef struct info_item {
    uint32_t id;
    int type;               /* union type id 0..3 */
    const char *s;
    int64_t i;
} info_item;

static const info_item *items(size_t *n) {
    static info_item all[] = {
        {0, 0, "SQE", 0},              /* FLIGHT_SQL_SERVER_NAME */
        {1, 0, NULL, 0},               /* FLIGHT_SQL_SERVER_VERSION (filled at run time) */
        {2, 0, "1.0.0", 0},            /* FLIGHT_SQL_SERVER_ARROW_VERSION (IPC format) */
        {3, 1, NULL, 0},               /* FLIGHT_SQL_SERVER_READ_ONLY = false */
        {4, 1, NULL, 1},               /* FLIGHT_SQL_SERVER_SQL = true */
        {5, 1, NULL, 0},               /* FLIGHT_SQL_SERVER_SUBSTRAIT = false */
        {8, 3, NULL, 0},               /* FLIGHT_SQL_SERVER_TRANSACTION = NONE */
        {9, 1, NULL, 1},               /* FLIGHT_SQL_SERVER_CANCEL = true */
        {100, 3, NULL, 0},             /* FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT = none */
        {101, 3, NULL, 0},             /* FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT */
        {500, 1, NULL, 0},             /* SQL_DDL_CATALOG */
        {501, 1, NULL, 1},             /* SQL_DDL_SCHEMA */
        {502, 1, NULL, 1},             /* SQL_DDL_TABLE */
        {503, 3, NULL, 3},             /* SQL_IDENTIFIER_CASE = LOWERCASE */
        {504, 0, "\"", 0},             /* SQL_IDENTIFIER_QUOTE_CHAR */
        {505, 3, NULL, 1},             /* SQL_QUOTED_IDENTIFIER_CASE = CASE_INSENSITIVE */
        {513, 0, "\\", 0},             /* SQL_SEARCH_STRING_ESCAPE */
    };
    all[1].s = sqe_version();
    *n = sizeof all / sizeof all[0];
    return all;
}

/* A Field table; type built by the caller as (arrow_id, type ref). */
static fb_ref field(fb_builder *b, const char *name, bool nullable, uint8_t arrow_id, fb_ref type,
                    fb_ref children) {
    fb_ref nm = fb_create_string(b, name, strlen(name));
    if (!children) children = fb_create_vector_refs(b, NULL, 0);
    fb_table_start(b);
    fb_table_add_ref(b, FIELD_NAME, nm);
    fb_table_add_u8(b, FIELD_NULLABLE, nullable ? 1 : 0);
    fb_table_add_u8(b, FIELD_TYPE_TYPE, arrow_id);
    fb_table_add_ref(b, FIELD_TYPE, type);
    fb_table_add_ref(b, FIELD_CHILDREN, children);
    return fb_table_end(b);
}

static fb_ref int_type(fb_builder *b, int bits, bool is_signed) {
    fb_table_start(b);
    fb_table_add_i32(b, 0, bits);
    fb_table_add_u8(b, 1, is_signed ? 1 : 0);
    return fb_table_end(b);
}

static fb_ref empty_type(fb_builder *b) {
    fb_table_start(b);
    return fb_table_end(b);
}

static int finish(fb_builder *b, fb_ref msg, arrow_buf *out, sqe_error *err) {
    const uint8_t *bytes;
    size_t len;
    int rc = fb_builder_finish(b, msg, &bytes, &len) ? arrow_buf_append(out, bytes, len, err)
                                                       : err_nomem(err, "SqlInfo");
    fb_builder_reset(b);
    return rc;
}

static int encode_schema(arrow_buf *out, sqe_error *err) {
    fb_builder b;
    fb_builder_init(&b);
    fb_ref kids[6];
    kids[0] = field(&b, "string_value", true, ARROW_T_UTF8, empty_type(&b), 0);
    kids[1] = field(&b, "bool_value", true, ARROW_T_BOOL, empty_type(&b), 0);
    kids[2] = field(&b, "bigint_value", true, ARROW_T_INT, int_type(&b, 64, true), 0);
    kids[3] = field(&b, "int32_bitmask", true, ARROW_T_INT, int_type(&b, 32, true), 0);
    fb_ref item = field(&b, "item", true, ARROW_T_UTF8, empty_type(&b), 0);
    kids[4] = field(&b, "string_list", true, ARROW_T_LIST, empty_type(&b), fb_create_vector_refs(&b, &item, 1));
    fb_ref key = field(&b, "key", false, ARROW_T_INT, int_type(&b, 32, true), 0);
    fb_ref vitem = field(&b, "item", true, ARROW_T_INT, int_type(&b, 32, true), 0);
    fb_ref val = field(&b, "value", true, ARROW_T_LIST, empty_type(&b), fb_create_vector_refs(&b, &vitem, 1));
    fb_ref kv[2] = {key, val};
    fb_ref entries = field(&b, "entries", false, ARROW_T_STRUCT, empty_type(&b), fb_create_vector_refs(&b, kv, 2));
    fb_table_start(&b);
    fb_table_add_u8(&b, 0, 0); /* keysSorted */
    fb_ref map_t = fb_table_end(&b);
    kids[5] = field(&b, "int32_to_int32_list_map", true, ARROW_T_MAP, map_t, fb_create_vector_refs(&b, &entries, 1));
    fb_ref union_kids = fb_create_vector_refs(&b, kids, 6);
    int32_t ids[6] = {0, 1, 2, 3, 4, 5};
    fb_ref idv = fb_create_vector(&b, ids, 4, 6, 4);
    fb_table_start(&b);
    fb_table_add_i16(&b, 0, 1); /* mode Dense */
    fb_table_add_ref(&b, 1, idv);
    fb_ref union_t = fb_table_end(&b);
    fb_ref fields[2];
    fields[0] = field(&b, "info_name", false, ARROW_T_INT, int_type(&b, 32, false), 0);
    fields[1] = field(&b, "value", true, ARROW_T_UNION, union_t, union_kids);
    fb_ref fv = fb_create_vector_refs(&b, fields, 2);
    fb_table_start(&b);
    fb_table_add_i16(&b, SCHEMA_ENDIANNESS, 0);
    fb_table_add_ref(&b, SCHEMA_FIELDS, fv);
    fb_ref sch = fb_table_end(&b);
    fb_table_start(&b);
    fb_table_add_i16(&b, MSG_VERSION, ARROW_V5);
    fb_table_add_u8(&b, MSG_HEADER_TYPE, ARROW_MSG_SCHEMA);
    fb_table_add_ref(&b, MSG_HEADER, sch);
    fb_table_add_i64(&b, MSG_BODY_LENGTH, 0);
    return finish(&b, fb_table_end(&b), out, err);
}

typedef struct pair64 {
    int64_t a, b;
} pair64;

/* Appends a buffer (padded to 8) to body and records (offset, length). */
static int put_buf(arrow_buf *body, pair64 *bufs, size_t *nb, const void *data, size_t len,
                   sqe_error *err) {
    bufs[*nb].a = (int64_t)body->len;
    bufs[*nb].b = (int64_t)len;
    (*nb)++;
    if (len) SQE_TRY(arrow_buf_append(body, data, len, err));
    size_t pad = (8 - len % 8) % 8;
    return pad ? arrow_buf_append(body, NULL, pad, err) : SQE_OK;
}

int flight_sqlinfo_encode(const uint32_t *ids, size_t n_ids, arrow_buf *schema_header,
                          arrow_buf *batch_header, arrow_buf *batch_body, sqe_error *err) {
    SQE_TRY(encode_schema(schema_header, err));
    size_t n_all;
    const info_item *all = items(&n_all);
    const info_item *sel[32];
    size_t n = 0;
    for (size_t i = 0; i < n_all; i++) {
        bool want = n_ids == 0;
        for (size_t k = 0; k < n_ids && !want; k++) want = ids[k] == all[i].id;
        if (want) sel[n++] = &all[i];
    }
    uint32_t names[32];
    int8_t types[32];
    int32_t offs[32];
    int32_t cnt[4] = {0, 0, 0, 0};
    int32_t str_off[33];
    char str_data[512];
    uint8_t bools[8] = {0};
    int64_t bigs[32];
    int32_t i32s[32];
    size_t str_len = 0;
    str_off[0] = 0;
    for (size_t i = 0; i < n; i++) {
        names[i] = sel[i]->id;
        types[i] = (int8_t)sel[i]->type;
        offs[i] = cnt[sel[i]->type];
        switch (sel[i]->type) {
        case 0: {
            size_t l = strlen(sel[i]->s);
            if (str_len + l > sizeof str_data) l = 0;
            memcpy(str_data + str_len, sel[i]->s, l);
            str_len += l;
            str_off[cnt[0] + 1] = (int32_t)str_len;
            break;
        }
        case 1:
            if (sel[i]->i) bools[cnt[1] / 8] |= (uint8_t)(1u << (cnt[1] % 8));
            break;
        case 2: bigs[cnt[2]] = sel[i]->i; break;
        default: i32s[cnt[3]] = (int32_t)sel[i]->i; break;
        }
        cnt[sel[i]->type]++;
    }
    pair64 nodes[13], bufs[32];
    size_t nb = 0;
    int64_t zero4 = 0;
    size_t base = batch_body->len;
    int rc = SQE_OK;
    int64_t node_len[13] = {(int64_t)n, (int64_t)n, cnt[0], cnt[1], cnt[2], cnt[3], 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 13; i++) {
        nodes[i].a = node_len[i];
        nodes[i].b = 0;
    }
    rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                          /* info validity */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, names, 4 * n, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, types, n, err);                /* union types */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, offs, 4 * n, err);             /* offsets */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* utf8 */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, str_off, 4 * ((size_t)cnt[0] + 1), err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, str_data, str_len, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* bool */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, bools, ((size_t)cnt[1] + 7) / 8, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* int64 */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, bigs, 8 * (size_t)cnt[2], err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* int32 */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, i32s, 4 * (size_t)cnt[3], err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* list */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, &zero4, 4, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* list item */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, &zero4, 4, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* map */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, &zero4, 4, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* entries */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* key */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* value list */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, &zero4, 4, err);
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);                 /* value item */
    if (!rc) rc = put_buf(batch_body, bufs, &nb, NULL, 0, err);
    if (rc) return rc;
    for (size_t i = 0; i < nb; i++) bufs[i].a -= (int64_t)base;
    fb_builder b;
    fb_builder_init(&b);
    fb_ref nv = fb_create_vector(&b, nodes, sizeof(pair64), 13, 8);
    fb_ref bv = fb_create_vector(&b, bufs, sizeof(pair64), nb, 8);
    fb_table_start(&b);
    fb_table_add_i64(&b, RB_LENGTH, (int64_t)n);
    fb_table_add_ref(&b, RB_NODES, nv);
    fb_table_add_ref(&b, RB_BUFFERS, bv);
    fb_ref rb = fb_table_end(&b);
    fb_table_start(&b);
    fb_table_add_i16(&b, MSG_VERSION, ARROW_V5);
    fb_table_add_u8(&b, MSG_HEADER_TYPE, ARROW_MSG_RECORD_BATCH);
    fb_table_add_ref(&b, MSG_HEADER, rb);
    fb_table_add_i64(&b, MSG_BODY_LENGTH, (int64_t)(batch_body->len - base));
    return finish(&b, fb_table_end(&b), batch_header, err);
}
