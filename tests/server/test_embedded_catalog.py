"""The shell (`sqe sql`) and the server (`sqe serve`) open the same embedded Iceberg catalog.

The README promises that `./build/sqe sql` works on "the same warehouse" `make run` serves: a
table created in one is in the other. Each test runs both commands with a temporary HOME (never
the real ~/.sqe) or a temporary data_dir, the server on free ports:
- default paths: the shell creates ~/.sqe/catalog.db and ~/.sqe/warehouse (not a truncated
  "catalog.d"), the server serves the shell's table, and the shell reads what the server
  created and inserted, while the server runs;
- the same configuration: SQE_COORDINATOR__DATA_DIR and `sqe sql --config FILE` place the
  shell's catalog where `sqe serve` with that environment or file looks for it.

Run: .cache/venv/bin/python -m pytest -q tests/server/test_embedded_catalog.py
(SQE_BIN picks the binary, default build/sqe; tests/server/run_server_tests.sh runs it).
"""
import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import trino

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "load"))
from sqe_serve import SqeServe, default_binary  # noqa: E402

SQE = default_binary()


def clean_env(**extra):
    """The caller's environment without SQE_ variables, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQE_")}
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    env.update(extra)
    return env


def shell(sql, env, *args):
    """Runs `sqe sql --format csv -e sql`; returns the rows of its last result (lists of text)."""
    r = subprocess.run([str(SQE), "sql", "--bail", "--format", "csv", *args, "-e", sql],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, f"sqe sql failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    assert SqeServe.sanitizer_report(r.stderr) is None, r.stderr
    rows = list(csv.reader(io.StringIO(r.stdout)))
    return rows[1:]  # without the header line


def trino_rows(srv, sql):
    cur = trino.dbapi.connect(host="127.0.0.1", port=srv.trino_port, user="tester",
                              catalog="iceberg", schema="default").cursor()
    cur.execute(sql)
    return cur.fetchall()


def stop_clean(srv):
    status, out = srv.stop()
    assert status == 0, out[-3000:]
    assert SqeServe.sanitizer_report(out) is None, out[-3000:]


def test_shell_and_server_share_the_default_warehouse(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(HOME=str(home))
    shell("CREATE SCHEMA sales; "
          "CREATE TABLE sales.from_shell AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(id, v)",
          env)
    # the defaults `sqe serve` documents (docs/iceberg.md), spelled out in full
    assert (home / ".sqe" / "catalog.db").is_file()
    assert (home / ".sqe" / "warehouse").is_dir()
    assert not (home / ".sqe" / "catalog.d").exists()

    srv = SqeServe(SQE, tmp_path / "serve", home=home)
    try:
        assert trino_rows(srv, "SELECT id, v FROM sales.from_shell ORDER BY id") == \
            [[1, "a"], [2, "b"]]
        trino_rows(srv, "CREATE TABLE sales.from_server (k bigint, name varchar)")
        trino_rows(srv, "INSERT INTO sales.from_server VALUES (10, 'x'), (20, 'y'), (30, 'z')")
        # the shell, while the server runs, reads the server's table and writes the shell's
        assert shell("SELECT k, name FROM sales.from_server ORDER BY k", env) == \
            [["10", "x"], ["20", "y"], ["30", "z"]]
        shell("INSERT INTO sales.from_shell VALUES (3, 'c')", env)
        assert trino_rows(srv, "SELECT count(*), sum(id) FROM sales.from_shell") == [[3, 6]]
        assert sorted(r[0] for r in trino_rows(srv, "SHOW TABLES FROM sales")) == \
            ["from_server", "from_shell"]
    finally:
        stop_clean(srv)


def test_shell_follows_the_servers_configuration(tmp_path):
    # SqeServe sets SQE_COORDINATOR__DATA_DIR=<workdir>/data: the shell with that variable
    # writes where that server reads
    work = tmp_path / "serve"
    env = clean_env(HOME=str(tmp_path / "nohome"), SQE_COORDINATOR__DATA_DIR=str(work / "data"))
    shell("CREATE TABLE default.t AS SELECT x FROM UNNEST(sequence(1, 5)) u(x)", env)
    assert (work / "data" / "catalog.db").is_file()
    assert not (tmp_path / "nohome" / ".sqe").exists()
    srv = SqeServe(SQE, work)
    try:
        assert trino_rows(srv, "SELECT count(*), sum(x) FROM default.t") == [[5, 15]]
    finally:
        stop_clean(srv)

    # `sqe sql --config FILE` takes data_dir and [catalog] paths from the file, as `sqe serve
    # --config FILE` does
    data = tmp_path / "cfgdata"
    wh = tmp_path / "cfgwh"
    conf = tmp_path / "sqe.toml"
    conf.write_text(f'[coordinator]\ndata_dir = "{data}"\n[catalog]\nwarehouse = "{wh}"\n')
    env = clean_env(HOME=str(tmp_path / "nohome"))
    shell("CREATE TABLE default.c AS SELECT 42 AS answer", env, "--config", str(conf))
    assert (data / "catalog.db").is_file()
    assert any(wh.rglob("*.parquet"))
    assert shell("SELECT answer FROM default.c", env, "--config", str(conf)) == [["42"]]
    assert not (tmp_path / "nohome" / ".sqe").exists()
