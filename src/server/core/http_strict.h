/*
 * http_strict.h: strict HTTP/1.1 request framing for libmicrohttpd daemons, against request
 * smuggling behind a proxy.
 *
 * libmicrohttpd 0.9.75 (Debian 12) accepts, even with MHD_OPTION_STRICT_FOR_CLIENT = 1 (which
 * only requires Host and refuses spaces in the URL): Content-Length together with
 * Transfer-Encoding (chunked wins), two different Content-Lengths (the first wins), a space
 * before the colon ("Transfer-Encoding :" becomes a header named "Transfer-Encoding "), folded
 * header lines (glued onto the previous line, even onto its name), bare LF or CR line ends, and
 * bare-LF chunk lines. A proxy in front may read any of these differently. The check below
 * refuses them all once the headers are parsed, before any body byte is read:
 * - Transfer-Encoding is refused outright: SQE's endpoints take bodies with a Content-Length
 *   only (every Trino client sends one), so no chunked framing is ever parsed;
 * - Content-Length must be digits, and repeated only with the same value;
 * - header names must be RFC 9110 tokens, values free of control characters but HTAB;
 * - every header line must have ended in CRLF, unfolded (checked from where libmicrohttpd left
 *   the parsed lines in its read buffer; only for the 0.9.75 parser this was verified against,
 *   newer versions get MHD_OPTION_CLIENT_DISCIPLINE_LVL instead, see http_strict_options).
 */
#ifndef SQE_SERVER_CORE_HTTP_STRICT_H
#define SQE_SERVER_CORE_HTTP_STRICT_H

#include <microhttpd.h>
#include <stdbool.h>

/* Checks the framing of c's current request (call on the first access-handler call of a
 * request). Returns true when it is acceptable; otherwise false with *why (static text) set:
 * answer 400 and close the connection (http_strict_refuse). */
bool http_strict_check(struct MHD_Connection *c, const char **why);

/* Queues the 400 for a refused request, with Connection: close. */
enum MHD_Result http_strict_refuse(struct MHD_Connection *c, const char *why);

/* The daemon options of the strictest parsing the installed libmicrohttpd offers, to pass with
 * MHD_OPTION_ARRAY (static storage; terminated by MHD_OPTION_END). */
const struct MHD_OptionItem *http_strict_options(void);

#endif
