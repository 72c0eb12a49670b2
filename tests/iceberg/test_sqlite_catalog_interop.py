"""Interop tests of SQE's SQLite Iceberg catalog (src/catalog/ice_sqlite.c) with pyiceberg 0.12.

pyiceberg's SqlCatalog and the C driver (ice_sqlite_driver, built by run_sqlite_catalog_tests.sh
or by the fixture below) open the same SQLite file and warehouse under the same catalog name:

- pyiceberg creates namespaces and tables and appends data; the C side lists them and loads
  them with the same metadata location, table UUID, snapshot and schema.
- The C side creates namespaces (with properties) and tables; pyiceberg lists them, loads the
  schema, appends data (writing its own new metadata file and committing through the same
  table row) and scans it back; the C side then loads pyiceberg's new location; a C commit
  after that is seen by pyiceberg, which appends again on top of it.
- Concurrent commits: a C compare-and-swap with a stale location loses against a pyiceberg
  commit (exit 3, no file left behind), and a pyiceberg commit on a stale table loses against a
  C commit (CommitFailedException).
- Rename, drop and namespace errors seen from both sides; a database created by the C side is
  opened by pyiceberg and the other way round; the warehouse given as a plain path or a file URI.
"""

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceNotEmptyError,
    NoSuchTableError,
)
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestamptzType,
)

ROOT = Path(__file__).resolve().parents[2]
CATALOG = "sqe"


# ---- the driver ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def driver(tmp_path_factory):
    path = os.environ.get("ICE_SQLITE_DRIVER")
    if path and os.access(path, os.X_OK):
        return path
    out = tmp_path_factory.mktemp("bin") / "ice_sqlite_driver"
    src = ROOT / "src"
    cmd = ["gcc", "-std=gnu17", "-g", "-O1", "-Wall", "-Wextra", "-Werror", "-Wshadow",
           "-Wstrict-prototypes", "-Wno-unused-parameter", "-fsanitize=address,undefined",
           "-fno-sanitize-recover=undefined", f"-I{ROOT / 'include'}", f"-I{src}",
           str(ROOT / "tests/iceberg/ice_sqlite_driver.c"), str(src / "catalog/ice_sqlite.c")]
    cmd += [str(src / "iceberg" / f) for f in ("metadata_parse.c", "metadata_write.c", "schema.c",
                                                "partition_spec.c", "transform.c", "murmur3.c")]
    cmd += [str(src / "vec/vec.c")] + [str(src / "common" / f) for f in
                                        ("arena.c", "err.c", "mem.c", "strbuf.c")]
    cmd += sorted(str(p) for p in (src / "types").glob("*.c"))
    cmd += ["-lsqlite3", "-ljansson", "-lm", "-lpthread", "-o", str(out)]
    subprocess.run(cmd, check=True)
    return str(out)


class Env:
    """One SQLite file + warehouse, seen through pyiceberg and through the C driver."""

    def __init__(self, driver, tmp_path, c_warehouse_form="uri"):
        self.driver = driver
        self.db = tmp_path / "catalog.db"
        self.wh_path = tmp_path / "warehouse"
        self.wh_path.mkdir(exist_ok=True)
        self.wh_uri = f"file://{self.wh_path}"
        self.c_wh = self.wh_uri if c_warehouse_form == "uri" else str(self.wh_path)

    def py(self):
        return SqlCatalog(CATALOG, uri=f"sqlite:///{self.db}", warehouse=self.wh_uri)

    def c(self, *args, expect=0):
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = "detect_leaks=1:" + env.get("ASAN_OPTIONS", "")
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:" + env.get("UBSAN_OPTIONS", "")
        p = subprocess.run([self.driver, str(self.db), self.c_wh, CATALOG, *map(str, args)],
                           capture_output=True, text=True, env=env, timeout=120)
        assert "Sanitizer" not in p.stderr and "runtime error" not in p.stderr, p.stderr[-4000:]
        assert p.returncode == expect, (args, p.returncode, p.stdout, p.stderr)
        return p.stdout if expect == 0 else p.stderr

    def c_lines(self, *args):
        return self.c(*args).splitlines()

    def c_load(self, ns, name):
        out = {}
        for line in self.c_lines("load", ns, name):
            key, _, value = line.partition("\t")
            out[key] = value
        out["schema"] = json.loads(out["schema"])
        return out


@pytest.fixture(params=["uri", "path"])
def env(request, driver, tmp_path):
    return Env(driver, tmp_path, request.param)


def local(location):
    return Path(location[len("file://"):] if location.startswith("file://") else location)


def metadata_files(location_of_one):
    return sorted(p.name for p in local(location_of_one).parent.glob("*.metadata.json"))


def schema_dict(schema):
    return json.loads(schema.model_dump_json())


