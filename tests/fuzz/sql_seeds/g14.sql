select * from a join b on a.x = b.x left join c using (y) cross join d, e natural join f full outer join (g join h on true) on 1 = 1;
