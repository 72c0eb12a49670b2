select listagg(x, ',') within group (order by y), grouping(a, b) from t group by grouping sets ((a, b), (a), ()), rollup(a, b), cube(a);
