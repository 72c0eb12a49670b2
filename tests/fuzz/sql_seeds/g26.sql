update t set a = 1, b = b + 1 where c;
