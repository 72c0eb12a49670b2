execute q using 1, 'a';
