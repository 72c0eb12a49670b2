show create table t;
