select array[1, 2][1], row(1, 'a').f, (a).b, a.b.c, m['k'], current_date, current_timestamp(3), localtime, current_user;
