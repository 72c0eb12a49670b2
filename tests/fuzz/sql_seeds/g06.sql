select x -> x + 1, (x, y) -> x * y, transform(arr, e -> e * 2), reduce(a, 0, (s, x) -> s + x, s -> s);
