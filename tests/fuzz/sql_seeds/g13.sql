(select 1 order by 1 limit 1) union all (select 2) limit all;
