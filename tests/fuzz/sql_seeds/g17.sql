select t.*, r.* as (a, b), * from t group by all a having count(*) > 1;
