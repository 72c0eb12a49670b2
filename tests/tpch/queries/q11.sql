-- TPC-H Q11: Important Stock Identification (spec 2.4.11), validation parameters
-- NATION = GERMANY, FRACTION = 0.0001. The spec scales FRACTION by 1/SF: the harness replaces
-- {q11_fraction} with 0.0001 / SF (0.001 at SF 0.1).
SELECT
    ps_partkey,
    sum(ps_supplycost * ps_availqty) AS value
FROM partsupp, supplier, nation
WHERE ps_suppkey = s_suppkey
    AND s_nationkey = n_nationkey
    AND n_name = 'GERMANY'
GROUP BY ps_partkey
HAVING sum(ps_supplycost * ps_availqty) > (
    SELECT sum(ps_supplycost * ps_availqty) * {q11_fraction}
    FROM partsupp, supplier, nation
    WHERE ps_suppkey = s_suppkey
        AND s_nationkey = n_nationkey
        AND n_name = 'GERMANY'
)
ORDER BY value DESC;
