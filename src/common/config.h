/*
 * config.h: the SQE configuration (sqe.toml), its defaults, environment overrides and checks.
 *
 * One struct holds every setting of `sqe serve` and `sqe worker` (DESIGN.md §7, sections after
 * the original SQE: reference/sqe-inventory.md §1). Every key is described once, in a registry
 * (name, kind, default, limits, help, secret flag: one table per section, config/<section>.def,
 * included by config.c), which drives loading, validation, environment overrides,
 * `sqe config show` and docs/configuration.md.
 *
 * Load order: defaults (embedded, loopback only), then the TOML file, then environment variables
 * SQE_<SECTION>__<KEY> (section dots become underscores: SQE_COORDINATOR_TLS__CERT_FILE,
 * SQE_CATALOGS_<NAME>__URI), then config_validate. Unknown keys and bad values are errors of the
 * form "sqe.toml:12: [query] timeout: why" (or "environment SQE_QUERY__TIMEOUT: ..."); nothing is
 * ignored silently.
 *
 * Units: durations are stored in milliseconds and written "250ms", "30s", "5m", "2h", "1d" or
 * combined "1h30m" (a bare integer means seconds); sizes are stored in bytes and written "4GiB",
 * "512MiB", "1MB" (KiB/MiB/GiB/TiB are powers of 1024, KB/MB/GB/TB of 1000; a bare integer means
 * bytes).
 */
#ifndef SQE_COMMON_CONFIG_H
#define SQE_COMMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/strbuf.h"
#include "sqe/sqe.h"

/* A list of strings (TOML array of strings; comma-separated in environment variables). */
typedef struct config_list {
    const char **items;
    size_t n;
} config_list;

/* Where a value came from. */
typedef enum config_source { CONFIG_DEFAULT = 0, CONFIG_FILE, CONFIG_ENV } config_source;

typedef struct config_origin {
    unsigned char source; /* config_source */
    int line;             /* CONFIG_FILE: line of the key */
} config_origin;

#define CONFIG_MAX_KEYS 192        /* registry entries for the fixed sections */
#define CONFIG_MAX_CATALOG_KEYS 32 /* registry entries of a catalog */
#define CONFIG_MAX_CATALOGS 64

/* [catalog] (the default catalog) and each [catalogs.NAME]. */
typedef struct config_catalog {
    const char *name;       /* [catalog] name = "iceberg"; the NAME of [catalogs.NAME] */
    const char *type;       /* "sqlite" | "rest" | "memory" */
    const char *uri;        /* rest: base URL; sqlite: database file ("" = <data_dir>/catalog.db) */
    const char *warehouse;  /* warehouse name (rest) or location ("" = <data_dir>/warehouse) */
    const char *auth;       /* session_bearer | static | anonymous | client_credentials |
                               token_exchange */
    const char *audience;   /* token_exchange: audience of the exchanged token */
    const char *token;      /* secret: static bearer token */
    const char *credential; /* secret: "client_id:client_secret" for client_credentials */
    const char *scope;      /* OAuth scope for client_credentials */
    const char *prefix;     /* rest: client-side path prefix ("" = the server's /v1/config) */
    const char *oauth2_server_uri; /* rest: token endpoint ("" = <uri>/v1/oauth/tokens) */
    int vended_credentials; /* rest: ask for vended storage credentials on loadTable */
    int64_t metadata_cache_ttl_ms;   /* table metadata cache lifetime */
    int64_t default_format_version;  /* Iceberg format version of new tables (1..3) */
    int require_vended_credentials;  /* drop static storage keys; use only vended credentials */
    int namespace_visibility_filter; /* hide namespaces the user cannot list */
    int64_t manifest_concurrency;    /* manifests read in parallel during planning */
    const char *parquet_compression; /* codec of written data files */
    /* static object-store settings of the catalog's table files: the fallback when loadTable
     * vends no credentials (s3.* of its config win); secrets never printed */
    const char *s3_access_key_id, *s3_secret_access_key, *s3_session_token;
    const char *s3_endpoint, *s3_region;
    int s3_path_style;
    /* STS AssumeRoleWithWebIdentity with the user's token when loadTable vends nothing */
    const char *s3_sts_endpoint, *s3_role_arn, *s3_role_session_name;
    int64_t s3_sts_duration_ms;
    config_origin origin[CONFIG_MAX_CATALOG_KEYS];
} config_catalog;

typedef struct config_tls {
    const char *cert_file, *key_file, *ca_file; /* ca_file set: client certificates required */
} config_tls;

typedef struct config_coordinator {
    const char *bind_address;
    int flight_sql_port; /* 0 disables */
    int trino_http_port; /* 0 disables */
    const char *mode;    /* local | hybrid | distributed */
    const char *data_dir;
    config_list worker_urls;
    const char *worker_secret;
    int allow_unauthenticated_workers;
    int64_t max_workers;
    int production_mode;
    int64_t memory_limit; /* bytes */
    const char *memory_pool;
    int64_t threads;
    int64_t shutdown_drain_ms;
    int64_t worker_connect_timeout_ms;
    int64_t worker_rpc_timeout_ms;
    int64_t auth_handshake_timeout_ms;
    int64_t health_check_interval_ms;
    int64_t health_check_max_failures;
    const char *flight_compression;
    int64_t flight_transport_memory; /* bytes gRPC may buffer on the Flight port */
    config_tls tls;
} config_coordinator;

