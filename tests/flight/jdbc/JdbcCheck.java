/*
 * JdbcCheck: drives `sqe serve` through the Arrow Flight SQL JDBC driver
 * (org.apache.arrow:flight-sql-jdbc-driver) and checks every answer.
 *
 *   java --add-opens=java.base/java.nio=ALL-UNNAMED -cp flight-sql-jdbc-driver.jar:DIR \
 *        JdbcCheck PORT
 *
 * Checks: connect (anonymous, loopback); plain queries of several types; a table created and
 * filled over JDBC (executeUpdate counts); prepared statements with parameters (run twice with
 * other values); an error that must come back as SQLException; DatabaseMetaData.getCatalogs,
 * getSchemas, getTables (finds the table) and getColumns (names and JDBC types); ParameterMetaData
 * of a prepared statement (the parameter types the server inferred). Prints one line
 * per check and "N passed, N failed"; exit status 1 when any check failed.
 */
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

public final class JdbcCheck {
    private static int passed;
    private static int failed;

    private interface Check {
        void run() throws Exception;
    }

    private static void check(String name, Check c) {
        try {
            c.run();
            passed++;
            System.out.println("ok   " + name);
        } catch (Throwable t) {
            failed++;
            System.out.println("FAIL " + name + ": " + t);
        }
    }

    private static void expect(boolean cond, String what) {
        if (!cond) throw new AssertionError(what);
    }

    private static void eq(Object got, Object want, String what) {
        if (want == null ? got != null : !want.equals(got))
            throw new AssertionError(what + ": got " + got + ", expected " + want);
    }

