"""test_check_layers.py: scripts/check_layers.py passes on the tree and fails on planted upward
includes (DESIGN.md section 3's include rule; issue 13 item 8)."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "check_layers.py")


def run(root):
    p = subprocess.run([sys.executable, SCRIPT, "--root", str(root)], capture_output=True, text=True)
    return p.returncode, p.stdout


def copy_src(tmp_path):
    shutil.copytree(os.path.join(ROOT, "src"), tmp_path / "src")
    return tmp_path


def plant(root, rel, header):
    path = root / "src" / rel
    with open(path, "a") as f:
        f.write(f'\n#include "{header}"\n')
    return path


def test_the_tree_keeps_the_rule():
    rc, out = run(ROOT)
    assert rc == 0, out
    assert "0 violation(s)" in out


def test_an_upward_include_fails(tmp_path):
    root = copy_src(tmp_path)
    plant(root, "common/arena.c", "exec/exec.h")
    rc, out = run(root)
    assert rc == 1
    assert 'src/common/arena.c' in out and 'common includes "exec/exec.h" (exec)' in out


def test_siblings_do_not_include_each_other(tmp_path):
    root = copy_src(tmp_path)
    plant(root, "bind/bind_scope.c", "exec/exec.h")
    plant(root, "format/csv/csv_files.c", "format/parquet/pq_reader.h")
    rc, out = run(root)
    assert rc == 1
    assert 'bind includes "exec/exec.h" (exec)' in out
    assert 'format/csv includes "format/parquet/' in out


def test_a_private_header_stays_in_its_directory(tmp_path):
    root = copy_src(tmp_path)
    # exec/ and sql/ rank below server/ and cli/ (allowed by rank), but these headers are theirs
    plant(root, "server/flight/flight_meta.c", "exec/exec_int.h")
    plant(root, "cli/cli_catalogs.c", "sql/sql_int.h")
    rc, out = run(root)
    assert rc == 1
    assert 'src/server/flight/flight_meta.c' in out and 'private to src/exec/' in out
    assert 'src/cli/cli_catalogs.c' in out and 'private to src/sql/' in out


def test_a_new_layer_must_be_placed(tmp_path):
    root = copy_src(tmp_path)
    os.makedirs(root / "src" / "gadgets")
    (root / "src" / "gadgets" / "gadget.c").write_text('#include "common/err.h"\n')
    rc, out = run(root)
    assert rc == 1 and "layer 'gadgets' is not in scripts/check_layers.py" in out


def test_foundation_only_layers(tmp_path):
    root = copy_src(tmp_path)
    os.makedirs(root / "src" / "policy")
    (root / "src" / "policy" / "policy.c").write_text('#include "common/err.h"\n#include "bind/bind.h"\n')
    rc, out = run(root)
    assert rc == 1 and 'policy includes "bind/bind.h" (bind)' in out and "common/err.h" not in out
