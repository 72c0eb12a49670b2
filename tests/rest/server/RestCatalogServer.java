/*
 * RestCatalogServer.java: a real Iceberg REST catalog for SQE's tests, on loopback.
 *
 * Role: the request handling is Apache Iceberg's own (org.apache.iceberg.rest.CatalogHandlers,
 * the code the reference REST server runs, serialized with RESTObjectMapper), over a JdbcCatalog
 * on SQLite with a local warehouse. This wrapper adds what the tests need around it:
 *   - bearer tokens: --token TOKEN=USER (repeatable); a request without a known token gets 401
 *     (NotAuthorizedException). A token mapped to user "-denied-" gets 403 (ForbiddenException).
 *     Every request is logged to --log as "user=<user> <METHOD> <path>" (so tests can prove that
 *     each user's own token arrived).
 *   - OAuth2 client credentials: --client ID:SECRET=TOKEN; POST /v1/oauth/tokens returns TOKEN.
 *   - GET /v1/config returns overrides {"prefix": <--prefix>} (and echoes ?warehouse as a default).
 *   - vended credentials: a table load with X-Iceberg-Access-Delegation: vended-credentials gets
 *     config s3.access-key-id = "AKIA-<user>", s3.secret-access-key = "SECRET-<user>", or, for
 *     a user given --vend USER=KEYID:SECRET, that user's real keys plus s3.endpoint, s3.region
 *     and s3.path-style-access of --s3-endpoint.
 *   - an object-store warehouse: --location s3://bucket/prefix puts new tables there; the
 *     catalog then writes its metadata files through Iceberg's S3FileIO (iceberg-aws, on the
 *     class path) with the service key --s3-key KEYID:SECRET at --s3-endpoint (path style).
 *     --warehouse stays the local directory of the catalog database and the request log.
 *   - ETag on table loads (the metadata location's hash); If-None-Match with it gives 304.
 *   - fault hooks (POST, no auth): /test/conflict?ns=N&table=T makes the next commit to N.T
 *     first run a real concurrent commit (an empty append), so the commit's requirements fail
 *     with a genuine 409; /test/fail?status=S&count=K&match=SUBSTR makes the next K requests whose
 *     "METHOD path" contains SUBSTR answer S without being handled.
 *
 * Usage: java -cp CLASSES:LIB/* org.apache.iceberg.rest.RestCatalogServer --port P
 *        --warehouse DIR [--prefix P] [--token T=U]... [--client ID:SECRET=T]... [--log FILE]
 *        [--location s3://B/P --s3-endpoint URL --s3-key ID:SECRET [--vend USER=ID:SECRET]...]
 * Prints "READY <port>" on stdout when listening.
 *
 * NOTES: declared in package org.apache.iceberg.rest for RESTObjectMapper (package-private).
 */
package org.apache.iceberg.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

public class RestCatalogServer {
  private final ObjectMapper mapper = RESTObjectMapper.mapper();
  private final Map<String, String> tokens = new HashMap<>();
  private final Map<String, String> clients = new HashMap<>();
  private final Map<String, Boolean> conflictNext = new ConcurrentHashMap<>();
  private volatile String failMatch = null;
  private volatile int failStatus = 0;
  private final AtomicInteger failCount = new AtomicInteger(0);
  private String prefix = "sqe";
  private String location = null;
  private String s3Endpoint = null;
  private String s3Key = null;
  private final Map<String, String> vend = new HashMap<>();
  private JdbcCatalog catalog;
  private PrintWriter log;

  /** An HTTP answer: status and JSON body (null for none). */
  private static final class Reply {
    final int status;
    final Object body;
    final Map<String, String> headers = new HashMap<>();

    Reply(int status, Object body) {
      this.status = status;
      this.body = body;
    }
  }

  /** Thrown by handlers to answer with a given status and error type. */
  private static final class HttpError extends RuntimeException {
    final int status;
    final String type;

    HttpError(int status, String type, String message) {
      super(message);
      this.status = status;
      this.type = type;
    }
  }

  public static void main(String[] args) throws Exception {
    new RestCatalogServer().run(args);
  }

