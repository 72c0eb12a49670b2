/*
 * IcebergInteropGen: writes Iceberg tables with Iceberg Java (iceberg-core/-data/-parquet 1.12)
 * for SQE to read, and dumps any table as canonical JSON (Iceberg Java as a reader of what SQE
 * writes).
 *
 *   java -cp CLASSES:JARS IcebergInteropGen gen  WAREHOUSE   -> tables in namespace "java" +
 *                                                             WAREHOUSE/expected/java.<t>.json
 *   java -cp CLASSES:JARS IcebergInteropGen dump WAREHOUSE ns.t1 [ns.t2 ...]
 *       -> the same JSON on stdout, one line per table ({"table", "error"} when it fails)
 *
 * The catalog is a JdbcCatalog named "iceberg" on WAREHOUSE/catalog.db (SQLite, schema V1), the
 * warehouse root WAREHOUSE (a plain path: table locations are WAREHOUSE/<ns>/<table>).
 *
 * Expected JSON (one object): table, format_version, schema (Iceberg schema JSON of the current
 * schema), snapshot_id, rows (IcebergGenerics read of the current snapshot), snapshots (each:
 * snapshot_id, parent_id, timestamp_ms, schema, rows), refs (name -> type, snapshot_id), history
 * (snapshot log: snapshot_id, timestamp_ms), files (live files of the current snapshot counted
 * by content: data, position_deletes, equality_deletes; dvs counts deletion vectors among
 * position deletes), checks (filtered reads: sql predicate text + the rows Java returns for the
 * same Iceberg expression). Values: numbers bare; NaN/Infinity, decimals (plain), dates, times,
 * timestamps (java.time toString), uuids as strings; fixed/binary as lowercase hex; structs as
 * objects; lists as arrays; maps as arrays of [key, value]. tests/iceberg/interop/canon.py
 * normalizes this and every other source the same way.
 */

import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;

