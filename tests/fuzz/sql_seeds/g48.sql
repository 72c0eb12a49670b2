truncate table t;
