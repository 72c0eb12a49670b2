/*
 * rest_commit.c: the REST commit body (requirements and updates) from base and new metadata
 * JSON (see rest_commit.h).
 *
 * INTERFACE: rest_commit_build, rest_metadata_to_json.
 * NOTES: objects are matched by id (schema-id, spec-id, order-id, snapshot-id) and compared
 * with json_equal; a changed object under an existing id cannot be expressed as an update and
 * is ignored (the engine never rewrites them). Every field read from either side is type-checked,
 * so metadata from a hostile catalog gives INVALID_ARGUMENTS, never a crash.
 */
#include "catalog/rest/rest_commit.h"

#include <string.h>

#include "common/strbuf.h"

int rest_metadata_to_json(const ice_metadata *m, json_t **out, sqe_error *err) {
    strbuf sb;
    strbuf_init(&sb);
    int rc = ice_metadata_write(m, &sb, err);
    if (!rc && sb.failed) rc = err_nomem(err, "metadata JSON");
    if (!rc) {
        json_error_t je;
        json_t *j = json_loadb(sb.data, sb.len, 0, &je);
        if (!j) rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "metadata JSON: %s", je.text);
        else *out = j;
    }
    strbuf_reset(&sb);
    return rc;
}

/* ---- building -------------------------------------------------------------------------------- */

typedef struct diff {
    json_t *base, *next;
    json_t *reqs, *ups;
    bool oom;
    const char *bad; /* first malformed field seen */
} diff;

static void push(diff *d, json_t *arr, json_t *obj) {
    if (!obj || json_array_append_new(arr, obj)) d->oom = true;
}

/* Integer field key of o into *v; false (and d->bad set) when absent or not an integer. */
static bool get_int(diff *d, json_t *o, const char *key, json_int_t *v, bool required) {
    json_t *j = json_object_get(o, key);
    if (json_is_integer(j)) {
        *v = json_integer_value(j);
        return true;
    }
    /* null is absent (Iceberg Java writes "current-snapshot-id": null for v3 tables) */
    if (required || (j && !json_is_null(j))) d->bad = d->bad ? d->bad : key;
    return false;
}

/* Array field key of o, or NULL (empty) when absent; d->bad when present but not an array. */
static json_t *get_arr(diff *d, json_t *o, const char *key) {
    json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j)) return NULL;
    if (!json_is_array(j)) {
        d->bad = d->bad ? d->bad : key;
        return NULL;
    }
    return j;
}

/* The element of arr whose integer field key equals v, or NULL. */
static json_t *find_by(json_t *arr, const char *key, json_int_t v) {
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        json_t *k = json_object_get(e, key);
        if (json_is_integer(k) && json_integer_value(k) == v) return e;
    }
    return NULL;
}

static json_t *action(const char *name) { return json_pack("{s:s}", "action", name); }
static json_t *requirement(const char *name) { return json_pack("{s:s}", "type", name); }

static void add_req_int(diff *d, const char *type, const char *key, json_int_t v) {
    /* one requirement of each type (the first wins: it carries the base's value) */
    size_t i;
    json_t *e;
    json_array_foreach(d->reqs, i, e) {
        json_t *t = json_object_get(e, "type");
        if (json_is_string(t) && strcmp(json_string_value(t), type) == 0) return;
    }
    json_t *r = requirement(type);
    if (r && json_object_set_new(r, key, json_integer(v))) d->oom = true;
    push(d, d->reqs, r);
}

/* Objects (schemas, specs, orders) in next but not in base: add-X updates; then set-current
 * when the current id changed. */
