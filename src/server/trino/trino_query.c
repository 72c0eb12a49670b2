/*
 * trino_query.c: the Trino server's query registry: each POSTed statement becomes a query with
 * an id, a secret slug and a token sequence; a worker thread runs it on the engine and turns its
 * rows into JSON pages that GET nextUri hands out one by one.
 *
 * INTERFACE: trino_registry_create, trino_registry_destroy, trino_query_submit,
 *   trino_query_fetch, trino_query_cancel, trino_registry_set_draining, trino_registry_active,
 *   trino_registry_running, trino_registry_cancel_all, trino_registry_list_sessions.
 * NOTES:
 * - Sessions: the Trino protocol keeps the session in the client, which re-sends it with every
 *   request. So each query gets a fresh sqe_conn, restored from its headers (user, catalog,
 *   schema, time zone, session properties, prepared statements), and reports
 *   what the statement changed in X-Trino-Set-* / -Clear-Session / -Added-Prepare /
 *   -Deallocated-Prepare response headers. The state is given to the connection through its
 *   setters (server/core/session.c, no SET SESSION text is run); the update type and the
 *   changes are what the engine reports on the result (sqe_effects.h), so nothing here reads
 *   the statement text.
 * - Paging: the worker encodes rows into pages of at most page_rows rows / about page_bytes
 *   bytes and keeps at most MAX_PENDING pages ahead of the client (backpressure), so a huge
 *   result never exists as JSON at once. While the worker waits, the engine stops producing
 *   too once its bounded result buffer is full (driver_stream.c), so a client that stops
 *   fetching costs a few MiB and no pool threads.
 * - Tokens: nextUri carries token t+1 after token t. A GET of the last token again returns the
 *   same body (a client retry after a lost response); any other token gets 410.
 * - Lifetimes: a query is referenced by the registry list it is in, by its worker and by each
 *   request working on it; the last unref frees it. Two lists: "open" holds the queries in
 *   progress (queued, running, or with results not yet fully fetched) and is what max_queries
 *   limits; a query that was fully fetched or canceled, once its worker exited, moves at once
 *   to "retained", a bounded LRU list (retain_ms since the last request, at most max_retained
 *   queries and max_retained_bytes of cached bodies) that only answers client retries (the
 *   last token again) and late DELETEs. Finished queries never count toward admission, so the
 *   limit is one of concurrency, not of the statement rate. The reaper thread expires retained
 *   queries and cancels open ones nobody fetched for idle_timeout_ms.
 * - Admission: a statement that finds max_queries queries open gets a FAILED QueryResults
 *   (HTTP 200) with QUERY_QUEUE_FULL (SQLSTATE 53000), as Trino answers a full queue; a
 *   draining server answers 503. When one of the open queries is already fully fetched and
 *   only its worker thread is still exiting, the statement waits for it (up to 1 s) instead:
 *   a client that reads each answer to its end before the next never sees a full queue.
 * - Locks: the registry lock protects the list, counters and reference counts; each query's lock
 *   protects its state. Order: registry before query, never the other way.
 * - Ownership: nextUri GETs and DELETEs of a query an authenticated user submitted are served
 *   to that user only; anyone else gets the 404 of an unknown query (nothing tells them it
 *   exists). Anonymous queries (a claimed name only) stay reachable through their URI.
 * - Cancel: DELETE stops paging at once and the worker at its next chunk; a long-running engine
 *   call stops between chunks through the connection's cancel flag (sqe_conn_set_cancel_flag).
 */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "server/trino/trino_int.h"

#define MAX_PENDING 2          /* pages encoded ahead of the client */
#define REAPER_PERIOD_MS 200

/* --- queries -------------------------------------------------------------------------------- */

typedef enum query_state { QS_QUEUED, QS_RUNNING, QS_FINISHED, QS_FAILED } query_state;

static const char *const state_names[] = {"QUEUED", "RUNNING", "FINISHED", "FAILED"};

typedef struct page {
    strbuf rows;     /* "[..],[..]" */
    uint32_t n_rows;
    struct page *next;
} page;

typedef struct trino_query trino_query;

/* An intrusive list of queries (registry lock): the open ones, or the retained ones in LRU
 * order (head = least recently used). */
typedef struct query_list {
    trino_query *head, *tail;
    uint32_t n;
} query_list;

struct trino_query {
    char id[48];
    char slug[40];
    trino_registry *reg;
    /* registry lock: */
    trino_query *prev, *next;  /* in the list `in` */
    query_list *in;            /* &reg->open, &reg->retained, or NULL once unlinked */
    uint32_t refs;
    bool unlinked;             /* in no list: the last unref frees it */
    bool worker_exited;        /* the worker thread touches it no more */
    size_t retained_bytes;     /* what it costs in the retained list */

    pthread_mutex_t lock;
    pthread_cond_t cond;       /* pages, state changes, consumption */
    trino_request req;
    query_state state;
    bool canceled;
    volatile int cancel_flag;  /* set with canceled: stops the engine's query between chunks */
    bool worker_done;
    bool final_delivered;
    sqe_error error;           /* valid when state == QS_FAILED */
    char *columns_json;        /* set once the result's columns are known */
    page *head, *tail;
    uint32_t n_pages;
    char update_type[160];
    int64_t update_count;      /* -1 = none */
    trino_header *headers;     /* session changes, sent with every response once known */
    uint32_t n_headers;
    uint64_t token;            /* last token answered */
    char *last_body;           /* its body, for retries */
    size_t last_len;
    unsigned last_status;
    /* admission (srv_hooks): released once when the worker ends */
    bool admitted;             /* registry lock */
    int64_t deadline_ms;       /* [query] timeout: canceled with EXCEEDED_TIME_LIMIT; 0 = none */
    uint32_t timeout_ms;
    bool timed_out;            /* query lock */
    /* statistics */
    int64_t created_ms, started_ms, finished_ms, last_access_ms;
    int64_t cpu_ms;
    uint64_t rows_produced, bytes_produced, chunks;
};

