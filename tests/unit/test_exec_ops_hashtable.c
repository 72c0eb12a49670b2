/*
 * test_exec_ops_hashtable.c: unit tests of the row format and the salted hash tables of the
 * heavy operators (exec/hashtable.c): find-or-create with many keys, strings, NULL groups,
 * collisions, directory growth and clearing, row-vs-row merging, join chains, scatter/gather
 * round trips for every fixed-width type and nested values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hash.h"
#include "exec/hashtable.h"

static mem_tracker g_tracker;

static void make_vec(vec *v, sqe_type t, uint32_t n) {
    assert_int_equal(vec_init(v, t, n, &g_tracker, NULL), SQE_OK);
}

/* Builds a varchar vector from C strings (NULL = SQL NULL). */
static void fill_str(vec *v, uint32_t row, const char *s) {
    if (!s) {
        vec_set_null(v, row);
        return;
    }
    bool ok = true;
    VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, s, (uint32_t)strlen(s), &ok);
    assert_true(ok);
}

typedef struct agg_fixture {
    exec_row_layout layout;
    arena a;
    exec_ht ht;
    exec_row_store stores[4];
    exec_ht_scratch *sc;
    uint32_t radix_bits;
} agg_fixture;

static void fixture_init(agg_fixture *f, const sqe_type *types, uint32_t n, uint32_t payload,
                         uint64_t cap) {
    arena_init(&f->a, &g_tracker);
    assert_int_equal(exec_row_layout_init(&f->layout, &f->a, types, n, false, payload, NULL), 0);
    assert_int_equal(exec_ht_init(&f->ht, cap, &g_tracker, NULL), 0);
    f->radix_bits = 2;
    for (int i = 0; i < 4; i++) exec_row_store_init(&f->stores[i], &f->layout, &g_tracker);
    f->sc = malloc(sizeof(exec_ht_scratch));
}

static void fixture_destroy(agg_fixture *f) {
    for (int i = 0; i < 4; i++) exec_row_store_destroy(&f->stores[i]);
    exec_ht_destroy(&f->ht);
    arena_destroy(&f->a);
    free(f->sc);
}

static uint64_t store_rows(agg_fixture *f) {
    uint64_t n = 0;
    for (int i = 0; i < 4; i++) n += f->stores[i].n_rows;
    return n;
}

/* Runs find_or_create for one chunk of key vectors; counts into payload (int64 at offset 0). */
static void agg_chunk(agg_fixture *f, vec *keys, uint32_t n_keys, uint32_t count) {
    uint64_t hashes[VEC_CHUNK_SIZE];
    vec_view views[4];
    const vec *kv[4];
    for (uint32_t k = 0; k < n_keys; k++) {
        exec_hash_vec(&keys[k], NULL, count, hashes, k > 0);
        vec_view_init_buf(&views[k], &keys[k], count, f->sc->idxbuf[k]);
        kv[k] = &keys[k];
    }
    if (f->ht.count + count > (f->ht.mask + 1) / 2)
        assert_int_equal(exec_ht_resize(&f->ht, exec_ht_capacity_for(f->ht.count + count), NULL), 0);
    uint8_t *rows[VEC_CHUNK_SIZE];
    uint32_t new_idx[VEC_CHUNK_SIZE], n_new = 0;
    assert_int_equal(exec_agg_ht_find_or_create(&f->ht, &f->layout, n_keys, views, kv, NULL, hashes,
                                                count, f->stores, f->radix_bits, rows, new_idx,
                                                &n_new, f->sc, NULL),
                     0);
    for (uint32_t i = 0; i < count; i++) {
        int64_t c;
        memcpy(&c, rows[i] + f->layout.payload_offset, 8);
        c++;
        memcpy(rows[i] + f->layout.payload_offset, &c, 8);
    }
}

