start transaction isolation level read committed, read only;
