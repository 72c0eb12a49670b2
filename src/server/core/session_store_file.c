/*
 * session_store_file.c: the on-disk form of the session store ([session] persistence = "file").
 *
 * INTERFACE: session_file_write, session_file_read (session_store_int.h).
 * Format (JSON, jansson):
 *   {"format": "sqe-sessions", "version": 1, "sessions": [
 *     {"sha256": "<64 hex digits of SHA-256(token)>", "principal": "...", "created_ms": N,
 *      "last_used_ms": N, "catalog": "..."|null, "schema": ..., "time_zone": ...,
 *      "properties": [["name", "value"], ...], "prepared": [["name", "sql"], ...],
 *      "credential": {"method": "password"|"anonymous", "fingerprint": "<64 hex digits>"}}, ...]}
 *   "credential" is optional (files of older versions have none: such sessions are refused once a
 *   validator checks them).
 * NOTES: tokens are never written, only their digests, so a stolen file does not let anyone
 * resume a session. Writes go to "<path>.tmp.<pid>" created with mode 0600, are fsync'ed and
 * renamed over the file, so a crash leaves either the old or the new snapshot. The reader checks
 * every field and rejects the whole file on the first problem (with the session index).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/core/session_store_int.h"
#include "common/hex.h"


static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *pairs(char **names, char **values, uint32_t n) {
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++) {
        json_t *p = json_pack("[s?s?]", names[i], values[i]);
        if (!p || json_array_append_new(a, p)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *sess_json(const sess *s) {
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", s->digest[i]);
    json_t *props = pairs(s->state.property_names, s->state.property_values, s->state.n_properties);
    json_t *prep = pairs(s->state.prepared_names, s->state.prepared_sql, s->state.n_prepared);
    if (!props || !prep) {
        json_decref(props);
        json_decref(prep);
        return NULL;
    }
    char fp[65];
    for (int i = 0; i < 32; i++) snprintf(fp + 2 * i, 3, "%02x", s->cred.fingerprint[i]);
    json_t *cred = json_pack("{s:s, s:s}", "method", s->cred.method, "fingerprint", fp);
    if (!cred) {
        json_decref(props);
        json_decref(prep);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "sha256", hex,
                     "principal", s->principal, "created_ms", (json_int_t)s->created_ms,
                     "last_used_ms", (json_int_t)s->last_used_ms, "catalog",
                     str_or_null(s->state.catalog), "schema", str_or_null(s->state.schema),
                     "time_zone", str_or_null(s->state.time_zone), "properties", props,
                     "prepared", prep, "credential", cred);
}

int session_file_write(const char *path, sess *const *sessions, size_t n, sqe_error *err) {
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        json_t *o = sess_json(sessions[i]);
        if (!o || json_array_append_new(arr, o)) {
            json_decref(arr);
            arr = NULL;
        }
    }
    json_t *doc = arr ? json_pack("{s:s, s:i, s:o}", "format", "sqe-sessions", "version", 1,
                                  "sessions", arr)
                      : NULL;
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text) return err_nomem(err, "session snapshot");

    size_t plen = strlen(path) + 32;
    char *tmp = malloc(plen);
    if (!tmp) {
        free(text);
        return err_nomem(err, "session snapshot");
    }
    snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
    int rc = SQE_OK;
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = err_set(err, SQE_ERR_IO_ERROR, "cannot create %s: %s", tmp, strerror(errno));
    } else {
        size_t len = strlen(text), off = 0;
        while (off < len && !rc) {
            ssize_t w = write(fd, text + off, len - off);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0)
                rc = err_set(err, SQE_ERR_IO_ERROR, "cannot write %s: %s", tmp, strerror(errno));
            else
                off += (size_t)w;
        }
        if (!rc && fsync(fd) != 0)
            rc = err_set(err, SQE_ERR_IO_ERROR, "cannot sync %s: %s", tmp, strerror(errno));
        if (close(fd) != 0 && !rc)
            rc = err_set(err, SQE_ERR_IO_ERROR, "cannot write %s: %s", tmp, strerror(errno));
        if (!rc && rename(tmp, path) != 0)
            rc = err_set(err, SQE_ERR_IO_ERROR, "cannot rename %s to %s: %s", tmp, path,
                         strerror(errno));
        if (rc) unlink(tmp);
    }
    free(tmp);
    free(text);
    return rc;
}

/* Reads an optional string field into *dst. */
static bool opt_string(json_t *o, const char *key, char **dst) {
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return true;
    if (!json_is_string(v)) return false;
    *dst = strdup(json_string_value(v));
    return *dst != NULL;
}

