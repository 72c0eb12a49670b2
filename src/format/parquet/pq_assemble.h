/*
 * pq_assemble.h: record assembly for nested columns (structs, lists, maps): turns the level
 * streams of a column's leaves (pq_column_next_entries) into nested SQE vectors (ROW, ARRAY,
 * MAP with child vectors), following the level rules of pq_schema.h.
 *
 * Lifetimes as for pq_column.h: values stay valid until the next batch of the leaf readers.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_ASSEMBLE_H
#define SQE_FORMAT_PARQUET_PQ_ASSEMBLE_H

#include "common/err.h"
#include "common/mem.h"
#include "format/parquet/pq_column.h"
#include "format/parquet/pq_schema.h"
#include "vec/vec.h"

typedef struct pq_assembler pq_assembler;

/* Prepares assembly of the top-level column col; readers is indexed by leaf number and must
 * hold an open reader for every leaf below col (borrowed; they must outlive the assembler). */
int pq_assemble_open(const pq_node *col, pq_column_reader **readers, const char *what,
                     mem_tracker *tracker, pq_assembler **out, sqe_error *err);
/* Assembles the next n records into out (a vector of col's type, reset by the caller). Fewer
 * records in the chunks than asked, or leaves that disagree, are INVALID_FILE. */
int pq_assemble_next(pq_assembler *a, vec *out, uint32_t n, sqe_error *err);
void pq_assemble_close(pq_assembler *a);

#endif
