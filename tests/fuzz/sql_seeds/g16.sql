select * from t for version as of 123 x, s for timestamp as of timestamp '2020-01-01 00:00:00' y, ((select 1) union (select 2)) z;
