alter table t rename column a to b;
