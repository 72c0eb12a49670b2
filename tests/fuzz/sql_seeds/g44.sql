call system.rollback(schema_name => 's', 1);
