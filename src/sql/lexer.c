/*
 * lexer.c: turns SQL text into an array of tokens (Trino's SqlBase.g4 lexical rules).
 *
 * INTERFACE
 *   sql_lex                  tokenize one statement text (linear time)
 *   sql_keyword_lookup       word -> keyword id (binary search in keywords.def)
 *   sql_keyword_name / sql_keyword_reserved / sql_keyword_table_sorted
 *   sql_tok_kind_name        display names for error messages
 *
 * NOTES
 *   - The whole text is tokenized up front so the parser can look ahead freely (lambda
 *     parameter lists, window names). Tokens keep offsets into the caller's text; values are
 *     decoded by the parser.
 *   - Lexical errors do not fail immediately: lexing stops and a TK_ERROR token is emitted, so
 *     an earlier syntax error is still reported first, as Trino does.
 *   - Numbers follow Trino: DECIMAL_INTEGER allows single underscores between digits; 0x/0o/0b
 *     prefixes; a digit-led word longer than any number it starts with (1abc, 0xZZ) is an
 *     error ("identifiers must not start with a digit").
 *   - Columns count UTF-8 code points, so positions match what an editor shows.
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql_int.h"

/* Token counts and offsets are int/uint32: keep the text well below both. */
#define SQL_MAX_TEXT ((size_t)1 << 30)

static const struct {
    const char *name;
    bool reserved;
} keyword_table[] = {
    {"", false},
#define X(name, reserved) {#name, reserved},
#include "sql/keywords.def"
#undef X
};

sql_kw sql_keyword_lookup(const char *word, size_t len) {
    char upper[32];
    if (len == 0 || len >= sizeof upper) return KW_NONE_;
    for (size_t i = 0; i < len; i++) {
        char c = word[i];
        upper[i] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
    }
    upper[len] = 0;
    int lo = 1, hi = KW_COUNT_ - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(upper, keyword_table[mid].name);
        if (c == 0) return (sql_kw)mid;
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return KW_NONE_;
}

const char *sql_keyword_name(sql_kw kw) {
    return (kw > KW_NONE_ && kw < KW_COUNT_) ? keyword_table[kw].name : "";
}

bool sql_keyword_reserved(sql_kw kw) {
    return kw > KW_NONE_ && kw < KW_COUNT_ && keyword_table[kw].reserved;
}

int sql_keyword_table_sorted(void) {
    for (int i = 2; i < KW_COUNT_; i++)
        if (strcmp(keyword_table[i - 1].name, keyword_table[i].name) >= 0) return 0;
    return 1;
}

const char *sql_tok_kind_name(sql_tok_kind kind) {
    switch (kind) {
    case TK_EOF: return "<EOF>";
    case TK_ERROR: return "<error>";
    case TK_WORD: return "<identifier>";
    case TK_QIDENT: return "<identifier>";
    case TK_STRING: return "<string>";
    case TK_USTRING: return "<string>";
    case TK_BSTRING: return "<binary literal>";
    case TK_INTEGER: return "<integer>";
    case TK_DECIMAL: return "<decimal>";
    case TK_DOUBLE: return "<double>";
    case TK_PARAM: return "'?'";
    case TK_LPAREN: return "'('";
    case TK_RPAREN: return "')'";
    case TK_LBRACKET: return "'['";
    case TK_RBRACKET: return "']'";
    case TK_COMMA: return "','";
    case TK_DOT: return "'.'";
    case TK_SEMI: return "';'";
    case TK_EQ: return "'='";
    case TK_NE: return "'<>'";
    case TK_LT: return "'<'";
    case TK_LE: return "'<='";
    case TK_GT: return "'>'";
    case TK_GE: return "'>='";
    case TK_PLUS: return "'+'";
    case TK_MINUS: return "'-'";
    case TK_STAR: return "'*'";
    case TK_SLASH: return "'/'";
    case TK_PERCENT: return "'%'";
    case TK_CONCAT: return "'||'";
    case TK_ARROW: return "'->'";
    case TK_NAMED: return "'=>'";
    case TK_COUNT_: break;
    }
    return "<token>";
}

/* ------------------------------------------------------------------------------------------- */