struct trino_registry {
    sqe_db *db;
    trino_server_options opts;
    pthread_mutex_t lock;
    pthread_cond_t slot_cond;    /* a running slot freed / cancel */
    pthread_cond_t workers_cond; /* a worker exited */
    pthread_cond_t reaper_cond;
    query_list open;       /* in progress: what max_queries limits */
    query_list retained;   /* finished, kept for retries (LRU) */
    size_t retained_bytes;
    uint32_t n_running;
    uint32_t n_workers;
    uint32_t counter;
    bool draining;
    bool stopping;
    pthread_t reaper;
    bool reaper_started;
};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t thread_cpu_ms(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Absolute CLOCK_REALTIME deadline ms from now, for pthread_cond_timedwait. */
static struct timespec deadline_in(int64_t ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void random_chars(char *out, size_t n, const char *alphabet) {
    unsigned char bytes[64];
    size_t alen = strlen(alphabet);
    if (n > sizeof bytes) n = sizeof bytes;
    if (getrandom(bytes, n, 0) != (ssize_t)n) {
        /* getrandom cannot fail for small requests after boot; fall back to the clock */
        uint64_t x = (uint64_t)now_ms() * 6364136223846793005ULL + (uint64_t)(uintptr_t)out;
        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            bytes[i] = (unsigned char)(x >> 56);
        }
    }
    for (size_t i = 0; i < n; i++) out[i] = alphabet[bytes[i] % alen];
    out[n] = 0;
}

static void page_free(page *pg) {
    if (!pg) return;
    strbuf_reset(&pg->rows);
    free(pg);
}

static void drop_pages(trino_query *q) {
    while (q->head) {
        page *pg = q->head;
        q->head = pg->next;
        page_free(pg);
    }
    q->tail = NULL;
    q->n_pages = 0;
}

static void query_free(trino_query *q) {
    drop_pages(q);
    free(q->columns_json);
    free(q->last_body);
    for (uint32_t i = 0; i < q->n_headers; i++) free(q->headers[i].value);
    free(q->headers);
    trino_request_reset(&q->req);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
    free(q);
}

/* Drops one reference; registry lock held. */
static void query_unref_locked(trino_query *q) {
    if (--q->refs == 0 && q->unlinked) query_free(q);
}

static void query_unref(trino_registry *reg, trino_query *q) {
    pthread_mutex_lock(&reg->lock);
    query_unref_locked(q);
    pthread_mutex_unlock(&reg->lock);
}

/* Appends q to list l (at the tail: the most recently used end). Registry lock held. */
static void list_append(query_list *l, trino_query *q) {
    q->in = l;
    q->next = NULL;
    q->prev = l->tail;
    if (l->tail)
        l->tail->next = q;
    else
        l->head = q;
    l->tail = q;
    l->n++;
}

/* Takes q out of its list (q->in). Registry lock held. */
static void list_remove(trino_query *q) {
    query_list *l = q->in;
    if (!l) return;
    if (q->prev)
        q->prev->next = q->next;
    else
        l->head = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        l->tail = q->prev;
    l->n--;
    q->prev = q->next = NULL;
    q->in = NULL;
}

static trino_query *list_find(const query_list *l, const char *id) {
    trino_query *q = l->head;
    while (q && strcmp(q->id, id) != 0) q = q->next;
    return q;
}

/* Whether caller may see q: a query submitted by an authenticated user (password, session,
 * bearer) belongs to that user alone; one submitted without a credential (anonymous mode, a
 * server without hooks: the user is only a claimed name) to whoever holds its URI. */
static bool owned_by(const trino_query *q, const sqe_principal *caller) {
    const sqe_principal *owner = q->req.principal;
    if (!owner || owner->method == SQE_AUTH_NONE || owner->method == SQE_AUTH_ANONYMOUS)
        return true;
    return caller && caller->method != SQE_AUTH_NONE && caller->method != SQE_AUTH_ANONYMOUS &&
           strcmp(caller->user, owner->user) == 0;
}

/* Finds caller's query by id and slug (open or retained; a retained one becomes the most
 * recently used) and takes a reference; NULL when unknown or another user's. */
static trino_query *query_find(trino_registry *reg, const char *id, const char *slug,
                               const sqe_principal *caller) {
    pthread_mutex_lock(&reg->lock);
    trino_query *q = list_find(&reg->open, id);
    if (!q) q = list_find(&reg->retained, id);
    if (q && (strcmp(q->slug, slug) != 0 || !owned_by(q, caller))) q = NULL;
    if (q && q->in == &reg->retained) {
        list_remove(q);
        list_append(&reg->retained, q);
    }
    if (q) q->refs++;
    pthread_mutex_unlock(&reg->lock);
    return q;
}

/* Removes q from its list and drops the list's reference. Registry lock held. */
static void unlink_locked(trino_registry *reg, trino_query *q) {
    if (q->in == &reg->retained) reg->retained_bytes -= q->retained_bytes;
    list_remove(q);
    q->unlinked = true;
    query_unref_locked(q);
}

/* Drops the least recently used retained queries while the list is over its bounds. Registry
 * lock held. */
static void retained_trim_locked(trino_registry *reg) {
    while (reg->retained.head && (reg->retained.n > reg->opts.max_retained ||
                                  reg->retained_bytes > reg->opts.max_retained_bytes))
        unlink_locked(reg, reg->retained.head);
}

/* Moves an open query that is finished for good (fully fetched or canceled, its worker gone)
 * to the retained list, so it stops counting toward max_queries at once. What only the
 * statement needed (its request, unread pages) is freed; the last body stays for retries.
 * Anything else: nothing happens. Registry lock held (takes q's lock). */
static void retire_locked(trino_registry *reg, trino_query *q) {
    if (q->in != &reg->open || !q->worker_exited) return;
    pthread_mutex_lock(&q->lock);
    bool done = q->worker_done && (q->final_delivered || q->canceled);
    if (done) {
        drop_pages(q);
        trino_request_reset(&q->req);
        q->retained_bytes = sizeof *q + q->last_len + (q->columns_json ? strlen(q->columns_json) : 0);
        for (uint32_t i = 0; i < q->n_headers; i++)
            q->retained_bytes += strlen(q->headers[i].value) + sizeof q->headers[i];
    }
    pthread_mutex_unlock(&q->lock);
    if (!done) return;
    list_remove(q);
    list_append(&reg->retained, q);
    reg->retained_bytes += q->retained_bytes;
    pthread_cond_broadcast(&reg->slot_cond);
    retained_trim_locked(reg);
}

/* True when an open query's client has its end already (or canceled it) and only its worker's
 * exit keeps it open: it retires within moments (worker exit: retire_locked). Registry lock
 * held. */
static bool any_open_finishing_locked(trino_registry *reg) {
    bool any = false;
    for (trino_query *q = reg->open.head; q && !any; q = q->next) {
        pthread_mutex_lock(&q->lock);
        any = q->worker_done && (q->final_delivered || q->canceled);
        pthread_mutex_unlock(&q->lock);
    }
    return any;
}

/* --- response bodies ------------------------------------------------------------------------- */

/* Appends the QueryResults object. next_token 0 means no nextUri (the final response). pg may be
 * NULL (no data). Query lock held. */
static void results_json(const trino_query *q, const char *base_uri, uint64_t next_token,
                         const page *pg, strbuf *out) {
    int64_t now = now_ms();
    strbuf_puts(out, "{\"id\":");
    trino_json_string(q->id, out);
    strbuf_puts(out, ",\"infoUri\":");
    strbuf_printf(out, "\"%s/ui/query.html?%s\"", base_uri, q->id);
    if (next_token) {
        strbuf_printf(out, ",\"nextUri\":\"%s/v1/statement/%s/%s/%s/%llu\"", base_uri,
                      q->state == QS_QUEUED ? "queued" : "executing", q->id, q->slug,
                      (unsigned long long)next_token);
    }
    if (q->columns_json && q->state != QS_FAILED) {
        strbuf_puts(out, ",\"columns\":");
        strbuf_puts(out, q->columns_json);
    }
    if (pg && pg->n_rows) {
        strbuf_puts(out, ",\"data\":[");
        strbuf_append(out, pg->rows.data, pg->rows.len);
        strbuf_putc(out, ']');
    }
    query_state st = q->state;
    if (!next_token && st == QS_RUNNING) st = QS_FINISHED;
    int64_t started = q->started_ms ? q->started_ms : now;
    int64_t ended = q->finished_ms ? q->finished_ms : now;
    strbuf_printf(out,
                  ",\"stats\":{\"state\":\"%s\",\"queued\":%s,\"scheduled\":%s,\"nodes\":1,"
                  "\"totalSplits\":%llu,\"queuedSplits\":0,\"runningSplits\":0,"
                  "\"completedSplits\":%llu,\"cpuTimeMillis\":%lld,\"wallTimeMillis\":%lld,"
                  "\"queuedTimeMillis\":%lld,\"elapsedTimeMillis\":%lld,\"processedRows\":%llu,"
                  "\"processedBytes\":%llu,\"physicalInputBytes\":0,\"peakMemoryBytes\":0,"
                  "\"spilledBytes\":0}",
                  state_names[st], st == QS_QUEUED ? "true" : "false",
                  st == QS_QUEUED ? "false" : "true", (unsigned long long)q->chunks,
                  (unsigned long long)q->chunks, (long long)q->cpu_ms,
                  (long long)(q->started_ms ? ended - started : 0),
                  (long long)(started - q->created_ms), (long long)(now - q->created_ms),
                  (unsigned long long)q->rows_produced, (unsigned long long)q->bytes_produced);
    if (q->state == QS_FAILED) {
        strbuf_puts(out, ",\"error\":");
        trino_json_error(&q->error, out);
    }
    strbuf_puts(out, ",\"warnings\":[]");
    if (q->update_type[0] && !next_token && q->state != QS_FAILED) {
        strbuf_puts(out, ",\"updateType\":");
        trino_json_string(q->update_type, out);
        if (q->update_count >= 0)
            strbuf_printf(out, ",\"updateCount\":%lld", (long long)q->update_count);
    }
    strbuf_putc(out, '}');
}

/* Copies the query's session-change headers into the reply. Query lock held. */
static int copy_headers(const trino_query *q, trino_reply *reply) {
    if (!q->n_headers) return SQE_OK;
    reply->headers = calloc(q->n_headers, sizeof *reply->headers);
    if (!reply->headers) return SQE_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < q->n_headers; i++) {
        reply->headers[i].name = q->headers[i].name;
        reply->headers[i].value = strdup(q->headers[i].value);
        if (!reply->headers[i].value) return SQE_ERR_OUT_OF_MEMORY;
        reply->n_headers = i + 1;
    }
    return SQE_OK;
}