  private void run(String[] args) throws Exception {
    int port = 0;
    String warehouse = null;
    String logPath = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      String k = args[i], v = args[i + 1];
      switch (k) {
        case "--port": port = Integer.parseInt(v); break;
        case "--warehouse": warehouse = v; break;
        case "--prefix": prefix = v; break;
        case "--log": logPath = v; break;
        case "--location": location = v; break;
        case "--s3-endpoint": s3Endpoint = v; break;
        case "--s3-key": s3Key = v; break;
        case "--vend": {
          int eq = v.indexOf('=');
          vend.put(v.substring(0, eq), v.substring(eq + 1));
          break;
        }
        case "--token": {
          int eq = v.indexOf('=');
          tokens.put(v.substring(0, eq), v.substring(eq + 1));
          break;
        }
        case "--client": {
          int eq = v.lastIndexOf('=');
          clients.put(v.substring(0, eq), v.substring(eq + 1));
          break;
        }
        default: throw new IllegalArgumentException("unknown option " + k);
      }
    }
    if (warehouse == null) throw new IllegalArgumentException("--warehouse is required");
    Path wh = Paths.get(warehouse).toAbsolutePath();
    Files.createDirectories(wh);
    log = new PrintWriter(new FileWriter(logPath != null ? logPath : wh.resolve("requests.log").toString(), true), true);
    catalog = new JdbcCatalog();
    catalog.setConf(new Configuration());
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + wh.resolve("rest-catalog.db"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, location != null ? location : wh.toString());
    props.put("jdbc.schema-version", "V1");
    if (location != null && location.startsWith("s3://")) {
      int colon = s3Key.indexOf(':');
      props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
      props.put("s3.endpoint", s3Endpoint);
      props.put("s3.path-style-access", "true");
      props.put("s3.access-key-id", s3Key.substring(0, colon));
      props.put("s3.secret-access-key", s3Key.substring(colon + 1));
      props.put("client.region", "us-east-1");
      props.put("http-client.type", "urlconnection");
    }
    catalog.initialize("rest_backing", props);

    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.start();
    System.out.println("READY " + server.getAddress().getPort());
    System.out.flush();
  }

  // ---- dispatch ---------------------------------------------------------------------------------

  private void handle(HttpExchange ex) throws IOException {
    Reply r;
    String method = ex.getRequestMethod();
    String rawPath = ex.getRequestURI().getRawPath();
    try {
      byte[] body = readAll(ex.getRequestBody());
      r = route(ex, method, rawPath, body);
    } catch (HttpError e) {
      r = error(e.status, e.type, e.getMessage());
    } catch (NoSuchNamespaceException e) {
      r = error(404, "NoSuchNamespaceException", e.getMessage());
    } catch (NoSuchTableException e) {
      r = error(404, "NoSuchTableException", e.getMessage());
    } catch (AlreadyExistsException e) {
      r = error(409, "AlreadyExistsException", e.getMessage());
    } catch (CommitFailedException e) {
      r = error(409, "CommitFailedException", e.getMessage());
    } catch (NamespaceNotEmptyException e) {
      r = error(409, "NamespaceNotEmptyException", e.getMessage());
    } catch (NotAuthorizedException e) {
      r = error(401, "NotAuthorizedException", e.getMessage());
    } catch (ForbiddenException e) {
      r = error(403, "ForbiddenException", e.getMessage());
    } catch (CommitStateUnknownException e) {
      r = error(500, "CommitStateUnknownException", e.getMessage());
    } catch (IllegalArgumentException | ValidationException e) {
      r = error(400, "BadRequestException", String.valueOf(e.getMessage()));
    } catch (Exception e) {
      r = error(500, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
    }
    byte[] out = r.body == null ? new byte[0] : mapper.writeValueAsBytes(r.body);
    for (Map.Entry<String, String> h : r.headers.entrySet())
      ex.getResponseHeaders().set(h.getKey(), h.getValue());
    if (r.body != null) ex.getResponseHeaders().set("Content-Type", "application/json");
    boolean empty = r.body == null || r.status == 204 || r.status == 304 || method.equals("HEAD");
    ex.sendResponseHeaders(r.status, empty ? -1 : out.length);
    if (!empty) {
      try (OutputStream os = ex.getResponseBody()) {
        os.write(out);
      }
    }
    ex.close();
  }

  private static byte[] readAll(InputStream in) throws IOException {
    return in.readAllBytes();
  }

  private static Reply error(int status, String type, String message) {
    ErrorResponse e = ErrorResponse.builder().responseCode(status).withType(type).withMessage(message).build();
    return new Reply(status, e);
  }

  private static Map<String, String> query(HttpExchange ex) {
    Map<String, String> q = new HashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw == null) return q;
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      if (eq < 0) q.put(dec(part), "");
      else q.put(dec(part.substring(0, eq)), dec(part.substring(eq + 1)));
    }
    return q;
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static Namespace ns(String raw) {
    return Namespace.of(dec(raw).split("\u001f"));
  }

  private String user(HttpExchange ex) {
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    if (auth == null || !auth.startsWith("Bearer ")) return null;
    return tokens.get(auth.substring(7).trim());
  }

  private <T> T parse(byte[] body, Class<T> cls) throws IOException {
    return mapper.readValue(body, cls);
  }

  private Reply route(HttpExchange ex, String method, String rawPath, byte[] body) throws Exception {
    Map<String, String> q = query(ex);
    if (rawPath.startsWith("/test/")) return testHook(rawPath, q);
    String what = method + " " + rawPath;
    String fm = failMatch;
    if (fm != null && what.contains(fm) && failCount.getAndDecrement() > 0) {
      log.println("user=? " + what + " -> injected " + failStatus);
      throw new HttpError(failStatus, "ServiceUnavailableException", "injected failure " + failStatus);
    }
    if (rawPath.equals("/v1/oauth/tokens") && method.equals("POST")) return oauth(body);
    String user = user(ex);
    log.println("user=" + (user == null ? "-" : user) + " " + what);
    if (user == null) throw new NotAuthorizedException("Not authorized: missing or unknown bearer token");
    if (user.equals("-denied-")) throw new ForbiddenException("Forbidden: this principal may not use catalog " + prefix);

    if (rawPath.equals("/v1/config") && method.equals("GET")) {
      ConfigResponse.Builder b = ConfigResponse.builder().withOverride("prefix", prefix);
      if (q.containsKey("warehouse")) b.withDefault("warehouse-requested", q.get("warehouse"));
      return new Reply(200, b.build());
    }
    String base = "/v1/" + prefix + "/";
    if (!rawPath.startsWith(base)) throw new HttpError(404, "NoSuchEndpointException", "no endpoint " + rawPath);
    String[] p = rawPath.substring(base.length()).split("/", -1);
    // namespaces
    if (p.length == 1 && p[0].equals("namespaces")) {
      if (method.equals("GET")) {
        Namespace parent = q.containsKey("parent") ? Namespace.of(q.get("parent").split("\u001f")) : Namespace.empty();
        return new Reply(200, CatalogHandlers.listNamespaces(catalog, parent));
      }
      if (method.equals("POST"))
        return new Reply(200, CatalogHandlers.createNamespace(catalog, parse(body, CreateNamespaceRequest.class)));
    }
    if (p.length == 2 && p[0].equals("tables") && p[1].equals("rename") && method.equals("POST")) {
      CatalogHandlers.renameTable(catalog, parse(body, RenameTableRequest.class));
      return new Reply(204, null);
    }
    if (p.length >= 2 && p[0].equals("namespaces")) {
      Namespace n = ns(p[1]);
      if (p.length == 2) {
        switch (method) {
          case "GET": return new Reply(200, CatalogHandlers.loadNamespace(catalog, n));
          case "HEAD": CatalogHandlers.namespaceExists(catalog, n); return new Reply(204, null);
          case "DELETE": CatalogHandlers.dropNamespace(catalog, n); return new Reply(204, null);
          default: break;
        }
      }
      if (p.length == 3 && p[2].equals("properties") && method.equals("POST"))
        return new Reply(200, CatalogHandlers.updateNamespaceProperties(catalog, n,
            parse(body, UpdateNamespacePropertiesRequest.class)));
      if (p.length == 3 && p[2].equals("register") && method.equals("POST"))
        return new Reply(200, CatalogHandlers.registerTable(catalog, n, parse(body, RegisterTableRequest.class)));
      if (p.length == 3 && p[2].equals("tables")) {
        if (method.equals("GET")) return new Reply(200, CatalogHandlers.listTables(catalog, n));
        if (method.equals("POST")) {
          CreateTableRequest req = parse(body, CreateTableRequest.class);
          if (req.stageCreate()) return new Reply(200, CatalogHandlers.stageTableCreate(catalog, n, req));
          return new Reply(200, CatalogHandlers.createTable(catalog, n, req));
        }
      }
      if (p.length == 4 && p[2].equals("tables")) {
        TableIdentifier id = TableIdentifier.of(n, dec(p[3]));
        switch (method) {
          case "GET": return loadTable(ex, id, user);
          case "HEAD": CatalogHandlers.tableExists(catalog, id); return new Reply(204, null);
          case "DELETE":
            if ("true".equals(q.get("purgeRequested"))) CatalogHandlers.purgeTable(catalog, id);
            else CatalogHandlers.dropTable(catalog, id);
            return new Reply(204, null);
          case "POST": {
            UpdateTableRequest req = parse(body, UpdateTableRequest.class);
            if (conflictNext.remove(id.toString()) != null) {
              Table t = catalog.loadTable(id);
              t.newAppend().commit(); // a real concurrent commit: the main ref moves
              log.println("user=" + user + " concurrent commit to " + id + " (test hook)");
            }
            return new Reply(200, CatalogHandlers.updateTable(catalog, id, req));
          }
          default: break;
        }
      }
    }
    throw new HttpError(404, "NoSuchEndpointException", "no endpoint " + what);
  }

  private Reply loadTable(HttpExchange ex, TableIdentifier id, String user) {
    LoadTableResponse r = CatalogHandlers.loadTable(catalog, id, RESTCatalogProperties.SnapshotMode.ALL);
    TableMetadata md = r.tableMetadata();
    String etag = "\"" + Integer.toHexString(r.metadataLocation().hashCode()) + "-"
        + Integer.toHexString(r.metadataLocation().length()) + "\"";
    String inm = ex.getRequestHeaders().getFirst("If-None-Match");
    if (etag.equals(inm)) {
      log.println("user=" + user + " 304 not modified " + id);
      Reply nm = new Reply(304, null);
      nm.headers.put("ETag", etag);
      return nm;
    }
    LoadTableResponse.Builder b = LoadTableResponse.builder().withTableMetadata(md);
    b.addAllConfig(r.config());
    String deleg = ex.getRequestHeaders().getFirst("X-Iceberg-Access-Delegation");
    if (deleg != null && deleg.contains("vended-credentials")) {
      String keys = vend.get(user);
      if (keys != null) {
        int colon = keys.indexOf(':');
        b.addConfig("s3.access-key-id", keys.substring(0, colon));
        b.addConfig("s3.secret-access-key", keys.substring(colon + 1));
        b.addConfig("s3.endpoint", s3Endpoint);
        b.addConfig("s3.region", "us-east-1");
        b.addConfig("s3.path-style-access", "true");
      } else {
        b.addConfig("s3.access-key-id", "AKIA-" + user);
        b.addConfig("s3.secret-access-key", "SECRET-" + user);
      }
      log.println("user=" + user + " vended credentials for " + id);
    }
    Reply rep = new Reply(200, b.build());
    rep.headers.put("ETag", etag);
    return rep;
  }

  private Reply oauth(byte[] body) {
    Map<String, String> form = new HashMap<>();
    for (String part : new String(body, StandardCharsets.UTF_8).split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0) form.put(dec(part.substring(0, eq)), dec(part.substring(eq + 1)));
    }
    String token = clients.get(form.get("client_id") + ":" + form.get("client_secret"));
    log.println("user=- POST /v1/oauth/tokens client=" + form.get("client_id") + (token == null ? " refused" : " ok"));
    if (!"client_credentials".equals(form.get("grant_type")) || token == null) {
      Map<String, String> e = new HashMap<>();
      e.put("error", "invalid_client");
      e.put("error_description", "unknown client or secret");
      return new Reply(401, e);
    }
    Map<String, Object> ok = new HashMap<>();
    ok.put("access_token", token);
    ok.put("token_type", "bearer");
    ok.put("issued_token_type", "urn:ietf:params:oauth:token-type:access_token");
    ok.put("expires_in", 3600);
    return new Reply(200, ok);
  }

  private Reply testHook(String path, Map<String, String> q) {
    if (path.equals("/test/conflict")) {
      conflictNext.put(TableIdentifier.of(Namespace.of(q.get("ns").split("\\.")), q.get("table")).toString(), true);
      return new Reply(204, null);
    }
    if (path.equals("/test/fail")) {
      failStatus = Integer.parseInt(q.getOrDefault("status", "503"));
      failCount.set(Integer.parseInt(q.getOrDefault("count", "1")));
      failMatch = q.getOrDefault("match", "");
      return new Reply(204, null);
    }
    throw new HttpError(404, "NoSuchEndpointException", "no test hook " + path);
  }
}
