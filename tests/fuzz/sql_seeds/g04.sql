select extract(year from d), substring(c from 1 for 2), position('a' in b), trim(both 'x' from y), trim(leading from y), normalize(s, NFC);
