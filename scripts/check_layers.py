#!/usr/bin/env python3
"""check_layers.py: the include rule of DESIGN.md section 3, checked on src/.

Every file under src/<layer>/ may include headers of its own layer and of the layers below it,
never of a layer above or beside it. The layers, lowest first (one rank may hold several
layers that must not include each other):

  sqe (include/sqe: the public API)
  common
  types
  vec
  io
  format/* (csv, parquet, avro, arrow; each on its own), func
  sql
  iceberg
  catalog
  plan          (the logical plan and the optimizer)
  scan          (scan sources (Iceberg, Parquet, CSV, memory tables; they fill plan_source)
                and serializable scan tasks: above plan, below bind and exec)
  bind, exec    (bind builds plans, exec runs them; neither includes the other)
  engine
  server        (server/ itself: the hooks a front end calls)
  server/core   (sessions, auth, limits; then server/trino, server/flight, ... above core)
  cli

A layer added to src/ must be added to LAYERS below, or the check fails naming it. auth, policy,
audit and obs (when they exist) depend on the foundation only (sqe .. func).

Usage: check_layers.py [--root DIR]   (DIR: the repository, default the one holding this script)
A header named *_int.h is private to its directory: only files in that directory (or below it)
may include it; callers elsewhere use the public counterpart (engine/engine_api.h beside
engine/engine.h, sql/lexer.h beside sql/sql_int.h, ...).

Prints each violation as `file:line: <layer> includes "<header>" (<target layer>)` and exits 1
when there is any, 0 otherwise.
"""
import argparse
import os
import re
import sys

# layer -> rank; layers of equal rank may not include each other
LAYERS = {
    "sqe": 0,
    "common": 1,
    "types": 2,
    "vec": 3,
    "io": 4,
    "format/csv": 5, "format/parquet": 5, "format/avro": 5, "format/arrow": 5, "func": 5,
    "sql": 6,
    "auth": 6, "policy": 6, "audit": 6, "obs": 6,
    "iceberg": 7,
    "catalog": 8,
    "plan": 9,
    "bind": 10, "exec": 10,
    "engine": 11,
    "server": 12, "server/core": 12.5,
    "server/trino": 13, "server/flight": 13, "server/mcp": 13, "server/web": 13,
    "dist": 13,
    "scan": 9.5,
    "cli": 14,
}
FOUNDATION = {"sqe", "common", "types", "vec", "io", "format/csv", "format/parquet",
              "format/avro", "format/arrow", "func"}
FOUNDATION_ONLY = {"auth", "policy", "audit", "obs"}
# headers from outside the project (generated protobuf code) are not layers
EXTERNAL = ("google/", "flight_gen/", "Flight.pb-c", "FlightSql.pb-c")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of_path(rel):
    """The layer of a path relative to src/ (or of an include like "exec/exec.h")."""
    parts = rel.split("/")
    if len(parts) < 2:
        return None
    if parts[0] in ("format", "server") and len(parts) >= 3:
        return parts[0] + "/" + parts[1]
    return parts[0]


def allowed(src, dst):
    if src == dst:
        return True
    if src in FOUNDATION_ONLY:
        return dst in FOUNDATION
    return LAYERS[dst] < LAYERS[src]


def private_elsewhere(rel, inc):
    """True when inc is a private header (*_int.h) of a directory rel is not in."""
    if not os.path.basename(inc).endswith("_int.h"):
        return False
    home = os.path.dirname(inc) + "/"
    return not (os.path.dirname(rel) + "/").startswith(home)


def check(root):
    problems = []
    src_root = os.path.join(root, "src")
    for dirpath, _, files in os.walk(src_root):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src_root)
            src = layer_of_path(rel)
            if src is None:
                problems.append(f"src/{rel}: a file directly under src/ belongs to no layer")
                continue
            if src not in LAYERS:
                problems.append(f"src/{rel}: layer '{src}' is not in scripts/check_layers.py")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if inc.startswith(EXTERNAL) or "/" not in inc:
                        continue  # same-folder includes and generated code
                    dst = layer_of_path(inc)
                    if dst not in LAYERS:
                        problems.append(f"src/{rel}:{lineno}: includes \"{inc}\" of unknown layer '{dst}'")
                    elif not allowed(src, dst):
                        problems.append(f"src/{rel}:{lineno}: {src} includes \"{inc}\" ({dst})")
                    elif private_elsewhere(rel, inc):
                        problems.append(f"src/{rel}:{lineno}: includes \"{inc}\", private to "
                                        f"src/{os.path.dirname(inc)}/")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    problems = check(args.root)
    for p in problems:
        print(p)
    print(f"layers: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