static bool read_pairs(json_t *o, const char *key, char ***names, char ***values, uint32_t *n) {
    json_t *a = json_object_get(o, key);
    if (!a) return true;
    if (!json_is_array(a) || json_array_size(a) > 100000) return false;
    size_t cnt = json_array_size(a);
    if (!cnt) return true;
    *names = calloc(cnt, sizeof **names);
    *values = calloc(cnt, sizeof **values);
    *n = (uint32_t)cnt; /* set first so a partial list is freed */
    if (!*names || !*values) return false;
    for (size_t i = 0; i < cnt; i++) {
        json_t *p = json_array_get(a, i);
        json_t *k = json_array_get(p, 0), *v = json_array_get(p, 1);
        if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_string(k) ||
            !json_is_string(v))
            return false;
        (*names)[i] = strdup(json_string_value(k));
        (*values)[i] = strdup(json_string_value(v));
        if (!(*names)[i] || !(*values)[i]) return false;
    }
    return true;
}

/* Reads the optional "credential" object into *c (absent: method ""). */
static bool read_cred(json_t *o, session_cred *c) {
    json_t *v = json_object_get(o, "credential");
    if (!v) return true;
    json_t *m = json_object_get(v, "method"), *f = json_object_get(v, "fingerprint");
    if (!json_is_object(v) || !json_is_string(m) || json_string_length(m) >= sizeof c->method ||
        !json_is_string(f) || json_string_length(f) != 64)
        return false;
    for (int i = 0; i < 32; i++) {
        int hi = hex_digit(json_string_value(f)[2 * i]), lo = hex_digit(json_string_value(f)[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        c->fingerprint[i] = (unsigned char)(hi * 16 + lo);
    }
    snprintf(c->method, sizeof c->method, "%s", json_string_value(m));
    return true;
}

static sess *sess_from_json(json_t *o) {
    if (!json_is_object(o)) return NULL;
    sess *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    json_t *h = json_object_get(o, "sha256"), *p = json_object_get(o, "principal");
    json_t *c = json_object_get(o, "created_ms"), *u = json_object_get(o, "last_used_ms");
    bool ok = json_is_string(h) && json_string_length(h) == 64 && json_is_string(p) &&
              json_is_integer(c) && json_is_integer(u);
    for (int i = 0; ok && i < 32; i++) {
        int hi = hex_digit(json_string_value(h)[2 * i]), lo = hex_digit(json_string_value(h)[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        if (ok) s->digest[i] = (unsigned char)(hi * 16 + lo);
    }
    if (ok) {
        s->principal = strdup(json_string_value(p));
        s->created_ms = (int64_t)json_integer_value(c);
        s->last_used_ms = (int64_t)json_integer_value(u);
        ok = s->principal && opt_string(o, "catalog", &s->state.catalog) &&
             opt_string(o, "schema", &s->state.schema) &&
             opt_string(o, "time_zone", &s->state.time_zone) &&
             read_pairs(o, "properties", &s->state.property_names, &s->state.property_values,
                        &s->state.n_properties) &&
             read_pairs(o, "prepared", &s->state.prepared_names, &s->state.prepared_sql,
                        &s->state.n_prepared) &&
             read_cred(o, &s->cred);
    }
    if (!ok) {
        sess_free(s);
        return NULL;
    }
    return s;
}

int session_file_read(const char *path, int (*add)(void *ud, sess *s), void *ud, sqe_error *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        if (errno == ENOENT) return SQE_OK;
        return err_set(err, SQE_ERR_IO_ERROR, "cannot read %s: %s", path, strerror(errno));
    }
    json_error_t je;
    json_t *doc = json_loadf(fp, JSON_REJECT_DUPLICATES, &je);
    fclose(fp);
    if (!doc)
        return err_set(err, SQE_ERR_INVALID_FILE, "%s:%d: not a session file: %s", path, je.line,
                       je.text);
    json_t *fmt = json_object_get(doc, "format"), *ver = json_object_get(doc, "version");
    json_t *arr = json_object_get(doc, "sessions");
    int rc = SQE_OK;
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "sqe-sessions") != 0 ||
        !json_is_integer(ver) || json_integer_value(ver) != 1 || !json_is_array(arr)) {
        rc = err_set(err, SQE_ERR_INVALID_FILE,
                     "%s: not a session file of this version (format sqe-sessions, version 1)",
                     path);
    }
    for (size_t i = 0; !rc && i < json_array_size(arr); i++) {
        sess *s = sess_from_json(json_array_get(arr, i));
        if (!s) {
            rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: session %zu is malformed", path, i);
            break;
        }
        rc = add(ud, s);
    }
    json_decref(doc);
    return rc;
}