/* Moves the JSON in sb into reply (200, application/json); also caches it as the last body.
 * Query lock held. */
static int reply_json(trino_query *q, strbuf *sb, trino_reply *reply) {
    if (sb->failed) {
        strbuf_reset(sb);
        return trino_reply_set(reply, 500, "text/plain", "out of memory");
    }
    size_t len = sb->len;
    char *body = strbuf_move(sb);
    if (!body) return trino_reply_set(reply, 500, "text/plain", "out of memory");
    char *copy = malloc(len + 1);
    if (copy) memcpy(copy, body, len + 1);
    free(q->last_body);
    q->last_body = copy;
    q->last_len = copy ? len : 0;
    q->last_status = 200;
    reply->status = 200;
    reply->content_type = "application/json";
    reply->body = body;
    reply->body_len = len;
    if (copy_headers(q, reply) != SQE_OK) {
        trino_reply_reset(reply);
        return trino_reply_set(reply, 500, "text/plain", "out of memory");
    }
    return SQE_OK;
}

/* --- the worker ----------------------------------------------------------------------------- */

static bool is_canceled(trino_query *q) {
    pthread_mutex_lock(&q->lock);
    bool c = q->canceled;
    pthread_mutex_unlock(&q->lock);
    return c;
}

/* The error of a canceled query: the timeout, or the client's cancel. Query lock held. */
static void cancel_error(const trino_query *q, sqe_error *err) {
    if (q->timed_out)
        err_set(err, SQE_ERR_EXCEEDED_TIME_LIMIT,
                "Query exceeded the maximum execution time limit of %u ms ([query] timeout)",
                q->timeout_ms);
    else
        err_set(err, SQE_ERR_USER_CANCELED, "Query was canceled");
}