PY_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "amount", DecimalType(12, 2)),
    NestedField(4, "ts", TimestamptzType()),
    NestedField(5, "tags", ListType(6, StringType(), element_required=False)),
    NestedField(7, "attrs", MapType(8, StringType(), 9, IntegerType(), value_required=False)),
    NestedField(10, "point", StructType(NestedField(11, "x", DoubleType()),
                                        NestedField(12, "y", DoubleType()))),
    identifier_field_ids=[1],
)

C_SCHEMA = {
    "type": "struct", "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "label", "required": False, "type": "string"},
        {"id": 3, "name": "day", "required": False, "type": "date"},
        {"id": 4, "name": "ok", "required": False, "type": "boolean"},
        {"id": 5, "name": "scores", "required": False,
         "type": {"type": "list", "element-id": 6, "element": "double", "element-required": False}},
    ],
}


def c_rows(n0, n):
    import datetime
    return pa.table({
        "id": pa.array(range(n0, n0 + n), pa.int64()),
        "label": pa.array([f"r{i}" for i in range(n0, n0 + n)], pa.string()),
        "day": pa.array([datetime.date(2024, 1, 1 + i % 28) for i in range(n)], pa.date32()),
        "ok": pa.array([i % 2 == 0 for i in range(n)], pa.bool_()),
        "scores": pa.array([[float(i), 0.5] for i in range(n)], pa.list_(pa.float64())),
    }, schema=pa.schema([
        pa.field("id", pa.int64(), nullable=False), pa.field("label", pa.string()),
        pa.field("day", pa.date32()), pa.field("ok", pa.bool_()),
        pa.field("scores", pa.list_(pa.float64()))]))


# ---- pyiceberg writes, C reads ---------------------------------------------------------------


def test_pyiceberg_to_c(env):
    cat = env.py()
    cat.create_namespace("sales", {"owner": "ann"})
    cat.create_namespace("sales.eu")
    cat.create_namespace("hr")
    t = cat.create_table("sales.orders", PY_SCHEMA)
    cat.create_table("sales.eu.returns", Schema(NestedField(1, "id", LongType())))
    t.append(_orders_rows(t))
    t.append(_orders_rows(t))
    t = cat.load_table("sales.orders")

    assert env.c_lines("list-ns") == ["hr", "sales"]
    assert env.c_lines("list-ns", "sales") == ["sales.eu"]
    assert env.c_lines("list-ns", "sales.eu") == []
    assert env.c_lines("ns-props", "sales") == ["owner=ann"]  # pyiceberg adds no "exists" here
    assert env.c_lines("ns-props", "hr") == ["exists=true"]
    assert env.c_lines("exists-ns", "sales.eu") == ["true"]
    assert env.c_lines("list-tables", "sales") == ["orders"]
    assert env.c_lines("list-tables", "sales.eu") == ["returns"]

    got = env.c_load("sales", "orders")
    assert got["location"] == t.metadata_location
    assert got["location"].endswith(".metadata.json") and "/00002-" in got["location"]
    assert got["uuid"] == str(t.metadata.table_uuid)
    assert int(got["current-snapshot-id"]) == t.metadata.current_snapshot_id
    assert got["format-version"] == str(t.metadata.format_version)
    assert got["schema"] == schema_dict(t.schema())

    err = env.c("drop-ns", "sales.eu", expect=1)
    assert "SCHEMA_NOT_EMPTY" in err
    err = env.c("load", "sales", "nope", expect=1)
    assert "TABLE_NOT_FOUND" in err and "sales.nope" in err


def _orders_rows(t):
    import datetime
    import decimal
    schema = t.schema().as_arrow()
    n = 3
    return pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "name": ["a", "b", None],
        "amount": pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("-2.25")],
                           pa.decimal128(12, 2)),
        "ts": pa.array([datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)] * n,
                       pa.timestamp("us", tz="UTC")),
        "tags": pa.array([["x"], [], None], pa.list_(pa.string())),
        "attrs": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int32())),
        "point": pa.array([{"x": 1.0, "y": 2.0}, None, {"x": 0.0, "y": -1.0}],
                          pa.struct([("x", pa.float64()), ("y", pa.float64())])),
    }).cast(schema)


# ---- C writes, pyiceberg reads and writes ----------------------------------------------------


