/*
 * pq_assemble.c: Dremel record assembly (see pq_assemble.h and the level rules in pq_schema.h).
 *
 * INTERFACE: pq_assemble_open, pq_assemble_next, pq_assemble_close.
 * NOTES
 *   Each leaf is processed on its own, entry by entry, walking its path from the top-level
 *   column down. Nested vectors shared by several leaves (a struct's validity, a list's
 *   offsets) are written only by their first leaf (the node's "owner"); the other leaves walk
 *   the same path to place their own values. For an entry (d, r): r == 0 starts a new record at
 *   the column; r > 0 adds an element to the list/map on the path whose elem_rep is r. Below
 *   that point every node gets a new instance while d says it is present: a NULL instance
 *   (d < def) ends the walk, after giving the struct-aligned nodes below it NULL placeholders
 *   so every struct child keeps one row per struct row; an empty list (d < elem_def) ends it
 *   too.
 */
#include "format/parquet/pq_assemble.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY_BATCH 1024

typedef struct leaf_stream {
    pq_column_reader *rd;
    const pq_node *leaf;
    uint32_t depth;              /* path[0] is the column, path[depth - 1] the leaf */
    const pq_node **path;
    uint32_t *node_id;           /* index into pq_assembler.cnt / vecs */
    uint32_t *child_idx;         /* path[i] is children[child_idx[i]] of path[i - 1] */
    bool *owner;
    uint16_t def[ENTRY_BATCH], rep[ENTRY_BATCH];
    uint32_t n, pos;
    vec vals;
    bool vals_ok;
    uint32_t n_vals, vpos;
    bool ended;
} leaf_stream;

struct pq_assembler {
    const pq_node *col;
    const char *what;
    mem_tracker *tracker;
    leaf_stream *leaves;
    uint32_t n_leaves;
    uint32_t n_nodes;
    uint32_t *cnt;               /* instances appended per node in this batch */
    vec **vecs;                  /* the vector of each node in this batch */
    const pq_node **nodes;
};

static int asm_error(pq_assembler *a, sqe_error *err, const char *why) {
    return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet file %s: column %s: %s", a->what,
                   a->col->name, why);
}

void pq_assemble_close(pq_assembler *a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->n_leaves; i++) {
        leaf_stream *s = &a->leaves[i];
        free(s->path);
        free(s->node_id);
        free(s->child_idx);
        free(s->owner);
        if (s->vals_ok) vec_destroy(&s->vals);
    }
    free(a->leaves);
    free(a->cnt);
    free(a->vecs);
    free(a->nodes);
    free(a);
}

static void count_nodes(const pq_node *n, uint32_t *nodes, uint32_t *leaves) {
    (*nodes)++;
    if (n->kind == PQ_NODE_LEAF) (*leaves)++;
    for (uint32_t i = 0; i < n->n_children; i++) count_nodes(n->children[i], nodes, leaves);
}

typedef struct walk_ctx {
    pq_assembler *a;
    pq_column_reader **readers;
    uint32_t next_node, next_leaf;
    const pq_node *stack[128];
    uint32_t stack_id[128], stack_child[128];
    uint32_t depth;
    sqe_error *err;
} walk_ctx;

static int walk(walk_ctx *w, const pq_node *n, uint32_t child_idx) {
    if (w->depth >= 128) return asm_error(w->a, w->err, "nesting too deep");
    uint32_t id = w->next_node++;
    w->a->nodes[id] = n;
    w->stack[w->depth] = n;
    w->stack_id[w->depth] = id;
    w->stack_child[w->depth] = child_idx;
    w->depth++;
    if (n->kind == PQ_NODE_LEAF) {
        leaf_stream *s = &w->a->leaves[w->next_leaf++];
        s->leaf = n;
        s->rd = w->readers[n->leaf];
        if (!s->rd) return err_set(w->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "leaf reader missing");
        s->depth = w->depth;
        s->path = malloc(w->depth * sizeof *s->path);
        s->node_id = malloc(w->depth * sizeof *s->node_id);
        s->child_idx = malloc(w->depth * sizeof *s->child_idx);
        s->owner = malloc(w->depth * sizeof *s->owner);
        if (!s->path || !s->node_id || !s->child_idx || !s->owner) return err_nomem(w->err, "Parquet assembler");
        for (uint32_t i = 0; i < w->depth; i++) {
            s->path[i] = w->stack[i];
            s->node_id[i] = w->stack_id[i];
            s->child_idx[i] = w->stack_child[i];
            s->owner[i] = w->stack[i]->first_leaf == n->leaf;
        }
        SQE_TRY(vec_init(&s->vals, n->type, ENTRY_BATCH, w->a->tracker, w->err));
        s->vals_ok = true;
    }
    for (uint32_t i = 0; i < n->n_children; i++) SQE_TRY(walk(w, n->children[i], i));
    w->depth--;
    return SQE_OK;
}