    public static void main(String[] args) throws Exception {
        String port = args[0];
        String url = "jdbc:arrow-flight-sql://127.0.0.1:" + port + "?useEncryption=false";
        if (args.length > 2) url += "&user=" + args[1] + "&password=" + args[2];
        String table = "jdbc_t" + (System.nanoTime() % 100000);
        try (Connection conn = DriverManager.getConnection(url)) {
            check("select literals", () -> {
                try (Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery(
                         "SELECT 42 AS i, CAST(2.5 AS double) AS d, 'hello' AS s, true AS b, "
                         + "CAST(NULL AS bigint) AS n, DATE '2026-11-30' AS dt")) {
                    expect(rs.next(), "one row");
                    eq(rs.getInt("i"), 42, "i");
                    eq(rs.getDouble("d"), 2.5, "d");
                    eq(rs.getString("s"), "hello", "s");
                    eq(rs.getBoolean("b"), true, "b");
                    rs.getLong("n");
                    expect(rs.wasNull(), "n is NULL");
                    eq(rs.getDate("dt").toString(), "2026-11-30", "dt");
                    expect(!rs.next(), "only one row");
                }
            });
            check("aggregate over generated rows", () -> {
                try (Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery(
                         "SELECT count(*), sum(x), max(x) FROM UNNEST(sequence(1, 5000)) t(x)")) {
                    expect(rs.next(), "one row");
                    eq(rs.getLong(1), 5000L, "count");
                    eq(rs.getLong(2), 12502500L, "sum");
                    eq(rs.getLong(3), 5000L, "max");
                }
            });
            check("many rows streamed", () -> {
                try (Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery(
                         "SELECT a * 1000 + b AS v FROM UNNEST(sequence(0, 99)) x(a) "
                         + "CROSS JOIN UNNEST(sequence(0, 999)) y(b)")) {
                    long n = 0, sum = 0;
                    while (rs.next()) {
                        n++;
                        sum += rs.getLong(1);
                    }
                    eq(n, 100000L, "rows");
                    eq(sum, 100000L * 99999L / 2, "sum");
                }
            });
            check("create and insert", () -> {
                try (Statement st = conn.createStatement()) {
                    st.executeUpdate("CREATE TABLE " + table + " (id bigint, name varchar, score double)");
                    int n = st.executeUpdate("INSERT INTO " + table
                                             + " VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, NULL, 3.5)");
                    eq(n, 3, "rows inserted");
                }
            });
            check("prepared statement without parameters", () -> {
                try (PreparedStatement ps = conn.prepareStatement(
                         "SELECT id, name FROM " + table + " WHERE score > 2 ORDER BY id")) {
                    for (int round = 0; round < 2; round++) {
                        try (ResultSet rs = ps.executeQuery()) {
                            expect(rs.next(), "first row");
                            eq(rs.getLong(1), 2L, "id");
                            eq(rs.getString(2), "two", "name");
                            expect(rs.next(), "second row");
                            eq(rs.getLong(1), 3L, "id");
                            expect(!rs.next(), "two rows");
                        }
                    }
                }
            });
            check("prepared statement with parameters", () -> {
                try (PreparedStatement ps = conn.prepareStatement(
                         "SELECT name, score FROM " + table + " WHERE id = ?")) {
                    ps.setLong(1, 2);
                    try (ResultSet rs = ps.executeQuery()) {
                        expect(rs.next(), "row for id 2");
                        eq(rs.getString(1), "two", "name");
                        eq(rs.getDouble(2), 2.5, "score");
                        expect(!rs.next(), "one row");
                    }
                    ps.setLong(1, 3);
                    try (ResultSet rs = ps.executeQuery()) {
                        expect(rs.next(), "row for id 3");
                        expect(rs.getString(1) == null, "name of 3 is NULL");
                        eq(rs.getDouble(2), 3.5, "score");
                    }
                }
            });
            check("prepared statement, two parameters of two types", () -> {
                try (PreparedStatement ps = conn.prepareStatement(
                         "SELECT count(*) FROM " + table + " WHERE id >= ? AND score < ?")) {
                    ps.setLong(1, 2);
                    ps.setDouble(2, 3.0);
                    try (ResultSet rs = ps.executeQuery()) {
                        expect(rs.next(), "one row");
                        eq(rs.getLong(1), 1L, "count");
                    }
                }
            });
            check("prepared insert", () -> {
                try (PreparedStatement ps = conn.prepareStatement(
                         "INSERT INTO " + table + " VALUES (?, ?, ?)")) {
                    ps.setLong(1, 4);
                    ps.setString(2, "four");
                    ps.setDouble(3, 4.5);
                    ps.executeUpdate();
                }
                try (Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery("SELECT count(*), sum(id) FROM " + table)) {
                    expect(rs.next(), "one row");
                    eq(rs.getLong(1), 4L, "count");
                    eq(rs.getLong(2), 10L, "sum");
                }
            });
            check("error comes back as SQLException", () -> {
                try (Statement st = conn.createStatement()) {
                    st.executeQuery("SELECT * FROM no_such_table_jdbc");
                    throw new AssertionError("no exception");
                } catch (SQLException e) {
                    expect(e.getMessage().contains("does not exist"), "message: " + e.getMessage());
                }
                try (Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery("SELECT 7")) {   // the connection still works
                    expect(rs.next(), "row");
                    eq(rs.getInt(1), 7, "value");
                }
            });
            DatabaseMetaData md = conn.getMetaData();
            check("metadata, catalogs and schemas", () -> {
                List<String> cats = new ArrayList<>();
                try (ResultSet rs = md.getCatalogs()) {
                    while (rs.next()) cats.add(rs.getString("TABLE_CAT"));
                }
                expect(cats.contains("iceberg"), "catalogs " + cats);
                List<String> schemas = new ArrayList<>();
                try (ResultSet rs = md.getSchemas("iceberg", null)) {
                    while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM"));
                }
                expect(schemas.contains("default"), "schemas " + schemas);
            });
            check("metadata, getTables finds the table", () -> {
                int found = 0;
                try (ResultSet rs = md.getTables("iceberg", "default", table, null)) {
                    while (rs.next()) {
                        eq(rs.getString("TABLE_NAME"), table, "name");
                        eq(rs.getString("TABLE_SCHEM"), "default", "schema");
                        found++;
                    }
                }
                eq(found, 1, "tables found");
                try (ResultSet rs = md.getTables(null, null, "%", null)) {
                    int n = 0;
                    while (rs.next()) n++;
                    expect(n >= 1, "getTables with no filter lists tables");
                }
            });
            check("metadata, getColumns", () -> {
                List<String> cols = new ArrayList<>();
                List<Integer> types = new ArrayList<>();
                try (ResultSet rs = md.getColumns("iceberg", "default", table, "%")) {
                    while (rs.next()) {
                        cols.add(rs.getString("COLUMN_NAME"));
                        types.add(rs.getInt("DATA_TYPE"));
                    }
                }
                eq(cols, List.of("id", "name", "score"), "columns");
                eq(types, List.of(Types.BIGINT, Types.VARCHAR, Types.DOUBLE), "JDBC types");
            });
            check("prepared statement parameter types", () -> {
                try (PreparedStatement ps = conn.prepareStatement(
                         "SELECT id FROM " + table + " WHERE name = ? AND score < ? AND id > ?")) {
                    ParameterMetaData pm = ps.getParameterMetaData();
                    eq(pm.getParameterCount(), 3, "parameters");
                    eq(pm.getParameterType(1), Types.VARCHAR, "type of name = ?");
                    eq(pm.getParameterType(2), Types.DOUBLE, "type of score < ?");
                    eq(pm.getParameterType(3), Types.BIGINT, "type of id > ?");
                    ps.setString(1, "four");
                    ps.setDouble(2, 5.0);
                    ps.setLong(3, 0);
                    try (ResultSet rs = ps.executeQuery()) {
                        expect(rs.next(), "row for four");
                        eq(rs.getLong(1), 4L, "id");
                        expect(!rs.next(), "one row");
                    }
                }
            });
            /* DatabaseMetaData.getTypeInfo is not checked: the driver (18.3.0) does not call
             * GetXdbcTypeInfo for it (Avatica's empty default); tests/flight/test_flight_sql.py
             * checks GetXdbcTypeInfo with pyarrow.flight. */
            check("drop table", () -> {
                try (Statement st = conn.createStatement()) {
                    st.executeUpdate("DROP TABLE " + table);
                }
            });
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
