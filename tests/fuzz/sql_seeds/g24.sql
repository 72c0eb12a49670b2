insert into t (a, b) select 1, 2;
