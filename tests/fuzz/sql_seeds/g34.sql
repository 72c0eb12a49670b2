describe t;
