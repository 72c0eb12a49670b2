create schema if not exists c.s with (location = 's3://x');
