// JdbcIdentity: one query through the Arrow Flight SQL JDBC driver, for tests/auth/test_client_matrix.py.
//
// INTERFACE: java -cp <driver.jar>:<classes> JdbcIdentity <port> <sql>  (connection properties
//   as key=value lines on standard input: user/password, or token, plus tlsRootCerts ...; read
//   from stdin so no secret is on a command line). Prints each row, columns joined by tabs;
//   exits 1 with the driver's message on a failure.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;

public class JdbcIdentity {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        for (String line; (line = in.readLine()) != null; ) {
            int eq = line.indexOf('=');
            if (eq > 0) props.setProperty(line.substring(0, eq), line.substring(eq + 1));
        }
        String url = "jdbc:arrow-flight-sql://127.0.0.1:" + args[0] + "?useEncryption=true";
        try (Connection c = DriverManager.getConnection(url, props);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(args[1])) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    if (i > 1) row.append('\t');
                    row.append(rs.getString(i));
                }
                System.out.println(row);
            }
        } catch (Exception e) {
            System.err.println("JdbcIdentity: " + e);
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) System.err.println("  caused by: " + t);
            System.exit(1);
        }
    }
}
