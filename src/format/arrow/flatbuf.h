/*
 * flatbuf.h: the small part of FlatBuffers that Arrow IPC needs: a builder for tables, vtables,
 * vectors (of scalars, structs and offsets) and strings, and a bounds-checked reader for the
 * same, safe on hostile input.
 *
 * Wire format (FlatBuffers "internals"): a buffer starts with a uint32 offset to the root table.
 * A table starts with an int32 soffset to its vtable (vtable = table - soffset); the vtable is
 * uint16 [vtable bytes, table inline bytes, field offset per slot...] and a 0 offset means "field
 * absent, use the default". Offsets to strings, vectors and sub-tables are uint32 relative to the
 * position where the offset is stored and always point forward. Vectors and strings are a uint32
 * count followed by the elements (strings add a NUL). Everything little-endian and aligned to its
 * own size. A union occupies two slots: the uint8 type, then the offset of the value table.
 *
 * Slots are numbered from 0 in declaration order of the .fbs table (a union counts twice).
 */
#ifndef SQE_FORMAT_ARROW_FLATBUF_H
#define SQE_FORMAT_ARROW_FLATBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "flatbuf.c assumes a little-endian host"
#endif

/* ---- Builder ------------------------------------------------------------------------------ */

/* A reference to an object already written: its distance from the end of the buffer. 0 = none. */
typedef uint32_t fb_ref;

#define FB_MAX_SLOTS 32

typedef struct fb_builder {
    uint8_t *buf;      /* data occupies buf[cap - used, cap) (built back to front) */
    size_t cap;
    size_t used;
    size_t minalign;   /* largest alignment seen: the finished buffer is padded to it */
    int failed;        /* sticky: out of memory or misuse; checked by fb_builder_finish */
    /* table under construction (values staged until fb_table_end) */
    bool in_table;
    uint32_t n_staged;
    struct fb_staged {
        uint8_t slot;
        uint8_t size;      /* bytes of the inline value (1, 2, 4, 8 or a struct size) */
        uint8_t align;
        bool is_ref;       /* value is an fb_ref to be turned into a relative uoffset */
        uint8_t bytes[16];
    } staged[FB_MAX_SLOTS];
} fb_builder;

/* Initializes caller-owned storage (no allocation until the first write). */
void fb_builder_init(fb_builder *b);
/* Frees the buffer; b may be reused after fb_builder_init. */
void fb_builder_reset(fb_builder *b);

/* Strings and vectors; each returns a reference, or 0 after a failure (then b->failed is set).
 * Objects must be created before the table that refers to them is started. */
fb_ref fb_create_string(fb_builder *b, const char *s, size_t len);
/* A vector of n elements of elem_size bytes each, copied from data, aligned to align (a power of
 * two up to 16); used for scalars and for FlatBuffers structs (Arrow FieldNode, Buffer). */
fb_ref fb_create_vector(fb_builder *b, const void *data, size_t elem_size, size_t n, size_t align);
/* A vector of offsets to tables or strings. */
fb_ref fb_create_vector_refs(fb_builder *b, const fb_ref *refs, size_t n);

/* Tables: start, add fields (any order, each slot at most once), end. Fields are always
 * written, even when equal to the schema default (Arrow readers disagree on some defaults). */
void fb_table_start(fb_builder *b);
void fb_table_add_u8(fb_builder *b, unsigned slot, uint8_t v);
void fb_table_add_i16(fb_builder *b, unsigned slot, int16_t v);
void fb_table_add_i32(fb_builder *b, unsigned slot, int32_t v);
void fb_table_add_i64(fb_builder *b, unsigned slot, int64_t v);
void fb_table_add_ref(fb_builder *b, unsigned slot, fb_ref ref); /* no-op when ref == 0 */
fb_ref fb_table_end(fb_builder *b);

/* Writes the root offset and returns the finished buffer in *out / *len (owned by b, valid until
 * the next builder call). The length is a multiple of 8. Returns false on any earlier failure. */
bool fb_builder_finish(fb_builder *b, fb_ref root, const uint8_t **out, size_t *len);

/* ---- Reader ------------------------------------------------------------------------------- */

/* Every accessor checks bounds. A malformed buffer never causes an out-of-bounds read: the
 * accessor returns its default/absent answer and sets the reader's sticky `bad` flag, which the
 * caller checks after a group of reads. */
typedef struct fb_reader {
    const uint8_t *buf;
    size_t len;
    bool bad;
} fb_reader;

typedef struct fb_table {
    fb_reader *r;
    uint32_t pos;      /* table start */
    uint32_t vt;       /* vtable start */
    uint16_t vt_len;   /* vtable bytes */
    uint16_t tbl_len;  /* table inline bytes */
} fb_table;

typedef struct fb_vector {
    fb_reader *r;
    uint32_t pos;      /* first element */
    uint32_t n;        /* element count */
} fb_vector;

/* Opens buf[0, len) (borrowed) and reads the root table. Returns false if malformed. */
bool fb_reader_root(fb_reader *r, const void *buf, size_t len, fb_table *root);

/* Scalars: the stored value, or dflt when the field is absent (or out of bounds: then bad). */
uint8_t fb_get_u8(const fb_table *t, unsigned slot, uint8_t dflt);
int16_t fb_get_i16(const fb_table *t, unsigned slot, int16_t dflt);
int32_t fb_get_i32(const fb_table *t, unsigned slot, int32_t dflt);
int64_t fb_get_i64(const fb_table *t, unsigned slot, int64_t dflt);
/* Sub-table / vector / string: true when present and well-formed. */
bool fb_get_table(const fb_table *t, unsigned slot, fb_table *out);
bool fb_get_vector(const fb_table *t, unsigned slot, size_t elem_size, fb_vector *out);
bool fb_get_string(const fb_table *t, unsigned slot, const char **s, uint32_t *len);
/* Element i (< v->n) of a vector of tables or strings. */
bool fb_vector_table(const fb_vector *v, uint32_t i, fb_table *out);
bool fb_vector_string(const fb_vector *v, uint32_t i, const char **s, uint32_t *len);
/* Element data of a vector of scalars/structs (already bounds-checked for n elements of the
 * elem_size given to fb_get_vector); read it with memcpy (no alignment is assumed). */
static inline const uint8_t *fb_vector_data(const fb_vector *v) { return v->r->buf + v->pos; }

#endif