/* Gives back the admission slot (once). */
static void query_release(trino_query *q) {
    trino_registry *reg = q->reg;
    const srv_hooks *h = reg->opts.hooks;
    pthread_mutex_lock(&reg->lock);
    bool was = q->admitted;
    q->admitted = false;
    pthread_mutex_unlock(&reg->lock);
    if (was && h && h->release) h->release(h->ud, q->req.user);
}

static void fail(trino_query *q, const sqe_error *err) {
    pthread_mutex_lock(&q->lock);
    if (q->state != QS_FAILED) {
        q->state = QS_FAILED;
        q->error = *err;
        if (q->timed_out) cancel_error(q, &q->error);
        if (!q->error.code) q->error.code = SQE_ERR_GENERIC_INTERNAL_ERROR;
        drop_pages(q);
    }
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

/* Hands a page to the client side, waiting while MAX_PENDING pages are unread. Takes pg. */
static void push_page(trino_query *q, page *pg) {
    pthread_mutex_lock(&q->lock);
    while (q->n_pages >= MAX_PENDING && !q->canceled && q->state != QS_FAILED)
        pthread_cond_wait(&q->cond, &q->lock);
    if (q->canceled || q->state == QS_FAILED) {
        page_free(pg);
    } else {
        if (q->tail)
            q->tail->next = pg;
        else
            q->head = pg;
        q->tail = pg;
        q->n_pages++;
        q->rows_produced += pg->n_rows;
        q->bytes_produced += pg->rows.len;
        pthread_cond_broadcast(&q->cond);
    }
    pthread_mutex_unlock(&q->lock);
}

/* Restores the client's session on a fresh connection: the principal, then the state its
 * headers carry (catalog, schema, time zone, properties, prepared statements) through the
 * connection setters (server/core/session.c). */
static int restore_session(sqe_conn *conn, const trino_request *req, sqe_error *err) {
    if (req->header_error) return err_set(err, SQE_ERR_GENERIC_USER_ERROR, "%s", req->header_error);
    if (req->principal) sqe_conn_set_principal(conn, req->principal);
    else SQE_TRY(sqe_conn_set_user(conn, req->user, err));
    srv_session_state st;
    memset(&st, 0, sizeof st);
    int rc = srv_session_set_catalog_schema(&st, req->catalog, req->schema, err);
    if (!rc) rc = srv_session_set_time_zone(&st, req->time_zone, err);
    for (uint32_t i = 0; !rc && i < req->n_session; i++) {
        const trino_kv *kv = &req->session[i];
        if (!srv_session_property_name_ok(kv->name))
            rc = err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY,
                         "Invalid session property name in X-Trino-Session: '%s'", kv->name);
        else
            rc = srv_session_put(&st, SRV_SESSION_PROPERTIES, kv->name, kv->value, err);
    }
    for (uint32_t i = 0; !rc && i < req->n_prepared; i++)
        rc = srv_session_put(&st, SRV_SESSION_PREPARED, req->prepared[i].name,
                             req->prepared[i].value, err);
    if (!rc) rc = srv_session_apply(&st, conn, err);
    srv_session_state_clear(&st);
    return rc;
}

/* A header value must not carry control characters (no header injection from odd names). */
static bool header_safe(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return false;
    return true;
}

static int add_header(trino_query *q, const char *name, char *value) {
    if (!value) return SQE_ERR_OUT_OF_MEMORY;
    if (!header_safe(value)) {
        free(value);
        return SQE_OK;
    }
    trino_header *h = realloc(q->headers, (q->n_headers + 1) * sizeof *h);
    if (!h) {
        free(value);
        return SQE_ERR_OUT_OF_MEMORY;
    }
    q->headers = h;
    h[q->n_headers].name = name;
    h[q->n_headers].value = value;
    q->n_headers++;
    return SQE_OK;
}

/* The response headers for what the statement changed in the session, as the engine reports
 * it (sqe_effects.h). Query lock held. */
