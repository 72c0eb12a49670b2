set session c.prop = 'x';
