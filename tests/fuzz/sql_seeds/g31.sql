alter table t alter column c set data type bigint;