static int session_headers(trino_query *q, const sqe_result *res) {
    int rc = SQE_OK;
    int n = sqe_result_session_change_count(res);
    for (int i = 0; !rc && i < n; i++) {
        const sqe_session_change *c = sqe_result_session_change(res, i);
        strbuf sb;
        strbuf_init(&sb);
        switch (c->kind) {
        case SQE_CHANGE_CATALOG_SCHEMA:
            rc = add_header(q, "X-Trino-Set-Catalog", strdup(c->name));
            if (!rc) rc = add_header(q, "X-Trino-Set-Schema", strdup(c->value ? c->value : ""));
            break;
        case SQE_CHANGE_PROPERTY_SET:
            strbuf_printf(&sb, "%s=", c->name);
            trino_url_encode(c->value ? c->value : "", &sb);
            rc = add_header(q, "X-Trino-Set-Session", sb.failed ? NULL : strbuf_move(&sb));
            break;
        case SQE_CHANGE_PROPERTY_RESET:
            rc = add_header(q, "X-Trino-Clear-Session", strdup(c->name));
            break;
        case SQE_CHANGE_PREPARED_ADDED:
            trino_url_encode(c->name, &sb);
            strbuf_putc(&sb, '=');
            trino_url_encode(c->value ? c->value : "", &sb);
            rc = add_header(q, "X-Trino-Added-Prepare", sb.failed ? NULL : strbuf_move(&sb));
            break;
        case SQE_CHANGE_PREPARED_REMOVED:
            trino_url_encode(c->name, &sb);
            rc = add_header(q, "X-Trino-Deallocated-Prepare", sb.failed ? NULL : strbuf_move(&sb));
            break;
        case SQE_CHANGE_TIME_ZONE:
            rc = add_header(q, "X-Trino-Set-Time-Zone", strdup(c->value ? c->value : ""));
            break;
        }
        strbuf_reset(&sb);
    }
    return rc;
}

static page *page_new(void) {
    page *pg = calloc(1, sizeof *pg);
    if (pg) strbuf_init(&pg->rows);
    return pg;
}

/* Runs the statement and streams its pages. */
static void run_query(trino_query *q) {
    trino_registry *reg = q->reg;
    int64_t cpu0 = thread_cpu_ms();
    pthread_mutex_lock(&q->lock);
    q->state = QS_RUNNING;
    q->started_ms = now_ms();
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);

    sqe_error err;
    memset(&err, 0, sizeof err);
    sqe_conn *conn = NULL;
    sqe_result *res = NULL;
    int rc = sqe_connect(reg->db, &conn, &err);
    if (!rc) sqe_conn_set_cancel_flag(conn, &q->cancel_flag);
    if (!rc && (rc = restore_session(conn, &q->req, &err)) != SQE_OK)
        err.line = err.column = 0; /* a header's value has no position in the statement */
    if (!rc) rc = sqe_query(conn, q->req.sql, &res, &err);
    if (rc) {
        fail(q, &err);
        goto out_release;
    }

    int n_cols = sqe_result_column_count(res);
    bool synthetic = n_cols == 0; /* DDL: Trino answers one row "result" = true */
    strbuf cols;
    strbuf_init(&cols);
    if (synthetic)
        strbuf_puts(&cols, "[{\"name\":\"result\",\"type\":\"boolean\",\"typeSignature\":"
                           "{\"rawType\":\"boolean\",\"arguments\":[]}}]");
    else
        trino_json_columns(res, &cols);
    pthread_mutex_lock(&q->lock);
    int hrc = session_headers(q, res);
    snprintf(q->update_type, sizeof q->update_type, "%s", sqe_result_update_type(res));
    q->columns_json = cols.failed ? NULL : strbuf_move(&cols);
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    strbuf_reset(&cols);
    if (hrc || !q->columns_json) {
        err_nomem(&err, "response");
        fail(q, &err);
        goto out_release;
    }

    page *pg = NULL;
    const trino_server_options *o = &reg->opts;
    if (synthetic) {
        pg = page_new();
        if (pg) {
            strbuf_puts(&pg->rows, "[true]");
            pg->n_rows = 1;
        }
    }
    while (!rc) {
        if (is_canceled(q)) break;
        const sqe_chunk *chunk;
        rc = sqe_result_next(res, &chunk, &err);
        if (rc || !chunk) break;
        int n = sqe_chunk_row_count(chunk);
        pthread_mutex_lock(&q->lock);
        q->chunks++;
        pthread_mutex_unlock(&q->lock);
        for (int row = 0; row < n && !rc; row++) {
            if (!pg && !(pg = page_new())) {
                rc = err_nomem(&err, "result page");
                break;
            }
            if (pg->n_rows) strbuf_putc(&pg->rows, ',');
            trino_json_row(chunk, n_cols, row, &pg->rows);
            pg->n_rows++;
            if (pg->rows.failed) {
                rc = err_nomem(&err, "result page");
                break;
            }
            if (pg->n_rows >= o->page_rows || pg->rows.len >= o->page_bytes) {
                push_page(q, pg);
                pg = NULL;
                if (is_canceled(q)) break;
            }
        }
    }
    if (rc) {
        page_free(pg);
        fail(q, &err);
        goto out_release;
    }
    if (pg) {
        if (pg->rows.failed) {
            page_free(pg);
            err_nomem(&err, "result page");
            fail(q, &err);
            goto out_release;
        }
        push_page(q, pg);
    }
    pthread_mutex_lock(&q->lock);
    q->update_count = sqe_result_update_count(res);
    if (q->state == QS_RUNNING && !q->canceled) q->state = QS_FINISHED;
    pthread_mutex_unlock(&q->lock);

out_release:
    sqe_result_destroy(res);
    sqe_disconnect(conn);
    pthread_mutex_lock(&q->lock);
    q->worker_done = true;
    q->finished_ms = now_ms();
    q->cpu_ms = thread_cpu_ms() - cpu0;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

