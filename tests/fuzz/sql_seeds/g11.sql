with recursive t(n) as (select 1 union all select n + 1 from t where n < 10) select * from t;