typedef struct lexer {
    arena *a;
    const char *s;
    size_t len;
    size_t i;      /* current byte */
    int line, col; /* position of byte i */
    sql_token *toks;
    int n, cap;
    sql_lexed *out;
} lexer;

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
static inline bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline bool is_word_char(char c) { return is_letter(c) || is_digit(c) || c == '_'; }
static inline bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Advances over n bytes, keeping line and column (columns count code points). */
static void lex_skip(lexer *lx, size_t n) {
    size_t end = lx->i + n;
    if (end > lx->len) end = lx->len;
    for (; lx->i < end; lx->i++) {
        unsigned char c = (unsigned char)lx->s[lx->i];
        if (c == '\n') {
            lx->line++;
            lx->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            lx->col++;
        }
    }
}

static int lex_push(lexer *lx, sql_tok_kind kind, sql_kw kw, size_t start, int line, int col) {
    if (lx->n == lx->cap) {
        int cap = lx->cap ? lx->cap * 2 : 64;
        sql_token *t = arena_alloc(lx->a, sizeof(sql_token) * (size_t)cap);
        if (!t) return -1;
        if (lx->n) memcpy(t, lx->toks, sizeof(sql_token) * (size_t)lx->n);
        lx->toks = t;
        lx->cap = cap;
    }
    sql_token *t = &lx->toks[lx->n++];
    t->kind = (uint8_t)kind;
    t->kw = (uint16_t)kw;
    t->off = (uint32_t)start;
    t->len = (uint32_t)(lx->i - start);
    t->line = line;
    t->col = col;
    return 0;
}

/* Length of Trino's DECIMAL_INTEGER at s[i..]: DIGIT ('_'? DIGIT)*. */
static size_t scan_decimal_integer(const char *s, size_t len, size_t i) {
    size_t start = i;
    if (i >= len || !is_digit(s[i])) return 0;
    i++;
    for (;;) {
        if (i < len && is_digit(s[i])) {
            i++;
        } else if (i + 1 < len && s[i] == '_' && is_digit(s[i + 1])) {
            i += 2;
        } else {
            break;
        }
    }
    return i - start;
}

/* Length of a prefixed integer (0x.., 0o.., 0b..) at s[i..], 0 if none. */
static size_t scan_prefixed_integer(const char *s, size_t len, size_t i) {
    if (i + 2 >= len || s[i] != '0') return 0;
    char p = s[i + 1];
    int base;
    if (p == 'x' || p == 'X')
        base = 16;
    else if (p == 'o' || p == 'O')
        base = 8;
    else if (p == 'b' || p == 'B')
        base = 2;
    else
        return 0;
    size_t j = i + 2;
    size_t digits = 0;
    for (;;) {
        size_t k = j;
        if (k < len && s[k] == '_') k++;
        if (k >= len) break;
        char c = s[k];
        bool ok = base == 16  ? is_hex(c)
                  : base == 8 ? (c >= '0' && c <= '7')
                              : (c == '0' || c == '1');
        if (!ok) break;
        j = k + 1;
        digits++;
    }
    return digits ? j - i : 0;
}

/* Scans a number starting at lx->i (a digit, or '.' followed by a digit). */
static void lex_number(lexer *lx, sql_tok_kind *kind, size_t *n_bytes, bool *digit_ident) {
    const char *s = lx->s;
    size_t len = lx->len, i = lx->i, n;
    sql_tok_kind k;
    size_t pref = scan_prefixed_integer(s, len, i);
    if (pref) {
        n = pref;
        k = TK_INTEGER;
    } else {
        size_t int_len = scan_decimal_integer(s, len, i);
        size_t j = i + int_len;
        k = TK_INTEGER;
        size_t frac_end = j;
        if (j < len && s[j] == '.') {
            size_t f = scan_decimal_integer(s, len, j + 1);
            if (int_len > 0 || f > 0) {
                frac_end = j + 1 + f;
                k = TK_DECIMAL;
            }
        }
        n = frac_end - i;
        /* Exponent: DOUBLE_VALUE is DIGIT+ ('.' DIGIT*)? EXPONENT | '.' DIGIT+ EXPONENT, with no
         * underscores in the digits. */
        if (frac_end < len && (s[frac_end] == 'e' || s[frac_end] == 'E')) {
            bool plain = true;
            for (size_t q = i; q < frac_end; q++)
                if (s[q] == '_') plain = false;
            size_t e = frac_end + 1;
            if (e < len && (s[e] == '+' || s[e] == '-')) e++;
            size_t d = e;
            while (d < len && is_digit(s[d])) d++;
            if (plain && d > e) {
                n = d - i;
                k = TK_DOUBLE;
            }
        }
    }
    /* DIGIT_IDENTIFIER: DIGIT (LETTER | DIGIT | '_')+ wins when strictly longer. */
    *digit_ident = false;
    if (is_digit(s[i])) {
        size_t w = i + 1;
        while (w < len && is_word_char(s[w])) w++;
        if (w - i > n && w - i >= 2) {
            *digit_ident = true;
            n = w - i;
        }
    }
    *kind = k;
    *n_bytes = n;
}

