/*
 * scan_wire.h: the byte-level primitives of the scan task encoding (scan_task.h): a writer
 * over a strbuf and a bounds-checked reader that remembers the first error with its offset.
 * Private to src/scan/.
 *
 * INTERFACE: scan_w_* (append little-endian integers, strings, types), scan_r_* (read them;
 * every read checks the bytes left; after the first failure every read fails and returns
 * zeroes, so callers check scan_r_ok once per item).
 */
#ifndef SQE_SCAN_SCAN_WIRE_H
#define SQE_SCAN_SCAN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "types/types.h"

/* ---- writing (a strbuf; its `failed` flag records out of memory) ---- */
void scan_w_u8(strbuf *w, uint8_t v);
void scan_w_u16(strbuf *w, uint16_t v);
void scan_w_u32(strbuf *w, uint32_t v);
void scan_w_u64(strbuf *w, uint64_t v);
void scan_w_bytes(strbuf *w, const void *p, size_t n);
/* A string: u32 length + bytes; NULL is written as length 0xFFFFFFFF. */
void scan_w_str(strbuf *w, const char *s);
void scan_w_strn(strbuf *w, const char *s, uint32_t len);
/* Overwrites 4 bytes at pos with v (a length written as a placeholder). */
void scan_w_patch_u32(strbuf *w, size_t pos, uint32_t v);
/* A type: id, precision, scale, length; nested types: child count, (has name, name, child)*.
 * Errors only with out of memory (w->failed). */
void scan_w_type(strbuf *w, sqe_type t);

/* ---- reading ---- */
typedef struct scan_r {
    const uint8_t *p;
    size_t len, pos;
    size_t base;          /* offset of p[0] in the whole task, for messages */
    arena *a;             /* where strings and arrays go */
    sqe_error *err;
    int rc;               /* first error (SQE_OK while fine) */
} scan_r;

void scan_r_init(scan_r *r, const uint8_t *p, size_t len, size_t base, arena *a, sqe_error *err);
static inline bool scan_r_ok(const scan_r *r) { return r->rc == 0; }
static inline size_t scan_r_left(const scan_r *r) { return r->len - r->pos; }
/* Fails r with INVALID_ARGUMENTS "Invalid scan task: <what> at offset N" (the first error
 * wins). Returns the error code. */
int scan_r_fail(scan_r *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails r with code and a message (e.g. NOT_SUPPORTED, OUT_OF_MEMORY). */
int scan_r_fail_code(scan_r *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint8_t scan_r_u8(scan_r *r, const char *what);
uint16_t scan_r_u16(scan_r *r, const char *what);
uint32_t scan_r_u32(scan_r *r, const char *what);
uint64_t scan_r_u64(scan_r *r, const char *what);
int64_t scan_r_i64(scan_r *r, const char *what);
int32_t scan_r_i32(scan_r *r, const char *what);
bool scan_r_bool(scan_r *r, const char *what);
/* n raw bytes (a pointer into the input), NULL on failure. */
const uint8_t *scan_r_bytes(scan_r *r, size_t n, const char *what);
/* A string copied NUL-terminated into r->a; NULL for the NULL string (then *is_null, when
 * given, is set) and on failure. allow_null false makes a NULL string an error. */
const char *scan_r_str(scan_r *r, bool allow_null, uint32_t *len_out, const char *what);
/* An array count: fails unless count * min_item_bytes fits in the bytes left and
 * count <= max. */
uint32_t scan_r_count(scan_r *r, size_t min_item_bytes, uint32_t max, const char *what);
/* A type written by scan_w_type (nesting at most depth levels). */
sqe_type scan_r_type(scan_r *r, uint32_t depth, const char *what);

#endif