static void test_many_int_keys(void **state) {
    (void)state;
    sqe_type t = type_make(TYPE_BIGINT);
    agg_fixture f;
    fixture_init(&f, &t, 1, 8, 16);
    vec keys;
    make_vec(&keys, t, VEC_CHUNK_SIZE);
    /* 200k rows over 50k distinct keys (each 4 times), incl. negative values */
    const uint32_t distinct = 50000;
    uint32_t total = 0;
    while (total < 4 * distinct) {
        uint32_t n = VEC_CHUNK_SIZE;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = (total + i) % distinct;
            VEC_DATA(&keys, int64_t)[i] = (int64_t)x * 7919 - 100000;
        }
        agg_chunk(&f, &keys, 1, n);
        total += n;
    }
    assert_int_equal(store_rows(&f), distinct);
    assert_int_equal(f.ht.count, distinct);
    /* every group counted 4 or 5 times (total is not a multiple) */
    uint64_t sum = 0;
    for (int p = 0; p < 4; p++)
        for (exec_row_block *b = f.stores[p].head; b; b = b->next)
            for (uint32_t r = 0; r < b->n_rows; r++) {
                int64_t c;
                memcpy(&c, b->rows + (size_t)r * f.layout.row_width + f.layout.payload_offset, 8);
                assert_true(c >= 4 && c <= 5);
                sum += (uint64_t)c;
                /* the row's partition matches its hash */
                uint64_t h = exec_row_hash(b->rows + (size_t)r * f.layout.row_width);
                assert_int_equal(exec_radix_of(h, 2), (uint32_t)p);
            }
    assert_int_equal(sum, total);
    vec_destroy(&keys);
    fixture_destroy(&f);
}

static void test_string_and_null_keys(void **state) {
    (void)state;
    sqe_type t[2] = {type_varchar(0), type_make(TYPE_INTEGER)};
    agg_fixture f;
    fixture_init(&f, t, 2, 8, 16);
    vec keys[2];
    make_vec(&keys[0], t[0], 64);
    make_vec(&keys[1], t[1], 64);
    const char *strs[] = {"a", "", "abcdefghijkl", "abcdefghijklm", "abcdefghijklmn",
                          "a long string with a common prefix 1",
                          "a long string with a common prefix 2", NULL};
    uint32_t n = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int s = 0; s < 8; s++)
            for (int k = 0; k < 2; k++) {
                fill_str(&keys[0], n, strs[s]);
                if (k == 0)
                    vec_set_null(&keys[1], n);
                else
                    VEC_DATA(&keys[1], int32_t)[n] = 42;
                n++;
            }
    agg_chunk(&f, keys, 2, n);
    assert_int_equal(store_rows(&f), 16);
    /* again in a second batch: no new groups, strings compare against stored copies */
    vec_destroy(&keys[0]);
    make_vec(&keys[0], t[0], 64);
    for (uint32_t i = 0; i < n; i++) fill_str(&keys[0], i, strs[(i / 2) % 8]);
    agg_chunk(&f, keys, 2, n);
    assert_int_equal(store_rows(&f), 16);
    /* gather the keys back */
    uint8_t *rows[16];
    uint32_t k = 0;
    for (int p = 0; p < 4; p++)
        for (exec_row_block *b = f.stores[p].head; b; b = b->next)
            for (uint32_t r = 0; r < b->n_rows; r++) rows[k++] = b->rows + (size_t)r * f.layout.row_width;
    vec out;
    make_vec(&out, t[0], 16);
    assert_int_equal(exec_row_gather(&f.layout, 0, rows, 16, &out, 0, NULL), 0);
    int seen[8] = {0};
    for (uint32_t i = 0; i < 16; i++) {
        int64_t c;
        memcpy(&c, rows[i] + f.layout.payload_offset, 8);
        assert_int_equal(c, 6);
        if (!vec_is_valid_flat(&out, i)) {
            seen[7]++;
            continue;
        }
        const sqe_str *sv = &VEC_DATA(&out, sqe_str)[i];
        for (int s = 0; s < 7; s++)
            if (sv->len == strlen(strs[s]) && memcmp(sqe_str_data(sv), strs[s], sv->len) == 0) seen[s]++;
    }
    for (int s = 0; s < 8; s++) assert_int_equal(seen[s], 2);
    vec_destroy(&out);
    vec_destroy(&keys[0]);
    vec_destroy(&keys[1]);
    fixture_destroy(&f);
}

