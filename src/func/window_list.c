/*
 * window_list.c: the typed declarations of the window-only functions (ranking, distribution,
 * offset and value functions). The window operator evaluates them from partitioned, ordered
 * input using `kind`; the registry lists them so the binder can resolve and type-check calls.
 * Aggregates used as window functions (sum(x) OVER ...) come from the aggregate families.
 *
 * INTERFACE: func_window_family.
 * NOTES: signatures follow Trino: lag/lead take an optional bigint offset (default 1) and an
 * optional default value of the same type as x; nth_value's position is 1-based; ntile's
 * bucket count is bigint.
 */
#include "func/func.h"

static const func_window_def window_defs[] = {
    {"row_number", "", "bigint", FUNC_WIN_ROW_NUMBER, "Number of the row in its partition, from 1"},
    {"rank", "", "bigint", FUNC_WIN_RANK, "Rank of the row with gaps after ties"},
    {"dense_rank", "", "bigint", FUNC_WIN_DENSE_RANK, "Rank of the row without gaps"},
    {"percent_rank", "", "double", FUNC_WIN_PERCENT_RANK, "(rank - 1) / (rows in partition - 1)"},
    {"cume_dist", "", "double", FUNC_WIN_CUME_DIST,
     "Fraction of partition rows ordered before or tied with the row"},
    {"ntile", "bigint", "bigint", FUNC_WIN_NTILE, "Bucket number of the row, 1 to n"},
    {"lag", "T", "T", FUNC_WIN_LAG, "Value of x one row before the current row"},
    {"lag", "T,bigint", "T", FUNC_WIN_LAG, "Value of x offset rows before the current row"},
    {"lag", "T,bigint,T", "T", FUNC_WIN_LAG,
     "Value of x offset rows before the current row, or the default"},
    {"lead", "T", "T", FUNC_WIN_LEAD, "Value of x one row after the current row"},
    {"lead", "T,bigint", "T", FUNC_WIN_LEAD, "Value of x offset rows after the current row"},
    {"lead", "T,bigint,T", "T", FUNC_WIN_LEAD,
     "Value of x offset rows after the current row, or the default"},
    {"first_value", "T", "T", FUNC_WIN_FIRST_VALUE, "Value of x at the first row of the frame"},
    {"last_value", "T", "T", FUNC_WIN_LAST_VALUE, "Value of x at the last row of the frame"},
    {"nth_value", "T,bigint", "T", FUNC_WIN_NTH_VALUE,
     "Value of x at the given (1-based) row of the frame"},
};

const func_window_def *func_window_family(uint32_t *count) {
    *count = (uint32_t)(sizeof window_defs / sizeof window_defs[0]);
    return window_defs;
}