def test_c_to_pyiceberg(env):
    # the C side creates the database file (tables included)
    env.c("create-ns", "lake", "owner=bob", "comment=from C")
    created = env.c("create-table", "lake", "events", json.dumps(C_SCHEMA)).strip()
    assert "/00000-" in created and created.startswith(env.c_wh + "/lake/events/metadata/")
    assert local(created).is_file()

    cat = env.py()
    assert cat.list_namespaces() == [("lake",)]
    props = cat.load_namespace_properties("lake")
    assert props == {"owner": "bob", "comment": "from C", "exists": "true"}
    assert cat.list_tables("lake") == [("lake", "events")]
    t = cat.load_table("lake.events")
    assert t.metadata_location == created
    assert schema_dict(t.schema()) == C_SCHEMA | {"identifier-field-ids": []}
    assert t.metadata.current_snapshot_id is None
    assert t.scan().to_arrow().num_rows == 0

    # pyiceberg appends: a new metadata file, committed through the same row
    t.append(c_rows(0, 5))
    after_py = cat.load_table("lake.events")
    got = env.c_load("lake", "events")
    assert got["location"] == after_py.metadata_location
    assert "/00001-" in got["location"]
    assert int(got["current-snapshot-id"]) == after_py.metadata.current_snapshot_id
    assert got["schema"] == C_SCHEMA | {"identifier-field-ids": []} or got["schema"] == C_SCHEMA

    # a C commit on top (table property + metadata-log entry) ...
    c_loc = env.c("set-prop", "lake", "events", "owner.team", "c-side").strip()
    assert "/00002-" in c_loc
    t = cat.load_table("lake.events")
    assert t.metadata_location == c_loc
    assert t.properties.get("owner.team") == "c-side"
    assert t.metadata.current_snapshot_id == after_py.metadata.current_snapshot_id
    assert [e.metadata_file for e in t.metadata.metadata_log][-1] == after_py.metadata_location
    # ... and pyiceberg appends again on top of the C commit
    t.append(c_rows(5, 3))
    t = cat.load_table("lake.events")
    assert "/00003-" in t.metadata_location
    rows = t.scan().to_arrow().sort_by("id")
    assert rows.column("id").to_pylist() == list(range(8))
    assert rows.column("label").to_pylist() == [f"r{i}" for i in range(8)]
    assert env.c_load("lake", "events")["location"] == t.metadata_location
    assert len(t.metadata.snapshots) == 2


def test_multilevel_namespace_and_catalog_created_by_c(env):
    env.c("create-ns", "a.b")
    loc = env.c("create-table", "a.b", "t", json.dumps(C_SCHEMA), 1).strip()
    # Iceberg Java's JdbcCatalog layout: levels become directories
    assert loc.startswith(env.c_wh + "/a/b/t/metadata/00000-")
    cat = env.py()
    assert cat.list_namespaces() == [("a",)]
    assert cat.list_namespaces("a") == [("a", "b")]
    t = cat.load_table(("a", "b", "t"))
    assert t.metadata.format_version == 1
    assert [f.name for f in t.schema().fields] == ["id", "label", "day", "ok", "scores"]
    t.append(c_rows(0, 2))
    assert cat.load_table("a.b.t").scan().to_arrow().num_rows == 2
    assert env.c_load("a.b", "t")["location"] == cat.load_table("a.b.t").metadata_location


# ---- concurrency -----------------------------------------------------------------------------


def test_concurrent_commit_c_loses(env):
    env.c("create-ns", "cc")
    env.c("create-table", "cc", "t", json.dumps(C_SCHEMA))
    stale = env.c_load("cc", "t")["location"]
    cat = env.py()
    t = cat.load_table("cc.t")
    t.append(c_rows(0, 1))  # pyiceberg wins the race
    winner = cat.load_table("cc.t").metadata_location
    before = metadata_files(winner)
    err = env.c("set-prop", "cc", "t", "k", "v", stale, expect=3)
    assert "Commit failed: table cc.t was changed concurrently" in err
    assert stale in err and winner in err
    assert metadata_files(winner) == before  # the losing file was removed
    assert env.c_load("cc", "t")["location"] == winner
    assert "k" not in cat.load_table("cc.t").properties
    # retrying against the current location succeeds
    new = env.c("set-prop", "cc", "t", "k", "v").strip()
    assert cat.load_table("cc.t").properties["k"] == "v"
    assert cat.load_table("cc.t").metadata_location == new


def test_concurrent_commit_pyiceberg_loses(env, monkeypatch, caplog):
    cat = env.py()
    cat.create_namespace("cc")
    cat.create_table("cc.t", Schema(NestedField(1, "id", LongType(), required=False)))
    # A C commit lands between pyiceberg's reload of the table and its compare-and-swap (it
    # runs while pyiceberg writes its new metadata file): pyiceberg's UPDATE ... WHERE
    # metadata_location = <what it loaded> then matches no row (CommitFailedException).
    real_write = SqlCatalog._write_metadata
    raced = []

    def racing_write(metadata, io, metadata_path):
        if len(raced) < races:
            raced.append(env.c("set-prop", "cc", "t", f"race{len(raced)}", "c").strip())
        real_write(metadata, io, metadata_path)

    monkeypatch.setattr(SqlCatalog, "_write_metadata", staticmethod(racing_write))
    # one race: pyiceberg 0.12 sees the lost swap, retries on the C commit, and wins
    races = 1
    t = cat.load_table("cc.t")
    t.append(pa.table({"id": pa.array([1], pa.int64())}))
    assert "Commit failed due to a concurrent update" in caplog.text
    fresh = cat.load_table("cc.t")
    assert fresh.properties["race0"] == "c"
    assert fresh.scan().to_arrow().column("id").to_pylist() == [1]
    assert ice_version(fresh.metadata_location) == 2  # 1 = the C commit, 2 = the retry
    # a race on every attempt: pyiceberg gives up
    races = 100
    with pytest.raises(CommitFailedException):
        fresh.append(pa.table({"id": pa.array([2], pa.int64())}))
    monkeypatch.setattr(SqlCatalog, "_write_metadata", staticmethod(real_write))
    final = cat.load_table("cc.t")
    assert final.metadata_location == raced[-1]
    assert final.scan().to_arrow().column("id").to_pylist() == [1]
    assert env.c_load("cc", "t")["location"] == final.metadata_location