static void diff_objects(diff *d, const char *arr_key, const char *id_key, const char *add_action,
                         const char *add_field, const char *cur_key, const char *set_action,
                         const char *set_field, const char *req_set, const char *req_set_key,
                         const char *req_add, const char *req_add_key, const char *base_add_key) {
    json_t *ba = get_arr(d, d->base, arr_key), *na = get_arr(d, d->next, arr_key);
    json_int_t last_added = 0;
    bool any_added = false;
    size_t i;
    json_t *e;
    json_array_foreach(na, i, e) {
        json_int_t id;
        if (!json_is_object(e) || !get_int(d, e, id_key, &id, true)) continue;
        if (find_by(ba, id_key, id)) continue;
        json_t *u = action(add_action);
        if (u && json_object_set(u, add_field, e)) d->oom = true;
        if (u && strcmp(add_action, "add-schema") == 0) {
            json_int_t lc;
            if (get_int(d, d->next, "last-column-id", &lc, false) &&
                json_object_set_new(u, "last-column-id", json_integer(lc)))
                d->oom = true;
        }
        push(d, d->ups, u);
        if (req_add) {
            json_int_t bv;
            if (get_int(d, d->base, base_add_key, &bv, false)) add_req_int(d, req_add, req_add_key, bv);
        }
        last_added = id;
        any_added = true;
    }
    json_int_t bcur = 0, ncur = 0;
    bool hb = get_int(d, d->base, cur_key, &bcur, false);
    bool hn = get_int(d, d->next, cur_key, &ncur, false);
    if (hn && (!hb || bcur != ncur)) {
        json_t *u = action(set_action);
        json_int_t v = any_added && ncur == last_added ? -1 : ncur;
        if (u && json_object_set_new(u, set_field, json_integer(v))) d->oom = true;
        push(d, d->ups, u);
        if (hb) add_req_int(d, req_set, req_set_key, bcur);
    }
}

/* The refs of a metadata object with the implicit "main" (current-snapshot-id) when missing.
 * New reference (an object), NULL on out of memory. */
static json_t *effective_refs(diff *d, json_t *m) {
    json_t *refs = json_object_get(m, "refs");
    json_t *out = json_is_object(refs) ? json_deep_copy(refs) : json_object();
    if (refs && !json_is_object(refs)) d->bad = d->bad ? d->bad : "refs";
    if (!out) return NULL;
    json_int_t cur;
    if (!json_object_get(out, "main") && get_int(d, m, "current-snapshot-id", &cur, false) &&
        cur >= 0)
        json_object_set_new(out, "main", json_pack("{s:I,s:s}", "snapshot-id", cur, "type", "branch"));
    return out;
}

static void diff_refs(diff *d) {
    json_t *br = effective_refs(d, d->base), *nr = effective_refs(d, d->next);
    if (!br || !nr) {
        d->oom = true;
        json_decref(br);
        json_decref(nr);
        return;
    }
    const char *name;
    json_t *ref;
    json_object_foreach(nr, name, ref) {
        json_t *old = json_object_get(br, name);
        if (old && json_equal(old, ref)) continue;
        json_int_t sid;
        json_t *type = json_object_get(ref, "type");
        if (!json_is_object(ref) || !get_int(d, ref, "snapshot-id", &sid, true) ||
            !json_is_string(type)) {
            d->bad = d->bad ? d->bad : "refs";
            continue;
        }
        json_t *u = action("set-snapshot-ref");
        if (u && json_object_set_new(u, "ref-name", json_string(name))) d->oom = true;
        if (u && json_object_set_new(u, "snapshot-id", json_integer(sid))) d->oom = true;
        if (u && json_object_set(u, "type", type)) d->oom = true;
        static const char *const opt[] = {"max-ref-age-ms", "max-snapshot-age-ms",
                                          "min-snapshots-to-keep"};
        for (size_t k = 0; u && k < sizeof opt / sizeof *opt; k++) {
            json_t *v = json_object_get(ref, opt[k]);
            if (json_is_integer(v) && json_object_set(u, opt[k], v)) d->oom = true;
        }
        push(d, d->ups, u);
        json_t *r = requirement("assert-ref-snapshot-id");
        json_int_t bsid;
        json_t *bval = old && get_int(d, old, "snapshot-id", &bsid, false) ? json_integer(bsid)
                                                                          : json_null();
        if (r && json_object_set_new(r, "ref", json_string(name))) d->oom = true;
        if (r && json_object_set_new(r, "snapshot-id", bval)) d->oom = true;
        push(d, d->reqs, r);
    }
    json_object_foreach(br, name, ref) {
        if (json_object_get(nr, name)) continue;
        json_t *u = action("remove-snapshot-ref");
        if (u && json_object_set_new(u, "ref-name", json_string(name))) d->oom = true;
        push(d, d->ups, u);
    }
    json_decref(br);
    json_decref(nr);
}

