deallocate prepare q;
