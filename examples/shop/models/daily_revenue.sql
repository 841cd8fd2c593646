-- daily_revenue: paid and shipped orders of each day, from the copy of orders
select substr(placed_at, 1, 10) as day, count(*) as orders, sum(amount) as revenue
from orders_copy
where status in ('paid', 'shipped')
group by 1