static void *worker_main(void *arg) {
    trino_query *q = arg;
    trino_registry *reg = q->reg;
    pthread_mutex_lock(&reg->lock);
    while (reg->n_running >= reg->opts.max_running && !reg->stopping) {
        pthread_mutex_lock(&q->lock);
        bool canceled = q->canceled;
        pthread_mutex_unlock(&q->lock);
        if (canceled) break;
        pthread_cond_wait(&reg->slot_cond, &reg->lock);
    }
    pthread_mutex_lock(&q->lock);
    bool run = !q->canceled && !reg->stopping;
    pthread_mutex_unlock(&q->lock);
    if (run) reg->n_running++;
    pthread_mutex_unlock(&reg->lock);

    if (run) {
        run_query(q); /* as q->req.principal: the session gets it (restore_session) */
    } else {
        sqe_error err;
        pthread_mutex_lock(&q->lock);
        cancel_error(q, &err);
        pthread_mutex_unlock(&q->lock);
        fail(q, &err);
        pthread_mutex_lock(&q->lock);
        q->worker_done = true;
        q->finished_ms = now_ms();
        pthread_cond_broadcast(&q->cond);
        pthread_mutex_unlock(&q->lock);
    }

    query_release(q);
    pthread_mutex_lock(&reg->lock);
    if (run) {
        reg->n_running--;
        pthread_cond_broadcast(&reg->slot_cond);
    }
    q->worker_exited = true;
    retire_locked(reg, q); /* when it was fetched to the end (or canceled) already */
    query_unref_locked(q);
    reg->n_workers--;
    pthread_cond_broadcast(&reg->workers_cond);
    pthread_mutex_unlock(&reg->lock);
    return NULL;
}

/* --- reaper --------------------------------------------------------------------------------- */

static void *reaper_main(void *arg) {
    trino_registry *reg = arg;
    pthread_mutex_lock(&reg->lock);
    while (!reg->stopping) {
        struct timespec ts = deadline_in(REAPER_PERIOD_MS);
        pthread_cond_timedwait(&reg->reaper_cond, &reg->lock, &ts);
        if (reg->stopping) break;
        int64_t now = now_ms();
        for (trino_query *q = reg->open.head, *next; q; q = next) {
            next = q->next;
            pthread_mutex_lock(&q->lock);
            bool done = q->worker_done && (q->final_delivered || q->canceled);
            if (!q->worker_done && !q->canceled && q->deadline_ms && now >= q->deadline_ms) {
                q->timed_out = true; /* [query] timeout */
                q->canceled = true;
                __atomic_store_n(&q->cancel_flag, 1, __ATOMIC_RELAXED);
                drop_pages(q);
                pthread_cond_broadcast(&q->cond);
            }
            if (!done && !q->canceled &&
                now - q->last_access_ms >= (int64_t)reg->opts.idle_timeout_ms) {
                q->canceled = true; /* abandoned: nobody fetched it */
                __atomic_store_n(&q->cancel_flag, 1, __ATOMIC_RELAXED);
                drop_pages(q);
                pthread_cond_broadcast(&q->cond);
            }
            pthread_mutex_unlock(&q->lock);
            retire_locked(reg, q); /* normally done by the last fetch or the worker's exit */
        }
        /* retained queries in LRU order: the head was used least recently */
        while (reg->retained.head) {
            trino_query *q = reg->retained.head;
            pthread_mutex_lock(&q->lock);
            bool expired = now - q->last_access_ms >= (int64_t)reg->opts.retain_ms;
            pthread_mutex_unlock(&q->lock);
            if (!expired) break;
            unlink_locked(reg, q);
        }
        pthread_cond_broadcast(&reg->slot_cond);
    }
    pthread_mutex_unlock(&reg->lock);
    return NULL;
}

/* --- registry ------------------------------------------------------------------------------- */

int trino_registry_create(sqe_db *db, const trino_server_options *opts, trino_registry **out,
                          sqe_error *err) {
    *out = NULL;
    trino_registry *reg = calloc(1, sizeof *reg);
    if (!reg) return err_nomem(err, "query registry");
    reg->db = db;
    reg->opts = *opts;
    if (!reg->opts.page_rows) reg->opts.page_rows = 8192;
    if (!reg->opts.page_bytes) reg->opts.page_bytes = 1 << 20;
    if (!reg->opts.max_queries) reg->opts.max_queries = 1000;
    if (!reg->opts.retain_ms) reg->opts.retain_ms = 5000;
    if (!reg->opts.max_retained) reg->opts.max_retained = 4096;
    if (!reg->opts.max_retained_bytes) reg->opts.max_retained_bytes = (size_t)64 << 20;
    if (!reg->opts.max_running) reg->opts.max_running = 64;
    if (!reg->opts.idle_timeout_ms) reg->opts.idle_timeout_ms = 300000;
    pthread_mutex_init(&reg->lock, NULL);
    pthread_cond_init(&reg->slot_cond, NULL);
    pthread_cond_init(&reg->workers_cond, NULL);
    pthread_cond_init(&reg->reaper_cond, NULL);
    if (pthread_create(&reg->reaper, NULL, reaper_main, reg) != 0) {
        trino_registry_destroy(reg);
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "cannot start the query reaper thread");
    }
    reg->reaper_started = true;
    *out = reg;
    return SQE_OK;
}

void trino_registry_cancel_all(trino_registry *reg) {
    pthread_mutex_lock(&reg->lock);
    for (trino_query *q = reg->open.head; q; q = q->next) {
        pthread_mutex_lock(&q->lock);
        q->canceled = true;
        __atomic_store_n(&q->cancel_flag, 1, __ATOMIC_RELAXED);
        drop_pages(q);
        pthread_cond_broadcast(&q->cond);
        pthread_mutex_unlock(&q->lock);
    }
    pthread_cond_broadcast(&reg->slot_cond);
    pthread_mutex_unlock(&reg->lock);
}

