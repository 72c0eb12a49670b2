select * from (select 1) as t(a), lateral (select a) l, unnest(arr, arr2) with ordinality as u(x, y, o), read_csv('x.csv', header => true) r, 'file.csv' f, table(foo(1)) g;
