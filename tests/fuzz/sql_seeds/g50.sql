select 1 /* block ; comment */ ; select 'a;b'; select "x;y"
