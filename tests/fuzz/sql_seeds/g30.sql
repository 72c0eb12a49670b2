alter table t set properties x = 1, y = default;
