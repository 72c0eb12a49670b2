merge into t as x using s on x.id = s.id when matched and s.del then delete when matched then update set v = s.v when not matched then insert (id, v) values (s.id, s.v);
