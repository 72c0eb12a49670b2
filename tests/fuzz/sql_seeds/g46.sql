drop view if exists v;
