create or replace table if not exists t (a bigint not null comment 'x' with (k = 1), b varchar(10), c timestamp(6) with time zone) comment 'tbl' with (format = 'PARQUET', partitioning = array['a']);