public final class IcebergInteropGen {
  private static final String NS = "java";
  private JdbcCatalog catalog;
  private Path warehouse;
  private int taskId = 0;

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: IcebergInteropGen gen WAREHOUSE | dump WAREHOUSE ns.table...");
      System.exit(2);
    }
    IcebergInteropGen g = new IcebergInteropGen(Paths.get(args[1]).toAbsolutePath());
    if (args[0].equals("gen")) {
      g.generateAll();
    } else if (args[0].equals("dump") && args.length >= 3) {
      PrintStream out = new PrintStream(System.out, true, "UTF-8");
      for (int i = 2; i < args.length; i++) {
        String[] parts = args[i].split("\\.");
        TableIdentifier id = TableIdentifier.of(
            Namespace.of(Arrays.copyOf(parts, parts.length - 1)), parts[parts.length - 1]);
        try {
          Table t = g.catalog.loadTable(id);
          out.println(g.describe(t, args[i], new ArrayList<>()));
        } catch (Exception e) {
          out.println("{\"table\":" + str(args[i]) + ",\"error\":" + str(e.toString()) + "}");
        }
      }
    } else {
      System.err.println("unknown command " + args[0]);
      System.exit(2);
    }
  }

  IcebergInteropGen(Path warehouse) throws IOException {
    this.warehouse = warehouse;
    Files.createDirectories(warehouse);
    catalog = new JdbcCatalog();
    catalog.setConf(new Configuration());
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString());
    props.put("jdbc.schema-version", "V1");
    catalog.initialize("iceberg", props);
  }

  // ---- writing helpers ------------------------------------------------------------------------

  private Table create(String name, Schema schema, PartitionSpec spec, int formatVersion,
                       Map<String, String> extra) {
    Namespace ns = Namespace.of(NS);
    if (!catalog.namespaceExists(ns)) catalog.createNamespace(ns);
    TableIdentifier id = TableIdentifier.of(ns, name);
    if (catalog.tableExists(id)) catalog.dropTable(id, true);
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion));
    props.put(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
    if (extra != null) props.putAll(extra);
    return catalog.createTable(id, schema, spec, props);
  }

  private OutputFileFactory files(Table t) {
    return OutputFileFactory.builderFor(t, 1, ++taskId).format(FileFormat.PARQUET).build();
  }

  /** Writes records as data files (one per partition of the table's current spec). */
  private List<DataFile> writeData(Table t, List<Record> records) throws IOException {
    PartitionSpec spec = t.spec();
    GenericFileWriterFactory wf = new GenericFileWriterFactory.Builder(t)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(t.schema()).build();
    OutputFileFactory off = files(t);
    Map<PartitionKey, List<Record>> groups = new LinkedHashMap<>();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(t.schema().asStruct());
    for (Record r : records) {
      PartitionKey key = new PartitionKey(spec, t.schema());
      key.partition(wrapper.copyFor(r));
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    List<DataFile> out = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> e : groups.entrySet()) {
      StructLike part = spec.isUnpartitioned() ? null : e.getKey();
      DataWriter<Record> w = wf.newDataWriter(off.newOutputFile(spec, part), spec, part);
      try (DataWriter<Record> closing = w) {
        for (Record r : e.getValue()) closing.write(r);
      }
      out.add(w.toDataFile());
    }
    return out;
  }

  private List<DataFile> append(Table t, List<Record> records) throws IOException {
    List<DataFile> written = writeData(t, records);
    org.apache.iceberg.AppendFiles app = t.newAppend();
    for (DataFile f : written) app.appendFile(f);
    app.commit();
    pause();
    return written;
  }

  private static void pause() {
    try {
      Thread.sleep(15); // distinct snapshot timestamps for FOR TIMESTAMP AS OF
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Record rec(Schema s, Object... values) {
    GenericRecord r = GenericRecord.create(s);
    for (int i = 0; i < values.length; i++) r.set(i, values[i]);
    return r;
  }

  private static Record struct(Types.StructType st, Object... values) {
    GenericRecord r = GenericRecord.create(st);
    for (int i = 0; i < values.length; i++) r.set(i, values[i]);
    return r;
  }

  private static NestedField opt(int id, String name, Type t) {
    return NestedField.optional(id, name, t);
  }

  // ---- the tables ------------------------------------------------------------------------------

  void generateAll() throws Exception {
    Path expected = warehouse.resolve("expected");
    Files.createDirectories(expected);
    Map<String, List<String[]>> checks = new LinkedHashMap<>();
    List<String> names = new ArrayList<>();
    names.add(allTypes(1, "all_types_v1"));
    names.add(allTypes(2, "all_types"));
    names.add(allTypes(3, "all_types_v3"));
    names.addAll(partitioned(checks));
    names.add(positionDeletes());
    names.add(equalityDeletes());
    names.add(equalityDeletesPartitioned());
    names.add(deletionVectors());
    names.add(evolved(checks));
    names.add(timeTravel());
    for (String n : names) {
      Table t = catalog.loadTable(TableIdentifier.of(NS, n));
      List<String[]> c = checks.getOrDefault(n, new ArrayList<>());
      String json = describe(t, NS + "." + n, c);
      Files.write(expected.resolve(NS + "." + n + ".json"), json.getBytes(StandardCharsets.UTF_8));
    }
    System.out.println("generated " + names.size() + " tables in " + warehouse);
  }

  static final Types.StructType POINT = Types.StructType.of(
      opt(101, "x", Types.IntegerType.get()), opt(102, "label", Types.StringType.get()));
  static final Types.StructType POINT_EL = Types.StructType.of(
      opt(113, "x", Types.IntegerType.get()), opt(114, "label", Types.StringType.get()));

  private String allTypes(int version, String name) throws IOException {
    List<NestedField> fields = new ArrayList<>(List.of(
        NestedField.required(1, "id", Types.IntegerType.get()),
        opt(2, "b", Types.BooleanType.get()),
        opt(3, "i", Types.IntegerType.get()),
        opt(4, "l", Types.LongType.get()),
        opt(5, "f", Types.FloatType.get()),
        opt(6, "d", Types.DoubleType.get()),
        opt(7, "dec9", Types.DecimalType.of(9, 2)),
        opt(8, "dec18", Types.DecimalType.of(18, 6)),
        opt(9, "dec38", Types.DecimalType.of(38, 10)),
        opt(10, "dt", Types.DateType.get()),
        opt(11, "tm", Types.TimeType.get()),
        opt(12, "ts", Types.TimestampType.withoutZone()),
        opt(13, "tstz", Types.TimestampType.withZone()),
        opt(14, "s", Types.StringType.get()),
        opt(15, "u", Types.UUIDType.get()),
        opt(16, "fx", Types.FixedType.ofLength(4)),
        opt(17, "bin", Types.BinaryType.get()),
        opt(18, "pt", POINT),
        opt(19, "ints", Types.ListType.ofOptional(103, Types.IntegerType.get())),
        opt(20, "pts", Types.ListType.ofOptional(104, POINT_EL)),
        opt(21, "smap", Types.MapType.ofOptional(105, 106, Types.StringType.get(),
            Types.LongType.get())),
        opt(22, "imap", Types.MapType.ofOptional(107, 108, Types.IntegerType.get(),
            Types.StringType.get())),
        opt(23, "nested", Types.StructType.of(
            opt(109, "tags", Types.ListType.ofOptional(110, Types.StringType.get())),
            opt(111, "inner", Types.StructType.of(opt(112, "v", Types.DoubleType.get())))))));
    Schema s = new Schema(fields);
    Table t = create(name, s, PartitionSpec.unpartitioned(), version, null);
    Types.StructType nestedT = s.findField("nested").type().asStructType();
    Types.StructType innerT = nestedT.field("inner").type().asStructType();
    List<Record> rows = new ArrayList<>();
    rows.add(rec(s, 1, true, 42, 1234567890123L, 1.5f, 2.25, new BigDecimal("1234567.89"),
        new BigDecimal("-123456789012.345678"), new BigDecimal("1234567890123456789012345678.0123456789"),
        LocalDate.of(2024, 2, 29), LocalTime.of(13, 45, 30, 123456000),
        LocalDateTime.of(2024, 2, 29, 13, 45, 30, 123456000),
        OffsetDateTime.of(2024, 2, 29, 13, 45, 30, 654321000, ZoneOffset.UTC),
        "plain ascii", UUID.fromString("12151fd2-7586-11e9-8f9e-2a86e4085a59"),
        new byte[] {1, 2, 3, 4}, ByteBuffer.wrap(new byte[] {0, (byte) 0xff, 0x10}),
        struct(POINT, 7, "seven"), List.of(1, 2, 3),
        List.of(struct(POINT_EL, 1, "one"), struct(POINT_EL, 2, "two")),
        new LinkedHashMap<>(Map.of("a", 1L)), new LinkedHashMap<>(Map.of(1, "x", 2, "y")),
        struct(nestedT, List.of("red", "green"), struct(innerT, 0.5))));
    rows.add(rec(s, 2, false, Integer.MIN_VALUE, Long.MIN_VALUE, -0.0f, -1e300,
        new BigDecimal("-0.01"), new BigDecimal("0.000001"), new BigDecimal("-1.0000000001"),
        LocalDate.of(1969, 12, 31), LocalTime.of(0, 0, 0, 1000),
        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999999000),
        OffsetDateTime.of(1969, 12, 31, 23, 0, 0, 0, ZoneOffset.ofHours(-5)),
        "quotes \" and \\ and, commas; unicode: \u00e9\u4e2d\ud83d\ude00",
        UUID.fromString("00000000-0000-0000-0000-000000000000"),
        new byte[] {0, 0, 0, 0}, ByteBuffer.wrap(new byte[0]),
        struct(POINT, null, null), List.of(),
        new ArrayList<>(), new LinkedHashMap<>(), new LinkedHashMap<>(),
        struct(nestedT, null, null)));
    List<Integer> withNull = new ArrayList<>(Arrays.asList(4, null, 6));
    rows.add(rec(s, 3, null, Integer.MAX_VALUE, Long.MAX_VALUE, Float.NaN, Double.POSITIVE_INFINITY,
        new BigDecimal("9999999.99"), null, new BigDecimal("0E-10"),
        LocalDate.of(1, 1, 1), LocalTime.of(23, 59, 59, 999999000),
        LocalDateTime.of(1900, 1, 1, 0, 0), null, "", null, null, null, null, withNull,
        null, null, null, null));
    rows.add(rec(s, 4));
    append(t, rows);
    return name;
  }

  /** One table per transform (plus one with all of them); checks exercise pruning. */
  private List<String> partitioned(Map<String, List<String[]>> checks) throws IOException {
    Schema s = new Schema(
        NestedField.required(1, "id", Types.LongType.get()),
        opt(2, "s", Types.StringType.get()),
        opt(3, "n", Types.IntegerType.get()),
        opt(4, "dec", Types.DecimalType.of(10, 2)),
        opt(5, "d", Types.DateType.get()),
        opt(6, "ts", Types.TimestampType.withoutZone()),
        opt(7, "tstz", Types.TimestampType.withZone()),
        opt(8, "bin", Types.BinaryType.get()));
    List<Record> rows = new ArrayList<>();
    String[] strs = {"apple", "apricot", "banana", "blueberry", "cherry", "ap", "", null};
    for (int i = 0; i < 40; i++) {
      LocalDateTime ts = LocalDateTime.of(1969, 12, 30, 22, 30).plusHours(7L * i).plusMinutes(i);
      rows.add(rec(s, (long) i - 5, strs[i % strs.length], i % 7 == 3 ? null : i * 13 - 100,
          BigDecimal.valueOf(i * 137 - 2000, 2),
          i % 9 == 4 ? null : LocalDate.of(1968, 11, 30).plusDays(23L * i),
          i % 11 == 5 ? null : ts,
          ts.atOffset(ZoneOffset.UTC).plusSeconds(17),
          ByteBuffer.wrap(new byte[] {(byte) i, (byte) (i * 3)})));
    }
    Map<String, PartitionSpec> specs = new LinkedHashMap<>();
    specs.put("part_identity", PartitionSpec.builderFor(s).identity("s").identity("n").build());
    specs.put("part_bucket", PartitionSpec.builderFor(s).bucket("id", 16).bucket("s", 4)
        .bucket("d", 3).bucket("dec", 5).bucket("bin", 2).build());
    specs.put("part_truncate", PartitionSpec.builderFor(s).truncate("s", 2).truncate("n", 10)
        .truncate("dec", 100).truncate("bin", 1).build());
    specs.put("part_year", PartitionSpec.builderFor(s).year("d").build());
    specs.put("part_month", PartitionSpec.builderFor(s).month("ts").build());
    specs.put("part_day", PartitionSpec.builderFor(s).day("tstz").build());
    specs.put("part_hour", PartitionSpec.builderFor(s).hour("ts").build());
    specs.put("part_all", PartitionSpec.builderFor(s).identity("s").bucket("id", 8)
        .truncate("n", 50).year("d").month("tstz").day("ts").build());
    List<String[]> common = new ArrayList<>();
    common.add(new String[] {"id = 7", "id=7"});
    common.add(new String[] {"s = 'apricot'", "s=apricot"});
    common.add(new String[] {"s IS NULL", "s=null"});
    common.add(new String[] {"n < 0", "n<0"});
    common.add(new String[] {"d < DATE '1970-01-01'", "d<1970-01-01"});
    common.add(new String[] {"ts >= TIMESTAMP '1970-01-05 00:00:00'", "ts>=1970-01-05T00:00:00"});
    common.add(new String[] {"tstz < TIMESTAMP '1970-01-01 00:00:00 UTC'",
        "tstz<1970-01-01T00:00:00+00:00"});
    common.add(new String[] {"dec > 1.50", "dec>1.50"});
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, PartitionSpec> e : specs.entrySet()) {
      Table t = create(e.getKey(), s, e.getValue(), 2, null);
      append(t, rows.subList(0, 25));
      append(t, rows.subList(25, rows.size()));
      names.add(e.getKey());
      checks.put(e.getKey(), common);
    }
    return names;
  }

  private static final Schema DEL_SCHEMA = new Schema(
      NestedField.required(1, "id", Types.IntegerType.get()),
      opt(2, "name", Types.StringType.get()),
      opt(3, "cat", Types.StringType.get()));

  private static List<Record> delRows(int from, int to) {
    List<Record> rows = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      rows.add(rec(DEL_SCHEMA, i, i % 5 == 0 ? "x" : "n" + i, i % 2 == 0 ? "a" : "b"));
    }
    return rows;
  }

  private String positionDeletes() throws IOException {
    Table t = create("pos_deletes", DEL_SCHEMA, PartitionSpec.unpartitioned(), 2,
        Map.of(TableProperties.DELETE_MODE, "merge-on-read"));
    DataFile f1 = append(t, delRows(1, 10)).get(0);
    DataFile f2 = append(t, delRows(11, 20)).get(0);
    GenericFileWriterFactory wf = new GenericFileWriterFactory.Builder(t)
        .deleteFileFormat(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> w =
        wf.newPositionDeleteWriter(files(t).newOutputFile(), t.spec(), null);
    try (PositionDeleteWriter<Record> closing = w) {
      PositionDelete<Record> pd = PositionDelete.create();
      for (long pos : new long[] {0, 3, 9}) closing.write(pd.set(f1.location(), pos));
      for (long pos : new long[] {4, 5}) closing.write(pd.set(f2.location(), pos));
    }
    t.newRowDelta().addDeletes(w.toDeleteFile()).commit();
    pause();
    // a second delete file against the same data file, one overlapping position
    PositionDeleteWriter<Record> w2 =
        wf.newPositionDeleteWriter(files(t).newOutputFile(), t.spec(), null);
    try (PositionDeleteWriter<Record> closing = w2) {
      PositionDelete<Record> pd = PositionDelete.create();
      for (long pos : new long[] {3, 6}) closing.write(pd.set(f1.location(), pos));
    }
    t.newRowDelta().addDeletes(w2.toDeleteFile()).commit();
    pause();
    append(t, delRows(21, 22));
    return "pos_deletes";
  }

  private DeleteFile eqDelete(Table t, int[] fieldIds, Schema deleteSchema, StructLike partition,
                              List<Record> keys) throws IOException {
    GenericFileWriterFactory wf = new GenericFileWriterFactory.Builder(t)
        .deleteFileFormat(FileFormat.PARQUET).equalityFieldIds(fieldIds)
        .equalityDeleteRowSchema(deleteSchema).build();
    EqualityDeleteWriter<Record> w =
        wf.newEqualityDeleteWriter(files(t).newOutputFile(t.spec(), partition), t.spec(), partition);
    try (EqualityDeleteWriter<Record> closing = w) {
      for (Record k : keys) closing.write(k);
    }
    return w.toDeleteFile();
  }

  private String equalityDeletes() throws IOException {
    Table t = create("eq_deletes", DEL_SCHEMA, PartitionSpec.unpartitioned(), 2,
        Map.of(TableProperties.DELETE_MODE, "merge-on-read"));
    append(t, delRows(1, 10));
    Schema idOnly = DEL_SCHEMA.select("id");
    DeleteFile byId = eqDelete(t, new int[] {1}, idOnly, null,
        List.of(rec(idOnly, 2), rec(idOnly, 4), rec(idOnly, 99)));
    Schema nameOnly = DEL_SCHEMA.select("name");
    DeleteFile byName = eqDelete(t, new int[] {2}, nameOnly, null, List.of(rec(nameOnly, "x")));
    t.newRowDelta().addDeletes(byId).addDeletes(byName).commit();
    pause();
    // rows added after the deletes (higher sequence number) stay, even with a deleted key
    append(t, List.of(rec(DEL_SCHEMA, 2, "readded", "a"), rec(DEL_SCHEMA, 50, "x", "b")));
    // a two-column equality delete
    Schema pair = DEL_SCHEMA.select("id", "cat");
    DeleteFile byPair = eqDelete(t, new int[] {1, 3}, pair, null,
        List.of(rec(pair, 7, "b"), rec(pair, 8, "b"), rec(pair, 3, null)));
    t.newRowDelta().addDeletes(byPair).commit();
    pause();
    return "eq_deletes";
  }

  private String equalityDeletesPartitioned() throws IOException {
    PartitionSpec spec = PartitionSpec.builderFor(DEL_SCHEMA).identity("cat").build();
    Table t = create("eq_deletes_part", DEL_SCHEMA, spec, 2,
        Map.of(TableProperties.DELETE_MODE, "merge-on-read"));
    append(t, delRows(1, 12));
    append(t, List.of(rec(DEL_SCHEMA, 1, "dup", "a"), rec(DEL_SCHEMA, 2, "dup", "b")));
    Schema idOnly = DEL_SCHEMA.select("id");
    PartitionKey a = new PartitionKey(spec, DEL_SCHEMA);
    a.partition(rec(DEL_SCHEMA, 0, null, "a"));
    // deletes ids 1 and 2 only in partition cat='a': (1,'dup','a') and (2,'n2','a') go,
    // (1,'n1','b') and (2,'dup','b') stay
    DeleteFile del = eqDelete(t, new int[] {1}, idOnly, a, List.of(rec(idOnly, 1), rec(idOnly, 2)));
    t.newRowDelta().addDeletes(del).commit();
    pause();
    return "eq_deletes_part";
  }

  private String deletionVectors() throws IOException {
    Table t = create("dv_deletes", DEL_SCHEMA, PartitionSpec.unpartitioned(), 3,
        Map.of(TableProperties.DELETE_MODE, "merge-on-read"));
    DataFile f1 = append(t, delRows(1, 10)).get(0);
    DataFile f2 = append(t, delRows(11, 15)).get(0);
    BaseDVFileWriter dv = new BaseDVFileWriter(files(t), path -> null);
    try (BaseDVFileWriter closing = dv) {
      for (long pos : new long[] {1, 2, 8}) closing.delete(f1.location(), pos, t.spec(), null);
      closing.delete(f2.location(), 4, t.spec(), null);
    }
    org.apache.iceberg.RowDelta rd = t.newRowDelta();
    for (DeleteFile d : dv.result().deleteFiles()) rd.addDeletes(d);
    rd.commit();
    pause();
    return "dv_deletes";
  }

  private String evolved(Map<String, List<String[]>> checks) throws IOException {
    Schema s = new Schema(
        NestedField.required(1, "id", Types.IntegerType.get()),
        opt(2, "a", Types.StringType.get()),
        opt(3, "b", Types.IntegerType.get()),
        opt(4, "n", Types.IntegerType.get()),
        opt(5, "f", Types.FloatType.get()),
        opt(6, "dec", Types.DecimalType.of(9, 2)),
        opt(7, "cat", Types.StringType.get()));
    PartitionSpec spec = PartitionSpec.builderFor(s).identity("cat").build();
    Table t = create("evolved", s, spec, 2, null);
    List<Record> first = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      first.add(rec(t.schema(), i, "a" + i, i * 10, i * 1000, i + 0.5f,
          BigDecimal.valueOf(i * 111, 2), i % 2 == 0 ? "even" : "odd"));
    }
    append(t, first);
    t.updateSchema()
        .renameColumn("a", "a_renamed")
        .deleteColumn("b")
        .updateColumn("n", Types.LongType.get())
        .updateColumn("f", Types.DoubleType.get())
        .updateColumn("dec", Types.DecimalType.of(18, 2))
        .addColumn("added", Types.StringType.get())
        .commit();
    t.updateSchema().addColumn("b", Types.StringType.get()).commit(); // a new "b": new id
    t.updateSpec().removeField("cat").addField(Expressions.bucket("id", 4)).commit();
    List<Record> second = new ArrayList<>();
    Schema cur = t.schema();
    for (int i = 7; i <= 10; i++) {
      GenericRecord r = GenericRecord.create(cur);
      r.setField("id", i);
      r.setField("a_renamed", "r" + i);
      r.setField("n", 10_000_000_000L + i);
      r.setField("f", i + 0.25);
      r.setField("dec", new BigDecimal("1234567890123.45").add(BigDecimal.valueOf(i)));
      r.setField("cat", "new");
      r.setField("added", "added" + i);
      r.setField("b", "b" + i);
      second.add(r);
    }
    append(t, second);
    checks.put("evolved", List.of(
        new String[] {"id > 5", "id>5"},
        new String[] {"cat = 'odd'", "cat=odd"},
        new String[] {"b IS NULL", "b=null"},
        new String[] {"n > 5000", "n>5000"}));
    return "evolved";
  }

  private String timeTravel() throws IOException {
    Table t = create("time_travel", DEL_SCHEMA, PartitionSpec.unpartitioned(), 2, null);
    append(t, delRows(1, 3));
    long s1 = t.currentSnapshot().snapshotId();
    t.manageSnapshots().createTag("tag_first", s1).commit();
    append(t, delRows(4, 6));
    long s2 = t.currentSnapshot().snapshotId();
    t.manageSnapshots().createBranch("dev", s2).commit();
    // removes the whole first data file (ids 1..3) in a "delete" snapshot
    t.newDelete().deleteFromRowFilter(Expressions.lessThanOrEqual("id", 3)).commit();
    pause();
    t.refresh();
    append(t, delRows(7, 8));
    // a commit on the branch only
    List<DataFile> branchFiles = writeData(t, delRows(100, 101));
    org.apache.iceberg.AppendFiles app = t.newAppend().toBranch("dev");
    for (DataFile f : branchFiles) app.appendFile(f);
    app.commit();
    pause();
    t.manageSnapshots().createTag("tag_dev", t.refs().get("dev").snapshotId()).commit();
    return "time_travel";
  }

  // ---- describing a table as canonical JSON ------------------------------------------------------

  String describe(Table t, String name, List<String[]> checks) throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("{\"table\":").append(str(name));
    sb.append(",\"format_version\":").append(
        ((org.apache.iceberg.HasTableOperations) t).operations().current().formatVersion());
    sb.append(",\"location\":").append(str(t.location()));
    sb.append(",\"schema\":").append(SchemaParser.toJson(t.schema()));
    sb.append(",\"spec\":").append(org.apache.iceberg.PartitionSpecParser.toJson(t.spec()));
    Snapshot cur = t.currentSnapshot();
    sb.append(",\"snapshot_id\":").append(cur == null ? "null" : Long.toString(cur.snapshotId()));
    sb.append(",\"rows\":");
    rows(sb, t.schema(), IcebergGenerics.read(t).build());
    sb.append(",\"snapshots\":[");
    boolean first = true;
    for (Snapshot snap : t.snapshots()) {
      if (!first) sb.append(',');
      first = false;
      Schema ss = snap.schemaId() != null ? t.schemas().get(snap.schemaId()) : t.schema();
      sb.append("{\"snapshot_id\":").append(snap.snapshotId());
      sb.append(",\"parent_id\":").append(snap.parentId());
      sb.append(",\"sequence_number\":").append(snap.sequenceNumber());
      sb.append(",\"timestamp_ms\":").append(snap.timestampMillis());
      sb.append(",\"operation\":").append(str(snap.operation()));
      sb.append(",\"schema\":").append(SchemaParser.toJson(ss));
      sb.append(",\"rows\":");
      rows(sb, ss, IcebergGenerics.read(t).useSnapshot(snap.snapshotId()).build());
      sb.append('}');
    }
    sb.append("],\"refs\":{");
    first = true;
    for (Map.Entry<String, SnapshotRef> e : t.refs().entrySet()) {
      if (!first) sb.append(',');
      first = false;
      sb.append(str(e.getKey())).append(":{\"type\":")
          .append(str(e.getValue().isBranch() ? "branch" : "tag"))
          .append(",\"snapshot_id\":").append(e.getValue().snapshotId()).append('}');
    }
    sb.append("},\"history\":[");
    first = true;
    for (HistoryEntry h : t.history()) {
      if (!first) sb.append(',');
      first = false;
      sb.append("{\"snapshot_id\":").append(h.snapshotId())
          .append(",\"timestamp_ms\":").append(h.timestampMillis()).append('}');
    }
    sb.append("],\"files\":");
    fileCounts(sb, t, cur);
    sb.append(",\"checks\":[");
    first = true;
    for (String[] c : checks) {
      if (!first) sb.append(',');
      first = false;
      sb.append("{\"sql\":").append(str(c[0])).append(",\"rows\":");
      // IcebergGenerics prunes files with the filter but returns every row of the files it
      // reads: the Evaluator keeps exactly the rows the predicate accepts.
      // (The evaluator works on Iceberg's internal representation: dates as day numbers and
      // so on, which InternalRecordWrapper presents.)
      // Iceberg's Evaluator orders NULL before every value (NULL < 0 is true), unlike SQL, so a
      // comparison is evaluated together with "column is not null".
      Expression expr = parseExpr(c[1]);
      Expression sql = c[1].endsWith("=null") ? expr
          : Expressions.and(Expressions.notNull(c[1].split("[<>=]")[0]), expr);
      Evaluator keep = new Evaluator(t.schema().asStruct(), sql);
      InternalRecordWrapper internal = new InternalRecordWrapper(t.schema().asStruct());
      rows(sb, t.schema(),
           CloseableIterable.filter(IcebergGenerics.read(t).where(expr).build(),
                                    r -> keep.eval(internal.wrap(r))));
      sb.append('}');
    }
    sb.append("]}");
    return sb.toString();
  }

  /** "col<op>literal" with op one of = < > >= <=; "col=null" is IS NULL. */
  private static Expression parseExpr(String e) {
    String[] ops = {">=", "<=", "=", "<", ">"};
    for (String op : ops) {
      int at = e.indexOf(op);
      if (at < 0) continue;
      String col = e.substring(0, at);
      String lit = e.substring(at + op.length());
      if (lit.equals("null")) return Expressions.isNull(col);
      Object v = lit;
      if (lit.matches("-?[0-9]+")) v = Long.parseLong(lit);
      else if (lit.matches("-?[0-9]+\\.[0-9]+")) v = new BigDecimal(lit);
      switch (op) {
        case ">=": return Expressions.greaterThanOrEqual(col, v);
        case "<=": return Expressions.lessThanOrEqual(col, v);
        case "=": return Expressions.equal(col, v);
        case "<": return Expressions.lessThan(col, v);
        default: return Expressions.greaterThan(col, v);
      }
    }
    throw new IllegalArgumentException(e);
  }

  private static void fileCounts(StringBuilder sb, Table t, Snapshot cur) throws IOException {
    int data = 0, pos = 0, eq = 0, dvs = 0;
    if (cur != null) {
      for (ManifestFile m : cur.dataManifests(t.io())) {
        try (ManifestReader<DataFile> r = ManifestFiles.read(m, t.io(), t.specs())) {
          for (DataFile f : r) data++;
        }
      }
      for (ManifestFile m : cur.deleteManifests(t.io())) {
        try (ManifestReader<DeleteFile> r = ManifestFiles.readDeleteManifest(m, t.io(), t.specs())) {
          for (DeleteFile f : r) {
            if (f.content() == FileContent.EQUALITY_DELETES) eq++;
            else pos++;
            if (f.format() == FileFormat.PUFFIN) dvs++;
          }
        }
      }
    }
    sb.append("{\"data\":").append(data).append(",\"position_deletes\":").append(pos)
        .append(",\"equality_deletes\":").append(eq).append(",\"dvs\":").append(dvs).append('}');
  }

  private static void rows(StringBuilder sb, Schema s, CloseableIterable<Record> it)
      throws IOException {
    sb.append('[');
    boolean first = true;
    try (CloseableIterable<Record> closing = it) {
      for (Record r : closing) {
        if (!first) sb.append(',');
        first = false;
        value(sb, s.asStruct(), r);
      }
    }
    sb.append(']');
  }

  private static String str(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  private static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder();
    for (byte x : bytes) b.append(String.format("%02x", x & 0xff));
    return b.toString();
  }

  private static void value(StringBuilder sb, Type type, Object v) {
    if (v == null) {
      sb.append("null");
      return;
    }
    switch (type.typeId()) {
      case BOOLEAN:
      case INTEGER:
      case LONG:
        sb.append(v);
        break;
      case FLOAT:
      case DOUBLE: {
        double d = ((Number) v).doubleValue();
        if (Double.isNaN(d) || Double.isInfinite(d)) sb.append(str(v.toString()));
        else sb.append(v); // Float.toString / Double.toString: shortest round-trip text
        break;
      }
      case DECIMAL:
        sb.append(str(((BigDecimal) v).toPlainString()));
        break;
      case FIXED:
        sb.append(str(hex((byte[]) v)));
        break;
      case BINARY: {
        ByteBuffer bb = ((ByteBuffer) v).duplicate();
        byte[] b = new byte[bb.remaining()];
        bb.get(b);
        sb.append(str(hex(b)));
        break;
      }
      case STRUCT: {
        Types.StructType st = type.asStructType();
        StructLike r = (StructLike) v;
        sb.append('{');
        List<NestedField> fs = st.fields();
        for (int i = 0; i < fs.size(); i++) {
          if (i > 0) sb.append(',');
          sb.append(str(fs.get(i).name())).append(':');
          Object fv = (r instanceof Record) ? ((Record) r).get(i) : r.get(i, Object.class);
          value(sb, fs.get(i).type(), fv);
        }
        sb.append('}');
        break;
      }
      case LIST: {
        Type et = type.asListType().elementType();
        sb.append('[');
        boolean first = true;
        for (Object e : (List<?>) v) {
          if (!first) sb.append(',');
          first = false;
          value(sb, et, e);
        }
        sb.append(']');
        break;
      }
      case MAP: {
        Types.MapType mt = type.asMapType();
        sb.append('[');
        boolean first = true;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          if (!first) sb.append(',');
          first = false;
          sb.append('[');
          value(sb, mt.keyType(), e.getKey());
          sb.append(',');
          value(sb, mt.valueType(), e.getValue());
          sb.append(']');
        }
        sb.append(']');
        break;
      }
      default: // date, time, timestamp(tz), string, uuid: java.time / toString text
        sb.append(str(v.toString()));
    }
  }
}