static void diff_snapshots(diff *d) {
    json_t *ba = get_arr(d, d->base, "snapshots"), *na = get_arr(d, d->next, "snapshots");
    size_t i;
    json_t *e;
    json_array_foreach(na, i, e) {
        json_int_t id;
        if (!json_is_object(e) || !get_int(d, e, "snapshot-id", &id, true)) continue;
        if (find_by(ba, "snapshot-id", id)) continue;
        json_t *u = action("add-snapshot");
        if (u && json_object_set(u, "snapshot", e)) d->oom = true;
        push(d, d->ups, u);
    }
    json_t *removed = json_array();
    if (!removed) {
        d->oom = true;
        return;
    }
    json_array_foreach(ba, i, e) {
        json_int_t id;
        if (!json_is_object(e) || !get_int(d, e, "snapshot-id", &id, true)) continue;
        if (!find_by(na, "snapshot-id", id) && json_array_append_new(removed, json_integer(id)))
            d->oom = true;
    }
    if (json_array_size(removed) > 0) {
        json_t *u = action("remove-snapshots");
        if (u && json_object_set(u, "snapshot-ids", removed)) d->oom = true;
        push(d, d->ups, u);
    }
    json_decref(removed);
}

static void diff_properties(diff *d) {
    json_t *bp = json_object_get(d->base, "properties"), *np = json_object_get(d->next, "properties");
    if ((bp && !json_is_object(bp)) || (np && !json_is_object(np))) {
        d->bad = d->bad ? d->bad : "properties";
        return;
    }
    json_t *set = json_object(), *rem = json_array();
    if (!set || !rem) d->oom = true;
    const char *k;
    json_t *v;
    if (set) json_object_foreach(np, k, v) {
        if (!json_is_string(v)) {
            d->bad = d->bad ? d->bad : "properties";
            continue;
        }
        json_t *old = json_object_get(bp, k);
        if (!old || !json_equal(old, v))
            if (json_object_set(set, k, v)) d->oom = true;
    }
    if (rem) json_object_foreach(bp, k, v) {
        if (!json_object_get(np, k) && json_array_append_new(rem, json_string(k))) d->oom = true;
    }
    if (set && json_object_size(set) > 0) {
        json_t *u = action("set-properties");
        if (u && json_object_set(u, "updates", set)) d->oom = true;
        push(d, d->ups, u);
    }
    if (rem && json_array_size(rem) > 0) {
        json_t *u = action("remove-properties");
        if (u && json_object_set(u, "removals", rem)) d->oom = true;
        push(d, d->ups, u);
    }
    json_decref(set);
    json_decref(rem);
}

/* statistics (by snapshot-id): set-X for new or changed entries, remove-X for missing ones. */
static void diff_stats(diff *d, const char *key, const char *set_action, const char *set_field,
                       const char *remove_action, bool set_has_snapshot_id) {
    json_t *ba = get_arr(d, d->base, key), *na = get_arr(d, d->next, key);
    size_t i;
    json_t *e;
    json_array_foreach(na, i, e) {
        json_int_t id;
        if (!json_is_object(e) || !get_int(d, e, "snapshot-id", &id, true)) continue;
        json_t *old = find_by(ba, "snapshot-id", id);
        if (old && json_equal(old, e)) continue;
        json_t *u = action(set_action);
        if (u && set_has_snapshot_id && json_object_set_new(u, "snapshot-id", json_integer(id)))
            d->oom = true;
        if (u && json_object_set(u, set_field, e)) d->oom = true;
        push(d, d->ups, u);
    }
    json_array_foreach(ba, i, e) {
        json_int_t id;
        if (!json_is_object(e) || !get_int(d, e, "snapshot-id", &id, true)) continue;
        if (find_by(na, "snapshot-id", id)) continue;
        json_t *u = action(remove_action);
        if (u && json_object_set_new(u, "snapshot-id", json_integer(id))) d->oom = true;
        push(d, d->ups, u);
    }
}