def ice_version(location):
    return int(location.rsplit("/", 1)[1].split("-", 1)[0])


def test_commit_with_given_metadata_file(env, tmp_path):
    env.c("create-ns", "m")
    first = env.c("create-table", "m", "t", json.dumps(C_SCHEMA)).strip()
    doc = json.loads(local(first).read_text())
    doc["properties"] = {"written.by": "hand"}
    doc["last-updated-ms"] += 1
    doc["metadata-log"] = [{"timestamp-ms": doc["last-updated-ms"] - 1, "metadata-file": first}]
    f = tmp_path / "new.json"
    f.write_text(json.dumps(doc))
    new = env.c("commit", "m", "t", first, f).strip()
    assert "/00001-" in new
    assert json.loads(local(new).read_text()) == doc
    t = env.py().load_table("m.t")
    assert t.metadata_location == new and t.properties == {"written.by": "hand"}
    # the same old location again: conflict
    err = env.c("commit", "m", "t", first, f, expect=3)
    assert "changed concurrently" in err
    assert len(metadata_files(new)) == 2


# ---- rename, drop, errors --------------------------------------------------------------------


def test_rename_and_drop_across_tools(env):
    cat = env.py()
    cat.create_namespace("r")
    cat.create_namespace("s")
    t = cat.create_table("r.t", Schema(NestedField(1, "id", LongType())))
    loc = t.metadata_location
    env.c("rename-table", "r", "t", "s", "t2")
    assert cat.list_tables("r") == []
    assert cat.load_table("s.t2").metadata_location == loc
    err = env.c("rename-table", "r", "t", "s", "t3", expect=1)
    assert "TABLE_NOT_FOUND" in err
    cat.create_table("r.t", Schema(NestedField(1, "id", LongType())))
    err = env.c("rename-table", "r", "t", "s", "t2", expect=1)
    assert "ALREADY_EXISTS" in err
    err = env.c("drop-table", "s", "t2", "purge", expect=1)
    assert "NOT_SUPPORTED" in err
    env.c("drop-table", "s", "t2")
    with pytest.raises(NoSuchTableError):
        cat.load_table("s.t2")
    assert local(loc).is_file()  # no purge: files stay
    cat.drop_table("r.t")
    assert "TABLE_NOT_FOUND" in env.c("load", "r", "t", expect=1)
    env.c("drop-ns", "s")
    assert cat.list_namespaces() == [("r",)]
    # pyiceberg refuses to drop a namespace holding a C table
    env.c("create-table", "r", "c", json.dumps(C_SCHEMA))
    with pytest.raises(NamespaceNotEmptyError):
        cat.drop_namespace("r")
    err = env.c("create-table", "r", "c", json.dumps(C_SCHEMA), expect=1)
    assert "ALREADY_EXISTS" in err
    err = env.c("create-table", "nope", "c", json.dumps(C_SCHEMA), expect=1)
    assert "SCHEMA_NOT_FOUND" in err


def test_namespace_properties_across_tools(env):
    cat = env.py()
    cat.create_namespace("p", {"a": "1", "b": "2"})
    env.c("set-ns-props", "p", "-a", "c=3")
    assert cat.load_namespace_properties("p") == {"b": "2", "c": "3"}
    cat.update_namespace_properties("p", removals={"b"}, updates={"d": "4"})
    assert env.c_lines("ns-props", "p") == ["c=3", "d=4"]
    assert "ALREADY_EXISTS" in env.c("create-ns", "p", expect=1)
    # a namespace location property places C tables there
    env.c("create-ns", "q", f"location={env.wh_path}/elsewhere/")
    loc = env.c("create-table", "q", "t", json.dumps(C_SCHEMA)).strip()
    assert loc.startswith(f"{env.wh_path}/elsewhere/t/metadata/00000-")
    assert env.py().load_table("q.t").metadata_location == loc
