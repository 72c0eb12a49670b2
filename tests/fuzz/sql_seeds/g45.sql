create or replace view v comment 'c' security invoker as select 1;