static void lex_fail(lexer *lx, const char *fmt, const char *arg) {
    snprintf(lx->out->error, sizeof lx->out->error, fmt, arg);
}

/* Quoted run starting at lx->i with the given quote character; doubled quotes escape.
 * Returns the number of bytes including both quotes, or 0 when unterminated. */
static size_t scan_quoted(const char *s, size_t len, size_t i, char quote) {
    size_t j = i + 1;
    while (j < len) {
        if (s[j] == quote) {
            if (j + 1 < len && s[j + 1] == quote) {
                j += 2;
                continue;
            }
            return j + 1 - i;
        }
        j++;
    }
    return 0;
}

int sql_lex(arena *a, const char *text, size_t len, sql_lexed *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (len >= SQL_MAX_TEXT)
        return err_set(err, SQE_ERR_QUERY_TEXT_TOO_LARGE,
                       "statement text too large (%zu bytes; the limit is 1 GiB)", len);
    lexer lx = {.a = a, .s = text, .len = len, .i = 0, .line = 1, .col = 1, .out = out};
    const char *s = text;
    bool failed = false;
    while (!failed) {
        /* whitespace and comments */
        while (lx.i < len) {
            char c = s[lx.i];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                lex_skip(&lx, 1);
            } else if (c == '-' && lx.i + 1 < len && s[lx.i + 1] == '-') {
                size_t j = lx.i;
                while (j < len && s[j] != '\n') j++;
                lex_skip(&lx, j - lx.i);
            } else if (c == '/' && lx.i + 1 < len && s[lx.i + 1] == '*') {
                const char *end = NULL;
                for (size_t j = lx.i + 2; j + 1 < len; j++)
                    if (s[j] == '*' && s[j + 1] == '/') {
                        end = s + j + 2;
                        break;
                    }
                if (!end) break; /* reported below as an error token */
                lex_skip(&lx, (size_t)(end - (s + lx.i)));
            } else {
                break;
            }
        }
        if (lx.i >= len) break;
        size_t start = lx.i;
        int line = lx.line, col = lx.col;
        char c = s[lx.i];
        char c1 = lx.i + 1 < len ? s[lx.i + 1] : 0;
        sql_tok_kind kind = TK_ERROR;
        sql_kw kw = KW_NONE_;
        size_t n = 1;

        if ((c == 'U' || c == 'u') && c1 == '&' && lx.i + 2 < len && s[lx.i + 2] == '\'') {
            size_t q = scan_quoted(s, len, lx.i + 2, '\'');
            if (!q) {
                lex_fail(&lx, "%s", "unterminated string literal");
                failed = true;
            } else {
                kind = TK_USTRING;
                n = 2 + q;
            }
        } else if ((c == 'X' || c == 'x') && c1 == '\'') {
            size_t q = scan_quoted(s, len, lx.i + 1, '\'');
            if (!q) {
                lex_fail(&lx, "%s", "unterminated binary literal");
                failed = true;
            } else {
                kind = TK_BSTRING;
                n = 1 + q;
            }
        } else if (is_letter(c) || c == '_') {
            size_t j = lx.i + 1;
            while (j < len && is_word_char(s[j])) j++;
            n = j - lx.i;
            kind = TK_WORD;
            kw = sql_keyword_lookup(s + lx.i, n);
        } else if (is_digit(c) || (c == '.' && is_digit(c1))) {
            bool digit_ident;
            lex_number(&lx, &kind, &n, &digit_ident);
            if (digit_ident) {
                lex_fail(&lx, "%s",
                         "identifiers must not start with a digit; surround the identifier with "
                         "double quotes");
                kind = TK_ERROR;
                failed = true;
            }
        } else if (c == '\'') {
            size_t q = scan_quoted(s, len, lx.i, '\'');
            if (!q) {
                lex_fail(&lx, "%s", "unterminated string literal");
                failed = true;
            } else {
                kind = TK_STRING;
                n = q;
            }
        } else if (c == '"') {
            size_t q = scan_quoted(s, len, lx.i, '"');
            if (!q) {
                lex_fail(&lx, "%s", "unterminated quoted identifier");
                failed = true;
            } else if (q == 2) {
                lex_fail(&lx, "%s", "zero-length delimited identifier not allowed");
                failed = true;
            } else {
                kind = TK_QIDENT;
                n = q;
            }
        } else if (c == '`') {
            lex_fail(&lx, "%s",
                     "backquoted identifiers are not supported; use double quotes to quote "
                     "identifiers");
            failed = true;
        } else {
            switch (c) {
            case '(': kind = TK_LPAREN; break;
            case ')': kind = TK_RPAREN; break;
            case '[': kind = TK_LBRACKET; break;
            case ']': kind = TK_RBRACKET; break;
            case ',': kind = TK_COMMA; break;
            case '.': kind = TK_DOT; break;
            case ';': kind = TK_SEMI; break;
            case '?': kind = TK_PARAM; break;
            case '+': kind = TK_PLUS; break;
            case '*': kind = TK_STAR; break;
            case '%': kind = TK_PERCENT; break;
            case '/':
                if (c1 == '*') {
                    lex_fail(&lx, "%s", "unterminated comment");
                    failed = true;
                } else {
                    kind = TK_SLASH;
                }
                break;
            case '-':
                if (c1 == '>') {
                    kind = TK_ARROW;
                    n = 2;
                } else {
                    kind = TK_MINUS;
                }
                break;
            case '=':
                if (c1 == '>') {
                    kind = TK_NAMED;
                    n = 2;
                } else {
                    kind = TK_EQ;
                }
                break;
            case '<':
                if (c1 == '=') {
                    kind = TK_LE;
                    n = 2;
                } else if (c1 == '>') {
                    kind = TK_NE;
                    n = 2;
                } else {
                    kind = TK_LT;
                }
                break;
            case '>':
                if (c1 == '=') {
                    kind = TK_GE;
                    n = 2;
                } else {
                    kind = TK_GT;
                }
                break;
            case '!':
                if (c1 == '=') {
                    kind = TK_NE;
                    n = 2;
                }
                break;
            case '|':
                if (c1 == '|') {
                    kind = TK_CONCAT;
                    n = 2;
                }
                break;
            default: break;
            }
            if (kind == TK_ERROR && !failed) {
                char shown[8];
                unsigned char uc = (unsigned char)c;
                if (uc >= 0x20 && uc < 0x7F)
                    snprintf(shown, sizeof shown, "%c", c);
                else if (uc >= 0x80) {
                    /* show the whole UTF-8 sequence */
                    size_t k = 1;
                    while (lx.i + k < len && k < 4 &&
                           ((unsigned char)s[lx.i + k] & 0xC0) == 0x80)
                        k++;
                    memcpy(shown, s + lx.i, k);
                    shown[k] = 0;
                } else
                    snprintf(shown, sizeof shown, "\\x%02x", uc);
                lex_fail(&lx, "token recognition error at: '%s'", shown);
                failed = true;
            }
        }
        if (failed) {
            /* The error token marks where lexing stopped; its length is 1 (or the bad word). */
            if (kind != TK_ERROR) kind = TK_ERROR;
            n = (is_digit(c) && n > 1) ? n : 1;
        }
        lex_skip(&lx, n);
        if (lex_push(&lx, kind, kw, start, line, col) != 0) return err_nomem(err, "SQL tokens");
    }
    if (failed) {
        /* EOF token right after the error token, at its position. */
        sql_token t = lx.toks[lx.n - 1];
        lx.i = t.off + t.len;
        if (lex_push(&lx, TK_EOF, KW_NONE_, lx.i, t.line, t.col) != 0)
            return err_nomem(err, "SQL tokens");
        lx.toks[lx.n - 1].len = 0;
    } else {
        if (lex_push(&lx, TK_EOF, KW_NONE_, lx.i, lx.line, lx.col) != 0)
            return err_nomem(err, "SQL tokens");
    }
    out->toks = lx.toks;
    out->n_toks = lx.n;
    return SQE_OK;
}
