drop schema if exists s cascade;
