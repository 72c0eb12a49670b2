/*
 * csv_files.c: which files and which byte ranges a read_csv scan reads: glob expansion and the
 * split of one file into ranges for parallel readers.
 *
 * INTERFACE: csv_split_ranges (file lists come from io_glob, io/io.h).
 * NOTES:
 *   - Range boundaries are plain byte offsets; each reader finds its first row start itself
 *     (csv_reader_open), so splitting needs no read of the file.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/csv/csv_int.h"

#define SPLIT_MIN_FILE ((uint64_t)8 << 20)
#define SPLIT_MIN_RANGE ((uint64_t)2 << 20)

int csv_split_ranges(const char *path, const csv_options *o, const csv_schema *schema, uint32_t n,
                     csv_range **out, uint32_t *n_out, sqe_error *err) {
    (void)o;
    *out = NULL;
    *n_out = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return err_set(err, SQE_ERR_NOT_FOUND, "File not found: %s", path);
    uint64_t size = (uint64_t)st.st_size;
    uint64_t data = schema->data_offset < size ? schema->data_offset : size;
    uint64_t n_ranges = n ? n : 1;
    if (size < SPLIT_MIN_FILE || schema->quoted_newlines) n_ranges = 1;
    if (n_ranges > (size - data) / SPLIT_MIN_RANGE) n_ranges = (size - data) / SPLIT_MIN_RANGE;
    if (n_ranges < 1) n_ranges = 1;
    csv_range *ranges = malloc(sizeof *ranges * n_ranges);
    if (!ranges) return err_nomem(err, "CSV ranges");
    uint64_t span = size - data;
    for (uint64_t i = 0; i < n_ranges; i++) {
        ranges[i].start = i == 0 ? 0 : data + span / n_ranges * i;
        ranges[i].end = i + 1 == n_ranges ? CSV_RANGE_END : data + span / n_ranges * (i + 1);
    }
    *out = ranges;
    *n_out = (uint32_t)n_ranges;
    return SQE_OK;
}