int pq_assemble_open(const pq_node *col, pq_column_reader **readers, const char *what,
                     mem_tracker *tracker, pq_assembler **out, sqe_error *err) {
    *out = NULL;
    pq_assembler *a = calloc(1, sizeof *a);
    if (!a) return err_nomem(err, "Parquet assembler");
    a->col = col;
    a->what = what;
    a->tracker = tracker;
    uint32_t nodes = 0, leaves = 0;
    count_nodes(col, &nodes, &leaves);
    a->n_nodes = nodes;
    a->n_leaves = leaves;
    a->leaves = calloc(leaves ? leaves : 1, sizeof *a->leaves);
    a->cnt = calloc(nodes, sizeof *a->cnt);
    a->vecs = calloc(nodes, sizeof *a->vecs);
    a->nodes = calloc(nodes, sizeof *a->nodes);
    if (!a->leaves || !a->cnt || !a->vecs || !a->nodes) {
        pq_assemble_close(a);
        return err_nomem(err, "Parquet assembler");
    }
    walk_ctx w = {.a = a, .readers = readers, .err = err};
    int rc = walk(&w, col, 0);
    a->n_leaves = w.next_leaf;
    if (rc) {
        pq_assemble_close(a);
        return rc;
    }
    *out = a;
    return SQE_OK;
}

/* Makes sure the leaf has a buffered entry; false at the end of its chunk. */
static int stream_fill(pq_assembler *a, leaf_stream *s, bool *have, sqe_error *err) {
    *have = true;
    if (s->pos < s->n) return SQE_OK;
    if (s->ended) {
        *have = false;
        return SQE_OK;
    }
    s->n = s->pos = 0;
    s->n_vals = s->vpos = 0;
    vec_reset(&s->vals);
    uint32_t got;
    SQE_TRY(pq_column_next_entries(s->rd, ENTRY_BATCH, s->def, s->rep, &got, &s->vals, &s->n_vals, err));
    if (got == 0) {
        s->ended = true;
        *have = false;
        return SQE_OK;
    }
    s->n = got;
    return SQE_OK;
}

/* Appends an instance to node i's vector: NULL, or valid. Lists/maps get an empty entry. */
static int append_instance(pq_assembler *a, uint32_t id, bool null, sqe_error *err) {
    vec *v = a->vecs[id];
    const pq_node *n = a->nodes[id];
    uint32_t row = a->cnt[id];
    SQE_TRY(vec_reserve(v, row + 1, err));
    if (n->kind == PQ_NODE_LIST || n->kind == PQ_NODE_MAP) {
        uint32_t child = 0;
        for (uint32_t i = id + 1; i < a->n_nodes; i++)
            if (a->nodes[i] == n->children[0]) {
                child = i;
                break;
            }
        VEC_DATA(v, sqe_list_entry)[row] = (sqe_list_entry){a->cnt[child], 0};
    }
    if (null) SQE_TRY(vec_set_null(v, row));
    a->cnt[id] = row + 1;
    return SQE_OK;
}

/* NULL placeholders for the nodes below path[i] that are row-aligned with it. */
static int null_below(pq_assembler *a, leaf_stream *s, uint32_t i, sqe_error *err) {
    while (i + 1 < s->depth && s->path[i]->kind == PQ_NODE_STRUCT) {
        i++;
        if (s->owner[i]) SQE_TRY(append_instance(a, s->node_id[i], true, err));
    }
    return SQE_OK;
}

