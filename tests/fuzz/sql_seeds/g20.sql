explain analyze verbose (type distributed, format json) select 1;
