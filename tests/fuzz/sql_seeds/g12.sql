select 1 union select 2 union all select 3 intersect select 4 except select 5 order by 1 offset 2 rows fetch first 3 rows with ties;