/* Keys whose hashes collide in the low bits: a tiny directory forces long probe sequences. */
static void test_collisions_and_clear(void **state) {
    (void)state;
    sqe_type t = type_make(TYPE_DOUBLE);
    agg_fixture f;
    fixture_init(&f, &t, 1, 8, 4096);
    vec keys;
    make_vec(&keys, t, VEC_CHUNK_SIZE);
    /* -0.0 and 0.0 are one group, NaNs are one group */
    double vals[] = {0.0, -0.0, 1.5, -1.5, __builtin_nan(""), -__builtin_nan(""), 1e300};
    for (uint32_t i = 0; i < 1400; i++) VEC_DATA(&keys, double)[i] = vals[i % 7];
    agg_chunk(&f, &keys, 1, 1400);
    assert_int_equal(store_rows(&f), 5);
    /* clearing the directory keeps the rows; the same keys then create second copies that a
     * row-vs-row merge folds together */
    exec_ht_clear(&f.ht);
    agg_chunk(&f, &keys, 1, 1400);
    assert_int_equal(store_rows(&f), 10);
    exec_ht merged;
    assert_int_equal(exec_ht_init(&merged, exec_ht_capacity_for(10), &g_tracker, NULL), 0);
    uint8_t *all[10], *uniq[10], *dd[10], *ds[10];
    uint32_t k = 0, nu = 0, nd = 0;
    for (int p = 0; p < 4; p++)
        for (exec_row_block *b = f.stores[p].head; b; b = b->next)
            for (uint32_t r = 0; r < b->n_rows; r++) all[k++] = b->rows + (size_t)r * f.layout.row_width;
    exec_ht_merge_rows(&merged, &f.layout, 1, all, 10, uniq, &nu, dd, ds, &nd, f.sc);
    assert_int_equal(nu, 5);
    assert_int_equal(nd, 5);
    for (uint32_t i = 0; i < nd; i++) assert_true(exec_row_field_equal(&f.layout, dd[i], 0, &f.layout, ds[i], 0));
    /* find_rows locates each */
    uint8_t *found[10];
    exec_ht_find_rows(&merged, &f.layout, 1, &f.layout, NULL, all, NULL, 10, found);
    for (uint32_t i = 0; i < 10; i++) assert_non_null(found[i]);
    exec_ht_destroy(&merged);
    vec_destroy(&keys);
    fixture_destroy(&f);
}

