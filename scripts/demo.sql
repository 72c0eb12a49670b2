-- The demo dataset `make run` puts in the embedded warehouse (iceberg.demo) before starting the
-- server; every statement is idempotent, so a second `make run` leaves the tables as they are.
CREATE SCHEMA IF NOT EXISTS demo;

CREATE TABLE IF NOT EXISTS demo.region AS
SELECT * FROM (VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE'), (4, 'MIDDLE EAST'))
  AS r(r_regionkey, r_name);

CREATE TABLE IF NOT EXISTS demo.nation AS
SELECT * FROM (VALUES
  (0, 'ALGERIA', 0), (1, 'ARGENTINA', 1), (2, 'BRAZIL', 1), (3, 'CANADA', 1), (4, 'EGYPT', 4),
  (5, 'ETHIOPIA', 0), (6, 'FRANCE', 3), (7, 'GERMANY', 3), (8, 'INDIA', 2), (9, 'INDONESIA', 2),
  (10, 'IRAN', 4), (11, 'IRAQ', 4), (12, 'JAPAN', 2), (13, 'JORDAN', 4), (14, 'KENYA', 0),
  (15, 'MOROCCO', 0), (16, 'MOZAMBIQUE', 0), (17, 'PERU', 1), (18, 'CHINA', 2),
  (19, 'ROMANIA', 3), (20, 'SAUDI ARABIA', 4), (21, 'VIETNAM', 2), (22, 'RUSSIA', 3),
  (23, 'UNITED KINGDOM', 3), (24, 'UNITED STATES', 1))
  AS n(n_nationkey, n_name, n_regionkey);

CREATE TABLE IF NOT EXISTS demo.orders
WITH (partitioning = ARRAY['month(o_orderdate)'])
AS SELECT
  CAST(i AS bigint) AS o_orderkey,
  CAST(i % 25 AS integer) AS o_nationkey,
  CAST(round(10 + (i * 7919 % 100000) / 100.0, 2) AS decimal(12, 2)) AS o_totalprice,
  date_add('day', CAST(i % 730 AS bigint), DATE '2024-01-01') AS o_orderdate,
  CASE i % 3 WHEN 0 THEN 'open' WHEN 1 THEN 'shipped' ELSE 'returned' END AS o_status
FROM (SELECT a * 1000 + b AS i
      FROM UNNEST(sequence(0, 99)) AS x(a) CROSS JOIN UNNEST(sequence(1, 1000)) AS y(b));