int rest_commit_build(json_t *base, json_t *next, json_t **out, sqe_error *err) {
    if (!json_is_object(base) || !json_is_object(next))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "REST commit: metadata is not a JSON object");
    diff d = {.base = base, .next = next, .reqs = json_array(), .ups = json_array()};
    if (!d.reqs || !d.ups) d.oom = true;
    json_int_t bfv = 0, nfv = 0;
    if (!d.oom && get_int(&d, base, "format-version", &bfv, true) &&
        get_int(&d, next, "format-version", &nfv, true)) {
        json_t *uuid = json_object_get(base, "table-uuid");
        if (json_is_string(uuid)) {
            json_t *r = requirement("assert-table-uuid");
            if (r && json_object_set(r, "uuid", uuid)) d.oom = true;
            push(&d, d.reqs, r);
        }
        if (nfv != bfv) {
            json_t *u = action("upgrade-format-version");
            if (u && json_object_set_new(u, "format-version", json_integer(nfv))) d.oom = true;
            push(&d, d.ups, u);
        }
        diff_objects(&d, "schemas", "schema-id", "add-schema", "schema", "current-schema-id",
                     "set-current-schema", "schema-id", "assert-current-schema-id",
                     "current-schema-id", "assert-last-assigned-field-id", "last-assigned-field-id",
                     "last-column-id");
        diff_objects(&d, "partition-specs", "spec-id", "add-spec", "spec", "default-spec-id",
                     "set-default-spec", "spec-id", "assert-default-spec-id", "default-spec-id",
                     "assert-last-assigned-partition-id", "last-assigned-partition-id",
                     "last-partition-id");
        diff_objects(&d, "sort-orders", "order-id", "add-sort-order", "sort-order",
                     "default-sort-order-id", "set-default-sort-order", "sort-order-id",
                     "assert-default-sort-order-id", "default-sort-order-id", NULL, NULL, NULL);
        json_t *bl = json_object_get(base, "location"), *nl = json_object_get(next, "location");
        if (json_is_string(nl) && (!json_is_string(bl) || !json_equal(bl, nl))) {
            json_t *u = action("set-location");
            if (u && json_object_set(u, "location", nl)) d.oom = true;
            push(&d, d.ups, u);
        }
        diff_snapshots(&d);
        diff_refs(&d);
        diff_properties(&d);
        diff_stats(&d, "statistics", "set-statistics", "statistics", "remove-statistics", true);
        diff_stats(&d, "partition-statistics", "set-partition-statistics", "partition-statistics",
                   "remove-partition-statistics", false);
    }
    int rc = SQE_OK;
    if (d.oom) rc = err_nomem(err, "REST commit");
    else if (d.bad)
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "REST commit: malformed metadata field '%s'",
                     d.bad);
    if (rc) {
        json_decref(d.reqs);
        json_decref(d.ups);
        return rc;
    }
    json_t *body = json_object();
    /* json_object_set_new takes the reference even when it fails */
    bool bad = !body || json_object_set_new(body, "requirements", d.reqs);
    if (body) bad |= json_object_set_new(body, "updates", d.ups) != 0;
    else {
        json_decref(d.reqs);
        json_decref(d.ups);
    }
    if (bad) {
        json_decref(body);
        return err_nomem(err, "REST commit");
    }
    *out = body;
    return SQE_OK;
}