static void test_join_chains(void **state) {
    (void)state;
    sqe_type t[2] = {type_make(TYPE_INTEGER), type_varchar(0)};
    arena a;
    arena_init(&a, &g_tracker);
    exec_row_layout l;
    assert_int_equal(exec_row_layout_init(&l, &a, t, 2, true, 1, NULL), 0);
    exec_row_store st;
    exec_row_store_init(&st, &l, &g_tracker);
    vec k, pl;
    make_vec(&k, t[0], 1000);
    make_vec(&pl, t[1], 1000);
    char buf[64];
    for (uint32_t i = 0; i < 1000; i++) {
        VEC_DATA(&k, int32_t)[i] = (int32_t)(i % 100); /* each key 10 times */
        snprintf(buf, sizeof buf, "payload number %u", i);
        fill_str(&pl, i, buf);
    }
    uint8_t *rows[1000];
    uint64_t hashes[1000];
    assert_int_equal(exec_row_store_append(&st, 1000, rows, NULL), 0);
    exec_hash_vec(&k, NULL, 1000, hashes, false);
    for (uint32_t i = 0; i < 1000; i++) memcpy(rows[i], &hashes[i], 8);
    assert_int_equal(exec_row_scatter(&st, 0, &k, NULL, 1000, rows, NULL), 0);
    assert_int_equal(exec_row_scatter(&st, 1, &pl, NULL, 1000, rows, NULL), 0);
    /* a directory of 4 regions filled partition by partition (as the probe threads do); a
     * limit below the keys of a partition stops the insert */
    exec_ht ht;
    assert_int_equal(exec_ht_init_regions(&ht, 64, 2, &g_tracker, NULL), 0);
    exec_ht_scratch *sc = malloc(sizeof *sc);
    uint8_t *part_rows[1000];
    uint64_t added = 0;
    for (uint32_t p = 0; p < 4; p++) {
        uint32_t np = 0;
        for (uint32_t i = 0; i < 1000; i++)
            if (exec_radix_of(hashes[i], 2) == p) part_rows[np++] = rows[i];
        assert_true(exec_join_ht_insert(&ht, &l, 1, part_rows, np, UINT64_MAX, &added));
    }
    assert_int_equal(added, 100);
    /* probe keys 0..199: 0..99 match 10 rows each */
    vec pk;
    make_vec(&pk, t[0], 200);
    for (uint32_t i = 0; i < 200; i++) VEC_DATA(&pk, int32_t)[i] = (int32_t)i;
    vec_set_null(&pk, 150);
    uint64_t ph[200];
    exec_hash_vec(&pk, NULL, 200, ph, false);
    vec_view view;
    vec_view_init_buf(&view, &pk, 200, sc->idxbuf[0]);
    uint8_t *heads[200];
    exec_join_ht_probe(&ht, &l, 1, &view, NULL, ph, 200, heads, sc);
    for (uint32_t i = 0; i < 200; i++) {
        if (i >= 100) {
            assert_null(heads[i]);
            continue;
        }
        uint32_t n = 0;
        vec out;
        make_vec(&out, t[1], 16);
        for (uint8_t *r = heads[i]; r; r = exec_row_next(r)) {
            int32_t kv;
            memcpy(&kv, r + l.offsets[0], 4);
            assert_int_equal(kv, (int32_t)i);
            assert_int_equal(exec_row_gather(&l, 1, &r, 1, &out, n, NULL), 0);
            const sqe_str *sv = &VEC_DATA(&out, sqe_str)[n];
            assert_true(sv->len > 12);
            n++;
        }
        assert_int_equal(n, 10);
        vec_destroy(&out);
    }
    /* (re-inserting relinks the rows' chains: done last) */
    exec_ht small;
    assert_int_equal(exec_ht_init_regions(&small, 16, 0, &g_tracker, NULL), 0);
    uint64_t n_small = 0;
    assert_false(exec_join_ht_insert(&small, &l, 1, rows, 1000, 10, &n_small));
    assert_int_equal(n_small, 10);
    exec_ht_destroy(&small);
    free(sc);
    vec_destroy(&pk);
    vec_destroy(&k);
    vec_destroy(&pl);
    exec_ht_destroy(&ht);
    exec_row_store_destroy(&st);
    arena_destroy(&a);
}

/* Scatter then gather every fixed-width type, with NULLs, through dictionary and constant
 * vectors. */
