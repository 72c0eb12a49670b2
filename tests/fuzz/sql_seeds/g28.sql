alter table if exists t add column if not exists c bigint;
