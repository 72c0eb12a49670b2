-- TPC-H schema (spec 1.4) and load statements for the oracle harness (run_tpch.py).
--
-- Types: keys bigint; counts and sizes integer; money, quantities, discounts and taxes
-- decimal(15,2); dates date; all text varchar (the spec's CHAR(n) columns hold no padding that
-- matters to the queries). The data are the CSV files of `tpchgen-cli csv`: a header line, ','
-- between fields, '"' around free-text fields, '\n' line ends, no trailing delimiter.
-- {dir} is replaced by the absolute directory of the CSV files.

CREATE TABLE region (
    r_regionkey bigint,
    r_name      varchar,
    r_comment   varchar
);

CREATE TABLE nation (
    n_nationkey bigint,
    n_name      varchar,
    n_regionkey bigint,
    n_comment   varchar
);

CREATE TABLE supplier (
    s_suppkey   bigint,
    s_name      varchar,
    s_address   varchar,
    s_nationkey bigint,
    s_phone     varchar,
    s_acctbal   decimal(15,2),
    s_comment   varchar
);

CREATE TABLE customer (
    c_custkey    bigint,
    c_name       varchar,
    c_address    varchar,
    c_nationkey  bigint,
    c_phone      varchar,
    c_acctbal    decimal(15,2),
    c_mktsegment varchar,
    c_comment    varchar
);

CREATE TABLE part (
    p_partkey     bigint,
    p_name        varchar,
    p_mfgr        varchar,
    p_brand       varchar,
    p_type        varchar,
    p_size        integer,
    p_container   varchar,
    p_retailprice decimal(15,2),
    p_comment     varchar
);

CREATE TABLE partsupp (
    ps_partkey    bigint,
    ps_suppkey    bigint,
    ps_availqty   integer,
    ps_supplycost decimal(15,2),
    ps_comment    varchar
);

CREATE TABLE orders (
    o_orderkey      bigint,
    o_custkey       bigint,
    o_orderstatus   varchar,
    o_totalprice    decimal(15,2),
    o_orderdate     date,
    o_orderpriority varchar,
    o_clerk         varchar,
    o_shippriority  integer,
    o_comment       varchar
);

CREATE TABLE lineitem (
    l_orderkey      bigint,
    l_partkey       bigint,
    l_suppkey       bigint,
    l_linenumber    integer,
    l_quantity      decimal(15,2),
    l_extendedprice decimal(15,2),
    l_discount      decimal(15,2),
    l_tax           decimal(15,2),
    l_returnflag    varchar,
    l_linestatus    varchar,
    l_shipdate      date,
    l_commitdate    date,
    l_receiptdate   date,
    l_shipinstruct  varchar,
    l_shipmode      varchar,
    l_comment       varchar
);

INSERT INTO region
SELECT * FROM read_csv('{dir}/region.csv', header => true, delimiter => ',', quote => '"',
    columns => 'r_regionkey bigint, r_name varchar, r_comment varchar');

INSERT INTO nation
SELECT * FROM read_csv('{dir}/nation.csv', header => true, delimiter => ',', quote => '"',
    columns => 'n_nationkey bigint, n_name varchar, n_regionkey bigint, n_comment varchar');

INSERT INTO supplier
SELECT * FROM read_csv('{dir}/supplier.csv', header => true, delimiter => ',', quote => '"',
    columns => 's_suppkey bigint, s_name varchar, s_address varchar, s_nationkey bigint, s_phone varchar, s_acctbal decimal(15,2), s_comment varchar');

INSERT INTO customer
SELECT * FROM read_csv('{dir}/customer.csv', header => true, delimiter => ',', quote => '"',
    columns => 'c_custkey bigint, c_name varchar, c_address varchar, c_nationkey bigint, c_phone varchar, c_acctbal decimal(15,2), c_mktsegment varchar, c_comment varchar');

INSERT INTO part
SELECT * FROM read_csv('{dir}/part.csv', header => true, delimiter => ',', quote => '"',
    columns => 'p_partkey bigint, p_name varchar, p_mfgr varchar, p_brand varchar, p_type varchar, p_size integer, p_container varchar, p_retailprice decimal(15,2), p_comment varchar');

INSERT INTO partsupp
SELECT * FROM read_csv('{dir}/partsupp.csv', header => true, delimiter => ',', quote => '"',
    columns => 'ps_partkey bigint, ps_suppkey bigint, ps_availqty integer, ps_supplycost decimal(15,2), ps_comment varchar');

INSERT INTO orders
SELECT * FROM read_csv('{dir}/orders.csv', header => true, delimiter => ',', quote => '"',
    columns => 'o_orderkey bigint, o_custkey bigint, o_orderstatus varchar, o_totalprice decimal(15,2), o_orderdate date, o_orderpriority varchar, o_clerk varchar, o_shippriority integer, o_comment varchar');

INSERT INTO lineitem
SELECT * FROM read_csv('{dir}/lineitem.csv', header => true, delimiter => ',', quote => '"',
    columns => 'l_orderkey bigint, l_partkey bigint, l_suppkey bigint, l_linenumber integer, l_quantity decimal(15,2), l_extendedprice decimal(15,2), l_discount decimal(15,2), l_tax decimal(15,2), l_returnflag varchar, l_linestatus varchar, l_shipdate date, l_commitdate date, l_receiptdate date, l_shipinstruct varchar, l_shipmode varchar, l_comment varchar');
