describe output q;
