-- customer_totals must hold exactly these rows (computed by hand from seeds/orders.csv);
-- any row returned is a difference and fails the test.
with expected (customer, n_orders, shipped_amount) as (
    values ('alice', 2, 62.49), ('bob', 2, 13.00), ('carol', 1, 0.00), ('dave', 1, 0.00)
),
actual as (
    select customer, n_orders, shipped_amount from {{ ref('customer_totals') }}
)
(select 'missing' as problem, * from (select * from expected except select * from actual) m)
union all
(select 'unexpected' as problem, * from (select * from actual except select * from expected) u)
