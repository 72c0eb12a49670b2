table c.s.t;