typedef struct config_worker {
    const char *coordinator_url;
    const char *bind_address;
    int flight_port;
    const char *advertise_url;
    int64_t heartbeat_interval_ms;
    int64_t memory_limit;
    int64_t scan_timeout_ms;
    const char *worker_secret;
    int allow_unauthenticated;
    int64_t threads;
} config_worker;

/* [auth.oidc]: the OpenID Connect identity provider of the oidc_* providers. */
typedef struct config_oidc {
    const char *issuer, *discovery_url, *audience, *client_id, *client_secret,
        *client_secret_file, *scope, *user_claim, *groups_claim, *roles_claim;
    config_list allowed_algorithms;
    int64_t leeway_ms, jwks_cache_ttl_ms, jwks_refetch_interval_ms;
    int require_access_token_type, allow_insecure_http;
    int64_t refresh_before_ms, http_timeout_ms;
    int external_authentication;
    const char *redirect_url;
} config_oidc;

typedef struct config_auth {
    const char *mode; /* anonymous | password: the chain when providers is empty */
    config_list providers;           /* the chain's provider names, in order */
    config_list impersonation_roles; /* roles that may run as another named user */
    const char *users_file;
    int anonymous_loopback_only;
    int64_t max_concurrent_password_checks; /* 0 = half the cores */
    int64_t password_check_wait_ms;
    int64_t max_failures_per_address;
    int64_t token_ttl_ms;
    const char *token_secret;
    config_list admin_roles;
    config_oidc oidc;
} config_auth;

typedef struct config_storage {
    const char *s3_endpoint, *s3_region, *s3_access_key_id, *s3_secret_access_key,
        *s3_session_token;
    int s3_path_style, s3_allow_http;
    const char *azure_storage_account, *azure_storage_key, *azure_sas_token;
    const char *gcs_service_account_key;
    struct {
        int allow_local_paths, allow_http, allow_inline_credentials;
        config_list allowed_http_hosts, allowed_object_store_prefixes, object_store_admin_roles;
        config_list allowed_local_roots;
    } tvf;
} config_storage;

typedef struct config_policy {
    const char *engine; /* passthrough | in-memory | ranger */
    const char *mask_key;
    const char *mask_precedence;
    struct {
        const char *url, *service_name, *username, *password;
        int64_t timeout_ms, cache_ttl_ms, cache_size;
        int project_tags;
    } ranger;
} config_policy;

typedef struct config_access_control {
    const char *backend; /* none | polaris | ranger | chameleon */
    const char *url, *grant_authority, *client_id, *client_secret;
} config_access_control;

typedef struct config_metrics {
    int prometheus_port; /* 0 disables */
    int health_port;     /* 0 disables */
    const char *otlp_endpoint, *traces_otlp_endpoint;
    double trace_sample_rate;
    int web_ui;
    const char *log_level, *log_format;
    struct {
        int enabled;
        const char *target, *otlp_endpoint, *spool_path, *start_at;
        int64_t batch_max, flush_interval_ms, max_spool_bytes;
    } audit_export;
} config_metrics;

typedef struct config_audit {
    const char *path; /* "" = off */
    const char *format;
    config_list gdpr_tags;
    const char *gdpr_identifier_mode;
} config_audit;

typedef struct config_session {
    const char *persistence; /* memory | file */
    const char *dir;         /* "" = <data_dir>/sessions */
    int64_t idle_timeout_ms, absolute_timeout_ms, snapshot_interval_ms, sweep_interval_ms;
    int64_t max_sessions;
} config_session;

typedef struct config_query {
    int64_t timeout_ms;
    int64_t max_result_rows; /* 0 = unlimited */
    int64_t max_sql_bytes;   /* 0 = unlimited (refused in production mode) */
    int64_t max_concurrent, max_concurrent_per_user;
    int64_t memory_limit, per_user_memory; /* bytes */
    const char *profile;                   /* off | slow | all */
    int64_t stream_idle_timeout_ms;
    int64_t max_streams_per_user; /* Flight DoGet streams open at once per user */
} config_query;

typedef struct config_spill {
    int enabled;
    const char *dir; /* "" = <data_dir>/spill */
    const char *compression;
    int64_t max_bytes, min_free_bytes;
} config_spill;

/* The whole configuration. Strings are NUL-terminated and owned by cfg->arena (never NULL). */
typedef struct config {
    config_coordinator coordinator;
    config_worker worker;
    config_auth auth;
    config_catalog catalog;   /* [catalog]: the default catalog */
    config_catalog *catalogs; /* [catalogs.NAME], in file order */
    size_t n_catalogs;
    config_storage storage;
    config_policy policy;
    config_access_control access_control;
    config_metrics metrics;
    config_audit audit;
    config_session session;
    config_query query;
    config_spill spill;
    const char *path; /* file loaded last ("" if none) */
    config_origin origin[CONFIG_MAX_KEYS];
    arena arena;
} config;

