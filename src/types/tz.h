/*
 * tz.h: time zones for TIMESTAMP WITH TIME ZONE and AT TIME ZONE: IANA names (read from the
 * system tz database, /usr/share/zoneinfo, TZif v1-v3 per RFC 8536) and fixed offsets
 * ("+05:30", "-08:00", "UTC").
 *
 * A zone key is a small int32 stored with each timestamp-with-time-zone value: 0 is UTC, keys
 * for fixed offsets are derived from the offset, keys for IANA zones are interned on first use
 * (thread-safe, process lifetime).
 */
#ifndef SQE_TYPES_TZ_H
#define SQE_TYPES_TZ_H

#include <stddef.h>
#include <stdint.h>

#define TZ_UTC 0

/* Looks up a zone by name ("America/New_York", "UTC", "Z", "+02:00", "-0530", "GMT+3"? no).
 * Case-insensitive for IANA names as Trino is. Returns 0 and sets *key, or -1 if unknown. */
int tz_lookup(const char *name, size_t len, int32_t *key);
/* The key of a fixed offset in minutes (-14*60..14*60). */
int32_t tz_key_for_offset(int offset_minutes);
/* Canonical name of a key ("UTC", "America/New_York", "+05:30"). Never NULL. */
const char *tz_name(int32_t key);
/* Offset in seconds from UTC of zone `key` at UTC instant utc_micros. */
int32_t tz_offset_at_utc(int32_t key, int64_t utc_micros);
/* Converts local wall-clock micros in zone key to UTC micros. For a gap (spring forward) the
 * time is shifted forward; for an overlap the earlier instant is chosen (as Java does). */
int64_t tz_local_to_utc(int32_t key, int64_t local_micros);
/* Converts UTC micros to local wall-clock micros in zone key. */
static inline int64_t tz_utc_to_local(int32_t key, int64_t utc_micros) {
    return utc_micros + (int64_t)tz_offset_at_utc(key, utc_micros) * 1000000;
}
/* Checks that data[0..size) is a TZif file this module accepts (RFC 8536 versions 1-3 with
 * consistent counts, ascending transitions, sane offsets, no leap-second records and a
 * parseable footer TZ string). Returns 0 or -1; never reads outside the buffer. For tests and
 * tooling: tz_lookup applies the same check to the files it loads. */
int tz_tzif_check(const void *data, size_t size);
/* The zone key of the process's default session zone (TZ env, /etc/localtime, else UTC). */
int32_t tz_system_default(void);

#endif
