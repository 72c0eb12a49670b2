{{ config(materialized='table') }}
-- one row per customer: orders placed and shipped amount
select
    customer,
    count(*) as n_orders,
    sum(case when status = 'shipped' then amount else 0 end) as shipped_amount
from {{ ref('orders') }}
group by customer