void trino_registry_destroy(trino_registry *reg) {
    if (!reg) return;
    trino_registry_cancel_all(reg);
    pthread_mutex_lock(&reg->lock);
    reg->stopping = true;
    pthread_cond_broadcast(&reg->slot_cond);
    pthread_cond_broadcast(&reg->reaper_cond);
    while (reg->n_workers > 0) pthread_cond_wait(&reg->workers_cond, &reg->lock);
    pthread_mutex_unlock(&reg->lock);
    if (reg->reaper_started) pthread_join(reg->reaper, NULL);
    while (reg->open.head) unlink_locked(reg, reg->open.head);
    while (reg->retained.head) unlink_locked(reg, reg->retained.head);
    pthread_mutex_destroy(&reg->lock);
    pthread_cond_destroy(&reg->slot_cond);
    pthread_cond_destroy(&reg->workers_cond);
    pthread_cond_destroy(&reg->reaper_cond);
    free(reg);
}

void trino_registry_set_draining(trino_registry *reg) {
    pthread_mutex_lock(&reg->lock);
    reg->draining = true;
    pthread_mutex_unlock(&reg->lock);
}

uint32_t trino_registry_active(trino_registry *reg) {
    uint32_t n = 0;
    pthread_mutex_lock(&reg->lock);
    for (trino_query *q = reg->open.head; q; q = q->next) {
        pthread_mutex_lock(&q->lock);
        if (!(q->worker_done && (q->final_delivered || q->canceled))) n++;
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_unlock(&reg->lock);
    return n;
}

int trino_registry_list_sessions(trino_registry *reg, sqe_session_emit emit, void *ctx,
                                 sqe_error *err) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t wall = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, mono = now_ms();
    int rc = SQE_OK;
    pthread_mutex_lock(&reg->lock);
    for (trino_query *q = reg->open.head; q && !rc; q = q->next) {
        pthread_mutex_lock(&q->lock);
        const trino_request *r = &q->req;
        sqe_session_row row = {
            .session_id = q->id,
            .user = r->user,
            .auth_method = sqe_auth_method_name(r->principal ? r->principal->method
                                                             : SQE_AUTH_NONE),
            .protocol = "trino",
            .source = r->source,
            .client_address = r->client_address,
            .created_ms = wall - (mono - q->created_ms),
            .last_used_ms = wall - (mono - q->last_access_ms),
            .catalog = r->catalog,
            .schema = r->schema,
            .state = q->worker_done ? "idle" : "active",
        };
        rc = emit(ctx, &row, err);
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_unlock(&reg->lock);
    return rc;
}

uint32_t trino_registry_running(trino_registry *reg) {
    pthread_mutex_lock(&reg->lock);
    uint32_t n = reg->n_workers;
    pthread_mutex_unlock(&reg->lock);
    return n;
}

/* A reply for requests the registry refuses (full, draining). */
static int refuse(trino_reply *reply, const char *why) {
    return trino_reply_set(reply, 503, "text/plain; charset=utf-8", why);
}

/* Answers a statement the admission hook refused: a FAILED QueryResults (HTTP 200, so clients
 * raise the error with its name and message) for a query that is never registered. Frees q. */
static int reject(trino_registry *reg, trino_query *q, const sqe_error *why, const char *base_uri,
                  trino_reply *reply) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char rnd[8];
    random_chars(rnd, 5, "abcdefghijklmnopqrstuvwxyz");
    pthread_mutex_lock(&reg->lock);
    unsigned n = ++reg->counter % 100000;
    pthread_mutex_unlock(&reg->lock);
    snprintf(q->id, sizeof q->id, "%04d%02d%02d_%02d%02d%02d_%05u_%s", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, n, rnd);
    q->state = QS_FAILED;
    q->error = *why;
    if (!q->error.code) q->error.code = SQE_ERR_GENERIC_USER_ERROR;
    q->worker_done = true;
    strbuf sb;
    strbuf_init(&sb);
    results_json(q, base_uri, 0, NULL, &sb);
    int rc = reply_json(q, &sb, reply);
    query_free(q);
    return rc;
}

