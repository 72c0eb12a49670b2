create table t (a, b) with (x = 1) as select 1, 2 with no data;
