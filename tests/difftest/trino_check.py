#!/usr/bin/env python3
"""Runs a difftest reproducer (.sql, one statement per line ending in ';') on a running Trino.

ROLE
  A manual aid for judging a mismatch: what does Trino 476, the semantics SQE promises, answer?
  Start Trino once (tests/trino_oracle/trino_server.py run -- CMD {url}), then
    .cache/venv/bin/python tests/difftest/trino_check.py URL FILE.sql...
  Each CREATE TABLE drops the table first (schema memory.default); prints each statement's
  rows or Trino's error name and message.

INTERFACE: command line only. NOTES: not part of any stage (Trino takes ~100 s to start).
"""

import json
import sys
import urllib.request


def request(url, body=None):
    req = urllib.request.Request(url, data=body.encode() if body is not None else None,
                                 headers={"X-Trino-User": "difftest", "X-Trino-Catalog": "memory",
                                          "X-Trino-Schema": "default"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read().decode())


def run(base, sql):
    doc = request(base + "/v1/statement", sql)
    rows = []
    while True:
        if "error" in doc:
            e = doc["error"]
            return f"ERROR {e.get('errorName')}: {e.get('message')}"
        rows += doc.get("data", [])
        if not doc.get("nextUri"):
            return rows
        doc = request(doc["nextUri"])


def main():
    base = sys.argv[1].rstrip("/")
    for path in sys.argv[2:]:
        print(f"== {path}")
        text = "\n".join(line for line in open(path) if not line.startswith("--"))
        for st in (s.strip() for s in text.split(";")):
            if not st:
                continue
            if st.upper().startswith("CREATE TABLE "):
                run(base, "DROP TABLE IF EXISTS " + st.split()[2])
            res = run(base, st)
            if st.upper().startswith(("CREATE", "INSERT", "DROP")) and not isinstance(res, str):
                continue
            print(f"{st}\n  -> {res if isinstance(res, str) else sorted(res, key=str)}")


if __name__ == "__main__":
    main()