static int process_entry(pq_assembler *a, leaf_stream *s, uint32_t d, uint32_t r, sqe_error *err) {
    uint32_t start = 0;
    if (r > 0) {
        uint32_t j = 0;
        while (j < s->depth && !((s->path[j]->kind == PQ_NODE_LIST || s->path[j]->kind == PQ_NODE_MAP) &&
                                 (uint32_t)s->path[j]->elem_rep == r))
            j++;
        if (j >= s->depth || j + 1 >= s->depth) return asm_error(a, err, "repetition level without a matching list");
        if (d < (uint32_t)s->path[j]->elem_def) return asm_error(a, err, "repeated entry without an element");
        if (s->owner[j]) {
            uint32_t id = s->node_id[j];
            if (a->cnt[id] == 0) return asm_error(a, err, "repeated entry before its list");
            VEC_DATA(a->vecs[id], sqe_list_entry)[a->cnt[id] - 1].length++;
        }
        start = j + 1;
    }
    for (uint32_t i = start; i < s->depth; i++) {
        const pq_node *n = s->path[i];
        uint32_t id = s->node_id[i];
        if (d < (uint32_t)n->def) {
            if (s->owner[i]) SQE_TRY(append_instance(a, id, true, err));
            return null_below(a, s, i, err);
        }
        if (n->kind == PQ_NODE_LEAF) {
            if (s->vpos >= s->n_vals) return asm_error(a, err, "fewer values than levels");
            vec *v = a->vecs[id];
            uint32_t row = a->cnt[id];
            SQE_TRY(vec_reserve(v, row + 1, err));
            size_t w = type_physical_size(n->type);
            if (n->conv == PQ_CONV_NULL)
                SQE_TRY(vec_set_null(v, row));
            else if (w)
                memcpy((uint8_t *)v->data + (size_t)row * w, (const uint8_t *)s->vals.data + (size_t)s->vpos * w, w);
            s->vpos++;
            a->cnt[id] = row + 1;
            return SQE_OK;
        }
        if (s->owner[i]) SQE_TRY(append_instance(a, id, false, err));
        if (n->kind == PQ_NODE_LIST || n->kind == PQ_NODE_MAP) {
            if (d < (uint32_t)n->elem_def) return SQE_OK; /* empty */
            if (s->owner[i]) VEC_DATA(a->vecs[id], sqe_list_entry)[a->cnt[id] - 1].length = 1;
        }
    }
    return SQE_OK;
}

static void bind_vecs(pq_assembler *a, vec *out) {
    /* Node ids are in DFS order; the vector of a child is children[index] of its parent's. */
    a->vecs[0] = out;
    for (uint32_t l = 0; l < a->n_leaves; l++) {
        leaf_stream *s = &a->leaves[l];
        for (uint32_t i = 1; i < s->depth; i++)
            a->vecs[s->node_id[i]] = &a->vecs[s->node_id[i - 1]]->children[s->child_idx[i]];
    }
}

int pq_assemble_next(pq_assembler *a, vec *out, uint32_t n, sqe_error *err) {
    memset(a->cnt, 0, a->n_nodes * sizeof *a->cnt);
    bind_vecs(a, out);
    for (uint32_t l = 0; l < a->n_leaves; l++) {
        leaf_stream *s = &a->leaves[l];
        uint32_t records = 0;
        for (;;) {
            bool have;
            SQE_TRY(stream_fill(a, s, &have, err));
            if (!have) break;
            uint32_t r = s->leaf->max_rep > 0 ? s->rep[s->pos] : 0;
            if (r == 0) {
                if (records == n) break;
                records++;
            } else if (records == 0) {
                return asm_error(a, err, "first entry of a record with a repetition level above 0");
            }
            SQE_TRY(process_entry(a, s, s->def[s->pos], r, err));
            s->pos++;
        }
        if (records != n) return asm_error(a, err, "fewer records than the row group's row count");
    }
    if (a->cnt[0] != n) return asm_error(a, err, "leaves disagree on the record count");
    /* Child lengths of lists and maps. */
    for (uint32_t id = 0; id < a->n_nodes; id++) {
        const pq_node *nd = a->nodes[id];
        if (nd->kind != PQ_NODE_LIST && nd->kind != PQ_NODE_MAP) continue;
        for (uint32_t c = id + 1; c < a->n_nodes; c++)
            if (a->nodes[c] == nd->children[0]) {
                a->vecs[id]->child_len = a->cnt[c];
                if (nd->kind == PQ_NODE_MAP) {
                    for (uint32_t v = c + 1; v < a->n_nodes; v++)
                        if (a->nodes[v] == nd->children[1] && a->cnt[v] != a->cnt[c])
                            return asm_error(a, err, "map keys and values disagree");
                }
                break;
            }
    }
    return SQE_OK;
}