int trino_query_submit(trino_registry *reg, trino_request *req, const char *base_uri,
                       trino_reply *reply) {
    trino_query *q = calloc(1, sizeof *q);
    if (!q) return trino_reply_set(reply, 500, "text/plain", "out of memory");
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cond, NULL);
    q->reg = reg;
    q->req = *req;
    memset(req, 0, sizeof *req);
    q->update_count = -1;
    q->created_ms = q->last_access_ms = now_ms();
    random_chars(q->slug, 24, "abcdefghijklmnopqrstuvwxyz0123456789");

    const srv_hooks *hooks = reg->opts.hooks;
    if (hooks && hooks->admit) {
        sqe_error aerr;
        err_clear(&aerr);
        uint32_t timeout = 0;
        if (hooks->admit(hooks->ud, q->req.user, strlen(q->req.sql), &timeout, &aerr) != SQE_OK)
            return reject(reg, q, &aerr, base_uri, reply);
        q->admitted = true;
        q->timeout_ms = timeout;
        q->deadline_ms = timeout ? q->created_ms + timeout : 0;
    }

    pthread_mutex_lock(&reg->lock);
    /* At the limit because of a query whose client already read its end (its worker is still
     * exiting): wait for it to retire rather than refuse a client that runs one query at a
     * time (bounded: 1 s). */
    int64_t wait_until = now_ms() + 1000;
    while (reg->open.n >= reg->opts.max_queries && !reg->draining && !reg->stopping &&
           now_ms() < wait_until && any_open_finishing_locked(reg)) {
        struct timespec ts = deadline_in(50);
        pthread_cond_timedwait(&reg->slot_cond, &reg->lock, &ts);
    }
    if (reg->draining || reg->stopping) {
        pthread_mutex_unlock(&reg->lock);
        query_release(q);
        query_free(q);
        return refuse(reply, "Server is shutting down");
    }
    if (reg->open.n >= reg->opts.max_queries) {
        uint32_t n = reg->open.n;
        pthread_mutex_unlock(&reg->lock);
        query_release(q);
        sqe_error full;
        err_set(&full, SQE_ERR_QUERY_QUEUE_FULL,
                "Too many queries in progress: %u queries are queued, running or have results "
                "not yet fetched, the most this server holds at once; retry when one finishes",
                n);
        return reject(reg, q, &full, base_uri, reply);
    }
    /* Trino query ids: YYYYMMDD_HHMMSS_NNNNN_xxxxx */
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char rnd[8];
    random_chars(rnd, 5, "abcdefghijklmnopqrstuvwxyz");
    snprintf(q->id, sizeof q->id, "%04d%02d%02d_%02d%02d%02d_%05u_%s", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             ++reg->counter % 100000, rnd);
    q->refs = 3; /* the list, the worker, this request */
    list_append(&reg->open, q);
    reg->n_workers++;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    int prc = pthread_create(&th, &attr, worker_main, q);
    pthread_attr_destroy(&attr);
    if (prc != 0) {
        if (q->admitted && hooks && hooks->release) hooks->release(hooks->ud, q->req.user);
        q->admitted = false;
        reg->n_workers--;
        q->refs--; /* no worker */
        unlink_locked(reg, q);
        query_unref_locked(q);
        pthread_mutex_unlock(&reg->lock);
        return refuse(reply, "Cannot start a query thread; retry later");
    }
    pthread_mutex_unlock(&reg->lock);

    pthread_mutex_lock(&q->lock);
    strbuf sb;
    strbuf_init(&sb);
    query_state saved = q->state;
    q->state = QS_QUEUED; /* the first answer is always QUEUED, as Trino's */
    results_json(q, base_uri, 1, NULL, &sb);
    q->state = saved;
    int rc = reply_json(q, &sb, reply);
    free(q->last_body); /* token 0 is the POST itself: not re-fetchable */
    q->last_body = NULL;
    pthread_mutex_unlock(&q->lock);
    query_unref(reg, q);
    return rc;
}

int trino_query_fetch(trino_registry *reg, const char *id, const char *slug, uint64_t token,
                      const sqe_principal *caller, const char *base_uri, trino_reply *reply) {
    trino_query *q = query_find(reg, id, slug, caller);
    if (!q) return trino_reply_set(reply, 404, "text/plain; charset=utf-8", "Query not found");
    pthread_mutex_lock(&q->lock);
    q->last_access_ms = now_ms();
    int rc;
    if (token == q->token && q->last_body) {
        /* a retry of the last request: same answer */
        reply->status = q->last_status;
        reply->content_type = "application/json";
        reply->body = malloc(q->last_len + 1);
        if (reply->body) {
            memcpy(reply->body, q->last_body, q->last_len + 1);
            reply->body_len = q->last_len;
            rc = copy_headers(q, reply);
        } else {
            rc = trino_reply_set(reply, 500, "text/plain", "out of memory");
        }
    } else if (token != q->token + 1 || q->final_delivered) {
        rc = trino_reply_set(reply, 410, "text/plain; charset=utf-8", "Token is no longer valid");
    } else {
        if (!q->canceled && q->state != QS_FAILED && !q->n_pages && !q->worker_done) {
            struct timespec ts = deadline_in(reg->opts.max_wait_ms ? reg->opts.max_wait_ms : 1000);
            while (!q->canceled && q->state != QS_FAILED && !q->n_pages && !q->worker_done) {
                if (pthread_cond_timedwait(&q->cond, &q->lock, &ts) == ETIMEDOUT) break;
            }
        }
        if (q->canceled && q->state != QS_FAILED) {
            q->state = QS_FAILED;
            cancel_error(q, &q->error);
        }
        strbuf sb;
        strbuf_init(&sb);
        page *pg = NULL;
        bool final = false;
        if (q->state == QS_FAILED) {
            final = true;
        } else if (q->n_pages) {
            pg = q->head;
            q->head = pg->next;
            if (!q->head) q->tail = NULL;
            q->n_pages--;
            pthread_cond_broadcast(&q->cond); /* room for the worker */
            final = q->worker_done && !q->n_pages && q->state == QS_FINISHED;
        } else if (q->worker_done) {
            final = true;
        }
        results_json(q, base_uri, final ? 0 : token + 1, pg, &sb);
        page_free(pg);
        q->token = token;
        if (final) q->final_delivered = true;
        rc = reply_json(q, &sb, reply);
    }
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_lock(&reg->lock);
    retire_locked(reg, q); /* the end was delivered: no longer in progress */
    query_unref_locked(q);
    pthread_mutex_unlock(&reg->lock);
    return rc;
}

int trino_query_cancel(trino_registry *reg, const char *id, const char *slug,
                       const sqe_principal *caller, trino_reply *reply) {
    trino_query *q = query_find(reg, id, slug, caller);
    if (!q) return trino_reply_set(reply, 404, "text/plain; charset=utf-8", "Query not found");
    pthread_mutex_lock(&q->lock);
    q->last_access_ms = now_ms();
    if (!q->final_delivered) {
        q->canceled = true;
        __atomic_store_n(&q->cancel_flag, 1, __ATOMIC_RELAXED);
        drop_pages(q);
    }
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_lock(&reg->lock);
    retire_locked(reg, q); /* when its worker is gone already */
    pthread_cond_broadcast(&reg->slot_cond);
    query_unref_locked(q);
    pthread_mutex_unlock(&reg->lock);
    reply->status = 204;
    return SQE_OK;
}
