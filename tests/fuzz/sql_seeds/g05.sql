select case when a then 1 when b then 2 else 3 end, case x when 1 then 'a' end, coalesce(a, b), if(a, 1, 2), try(1 / 0);