static void test_scatter_gather_types(void **state) {
    (void)state;
    type_id ids[] = {TYPE_BOOLEAN, TYPE_TINYINT, TYPE_SMALLINT, TYPE_INTEGER, TYPE_BIGINT,
                     TYPE_REAL, TYPE_DOUBLE, TYPE_DATE, TYPE_TIMESTAMP, TYPE_TIMESTAMP_TZ,
                     TYPE_UUID, TYPE_INTERVAL_DS, TYPE_INTERVAL_YM};
    uint32_t nt = sizeof ids / sizeof ids[0];
    sqe_type types[20];
    for (uint32_t i = 0; i < nt; i++) types[i] = type_make(ids[i]);
    types[nt++] = type_decimal(12, 2);
    types[nt++] = type_decimal(30, 4);
    arena a;
    arena_init(&a, &g_tracker);
    exec_row_layout l;
    assert_int_equal(exec_row_layout_init(&l, &a, types, nt, false, 0, NULL), 0);
    exec_row_store st;
    exec_row_store_init(&st, &l, &g_tracker);
    const uint32_t n = 100;
    uint8_t *rows[100];
    assert_int_equal(exec_row_store_append(&st, n, rows, NULL), 0);
    vec src[20];
    for (uint32_t c = 0; c < nt; c++) {
        make_vec(&src[c], types[c], n);
        size_t w = type_physical_size(types[c]);
        for (uint32_t i = 0; i < n; i++) {
            for (size_t b = 0; b < w; b++) ((uint8_t *)src[c].data)[i * w + b] = (uint8_t)(i * 31 + b * 7 + c);
            if (types[c].id == TYPE_BOOLEAN) ((uint8_t *)src[c].data)[i] = i & 1;
            if (i % 9 == 0) vec_set_null(&src[c], i);
        }
        /* scatter through a reversing dictionary */
        vec dict;
        make_vec(&dict, types[c], n);
        uint32_t *sel = vec_sel_make(&dict, NULL);
        for (uint32_t i = 0; i < n; i++) sel[i] = n - 1 - i;
        vec_set_dict(&dict, &src[c], sel);
        assert_int_equal(exec_row_scatter(&st, c, &dict, NULL, n, rows, NULL), 0);
        vec out;
        make_vec(&out, types[c], n);
        assert_int_equal(exec_row_gather(&l, c, rows, n, &out, 0, NULL), 0);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = n - 1 - i;
            assert_int_equal(vec_is_valid_flat(&out, i), vec_is_valid_flat(&src[c], s));
            if (vec_is_valid_flat(&out, i))
                assert_memory_equal((uint8_t *)out.data + i * w, (uint8_t *)src[c].data + s * w, w);
        }
        vec_destroy(&out);
        vec_destroy(&dict);
    }
    /* a constant scatters to every row; NULL row pointers gather as NULL */
    vec cst;
    make_vec(&cst, types[3], 1);
    VEC_DATA(&cst, int32_t)[0] = 77;
    cst.shape = VEC_CONST;
    assert_int_equal(exec_row_scatter(&st, 3, &cst, NULL, n, rows, NULL), 0);
    vec out;
    make_vec(&out, types[3], n);
    rows[5] = NULL;
    assert_int_equal(exec_row_gather(&l, 3, rows, n, &out, 0, NULL), 0);
    for (uint32_t i = 0; i < n; i++) {
        if (i == 5)
            assert_false(vec_is_valid_flat(&out, i));
        else
            assert_int_equal(VEC_DATA(&out, int32_t)[i], 77);
    }
    vec_destroy(&out);
    vec_destroy(&cst);
    for (uint32_t c = 0; c < nt; c++) vec_destroy(&src[c]);
    exec_row_store_destroy(&st);
    arena_destroy(&a);
}

/* Nested values (array(bigint)) as keys and payload. */
static void test_nested_keys(void **state) {
    (void)state;
    sqe_type t = type_array(type_make(TYPE_BIGINT));
    agg_fixture f;
    fixture_init(&f, &t, 1, 8, 64);
    vec keys;
    make_vec(&keys, t, 8);
    /* arrays: [1,2], [1], [1,2], [], NULL, [1], [] , [2,1] */
    int64_t elems[][2] = {{1, 2}, {1, 0}, {1, 2}, {0, 0}, {0, 0}, {1, 0}, {0, 0}, {2, 1}};
    uint32_t lens[] = {2, 1, 2, 0, 0, 1, 0, 2};
    vec *child = &keys.children[0];
    uint32_t off = 0;
    for (uint32_t i = 0; i < 8; i++) {
        assert_int_equal(vec_reserve(child, off + 2, NULL), 0);
        for (uint32_t e = 0; e < lens[i]; e++) VEC_DATA(child, int64_t)[off + e] = elems[i][e];
        VEC_DATA(&keys, sqe_list_entry)[i] = (sqe_list_entry){off, lens[i]};
        off += lens[i];
    }
    keys.child_len = off;
    vec_set_null(&keys, 4);
    agg_chunk(&f, &keys, 1, 8);
    assert_int_equal(store_rows(&f), 5); /* [1,2] [1] [] NULL [2,1] */
    agg_chunk(&f, &keys, 1, 8);
    assert_int_equal(store_rows(&f), 5);
    vec_destroy(&keys);
    fixture_destroy(&f);
}

int main(void) {
    mem_tracker_init(&g_tracker, "test", 0, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_int_keys),
        cmocka_unit_test(test_string_and_null_keys),
        cmocka_unit_test(test_collisions_and_clear),
        cmocka_unit_test(test_join_chains),
        cmocka_unit_test(test_scatter_gather_types),
        cmocka_unit_test(test_nested_keys),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (atomic_load(&g_tracker.used) != 0) {
        fprintf(stderr, "leaked %lld bytes\n", (long long)atomic_load(&g_tracker.used));
        return 1;
    }
    return rc;
}
