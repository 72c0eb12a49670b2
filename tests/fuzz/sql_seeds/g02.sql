select date '1998-12-01' - interval '90' day, interval -'3' day to second, timestamp '2020-01-01 00:00:00 UTC', U&'\0041\+01F600', X'0A0b', 'it''s';