/* Value kinds of the registry. */
typedef enum config_kind {
    CONFIG_STR = 1,  /* const char * */
    CONFIG_ENUM,     /* const char *, one of choices ("a|b|c") */
    CONFIG_BOOL,     /* int 0/1 */
    CONFIG_INT,      /* int64_t in [min, max] */
    CONFIG_PORT,     /* int in [0, 65535]; 0 disables */
    CONFIG_DURATION, /* int64_t milliseconds in [min, max] */
    CONFIG_SIZE,     /* int64_t bytes in [min, max] */
    CONFIG_FRACTION, /* double in [0, 1] */
    CONFIG_LIST,     /* config_list */
} config_kind;

enum {
    CONFIG_SECRET = 1,       /* redacted by config_render */
    CONFIG_DEFAULT_ONLY = 2, /* catalog key allowed only in [catalog] */
};

/* One registry entry. section is "coordinator", "coordinator.tls", ... or "catalog" for the keys
 * of [catalog] and every [catalogs.NAME] (offset then relative to config_catalog). */
typedef struct config_key {
    const char *section;
    const char *name;
    config_kind kind;
    size_t offset;
    const char *def; /* default in environment-variable syntax */
    int64_t min, max;
    const char *choices;
    unsigned flags;
    const char *alias; /* the original SQE's name for the key, accepted too; may be NULL */
    int (*check)(const char *value, char *why, size_t why_len); /* extra check of strings */
    const char *help;
} config_key;

/* The registry, in documentation order; *n gets its length. */
const config_key *config_keys(size_t *n);

/* Initializes cfg (caller-owned storage) with the defaults. Returns SQE_OK or OUT_OF_MEMORY;
 * after an error cfg is still safe to pass to config_reset. */
int config_init(config *cfg, sqe_error *err);
/* Frees everything cfg owns; cfg may be reused after config_init. */
void config_reset(config *cfg);

/* Applies a TOML document to cfg; filename is used in messages. On error cfg holds a mix of
 * old and new values: discard it (config_reset). */
int config_load_string(config *cfg, const char *text, size_t len, const char *filename,
                       sqe_error *err);
/* Reads and applies the file at path (IO_ERROR if it cannot be read). */
int config_load_file(config *cfg, const char *path, sqe_error *err);
/* Applies SQE_<SECTION>__<KEY> variables (and SQE_PRODUCTION_MODE) from envp, a NULL-terminated
 * "NAME=value" array; NULL means the process environment. */
int config_apply_env(config *cfg, char *const *envp, sqe_error *err);
/* Checks the settings together (TLS pairs, port clashes, required URIs, production_mode rules).
 * Returns SQE_OK or INVALID_ARGUMENTS with the first problem. */
int config_validate(const config *cfg, sqe_error *err);
/* Is provider ("password", "anonymous", "oidc_bearer", ...) in the effective authentication
 * chain: [auth] providers, or the chain mode stands for when providers is empty? */
bool config_auth_uses(const config *cfg, const char *provider);
/* The client secret of [auth.oidc]: client_secret, or client_secret_file's content without
 * trailing newlines (at most 4 KiB, not empty). *out is malloc'd (the caller wipes and frees
 * it), NULL when neither is set; errors name the key and file. */
int config_oidc_client_secret(const config_oidc *o, char **out, sqe_error *err);

/* Refuses what the configuration asks for that SQE does not do yet: a key of a feature that
 * does not exist (workers, spill, audit, policy, metrics export, ...) set to anything but its
 * default, and values such as mode = "distributed". INVALID_ARGUMENTS "[section] key: not yet
 * supported (why)" placed like config_validate's errors. `sqe serve` and `sqe config check` call
 * it after config_load, so no setting is silently ignored. */
int config_check_supported(const config *cfg, sqe_error *err);

/* Everything above in order: defaults, the file (if path is not NULL), the environment,
 * validation. On error cfg is reset (nothing to free). */
int config_load(config *cfg, const char *path, char *const *envp, sqe_error *err);

/* Appends the effective configuration to out as TOML that config_load_string accepts, one
 * section after the other, with secrets shown as "<redacted>" and a comment on values that
 * do not come from the defaults ("# sqe.toml:12", "# SQE_QUERY__TIMEOUT"). */
void config_render(const config *cfg, strbuf *out);

/* Finds a catalog by name ([catalog] or [catalogs.NAME]); NULL if there is none. */
const config_catalog *config_catalog_find(const config *cfg, const char *name);

/* Unit parsers (also used for session properties): return SQE_OK or INVALID_ARGUMENTS. */
int config_parse_duration(const char *text, int64_t *ms, sqe_error *err);
int config_parse_size(const char *text, int64_t *bytes, sqe_error *err);
/* Canonical text of a duration ("1h30m", "250ms", "0s") or a size ("4GiB", "1000B"). */
void config_format_duration(int64_t ms, char *buf, size_t buf_len);
void config_format_size(int64_t bytes, char *buf, size_t buf_len);

#endif
