{{ config(materialized='view') }}
-- orders not shipped yet
select id, customer, status, amount
from {{ ref('orders') }}
where status <> 'shipped'
