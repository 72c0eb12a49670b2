use c.s;
