show schemas from c like 's%' escape '\';
