#!/usr/bin/env python3
"""Checks src/common/errcodes.def against the error codes of the cached Trino 476.

Every name of errcodes.def that Trino's io.trino.spi.StandardErrorCode also has must carry
Trino's numeric code and error type (clients key on them, and the oracle maps Trino's errorName to
a SQLSTATE through this table), and no two names may share a code unless they are SQE's own
aliases listed in SQE_ONLY. The codes come from the SPI jar of the cached server, read by a
one-file Java program run on the JDK trino_server.py found (java's source launcher, so the JDK
needs its compiler module; without it the check is skipped with that reason).
Prints "N passed, N failed" (one check per errcodes.def entry) and exits 1 on a failure.
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import trino_server

ROOT = Path(__file__).resolve().parents[2]
# SQE names that are not Trino's: they may reuse a Trino code (the nearest error).
SQE_ONLY = {"UNAUTHENTICATED", "INVALID_FILE", "EXCEEDED_MEMORY_LIMIT", "OUT_OF_MEMORY",
            "IO_ERROR", "COMMIT_CONFLICT", "COMMIT_STATE_UNKNOWN", "EXCEEDED_RESULT_ROWS_LIMIT"}
LISTER = """
public class ListCodes {
    public static void main(String[] args) {
        for (io.trino.spi.StandardErrorCode c : io.trino.spi.StandardErrorCode.values())
            System.out.println(c.name() + " " + c.toErrorCode().getCode() + " "
                               + c.toErrorCode().getType());
    }
}
"""


def trino_codes():
    java = trino_server.find_java()
    jars = list((trino_server.server_dir() / "lib").glob("io.trino_trino-spi-*.jar"))
    if java is None or not jars:
        return None, "the cached Trino or its JDK is missing"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "ListCodes.java"
        src.write_text(LISTER)
        p = subprocess.run([str(java), "-cp", str(jars[0]), str(src)], capture_output=True,
                           text=True)
    if p.returncode != 0:
        if "jdk.compiler" in p.stderr:
            return None, "the JDK has no compiler module for java's source launcher"
        raise SystemExit(f"check_errcodes: listing Trino's codes failed:\n{p.stderr}")
    codes = {}
    for line in p.stdout.split("\n"):
        if line.strip():
            name, code, kind = line.split()
            codes[name] = (int(code), kind)
    return codes, None


def sqe_codes():
    pattern = re.compile(r'X\((\w+),\s*"(\w+)",\s*(\w+),\s*(\d+),')
    return [(m[1], m[3], int(m[4]))
            for m in pattern.finditer((ROOT / "src/common/errcodes.def").read_text())]


def main():
    codes, why = trino_codes()
    if codes is None:
        print(f"check_errcodes: skipped: {why}")
        return 0
    passed = failed = 0
    by_code = {}
    for name, kind, code in sqe_codes():
        problem = None
        if name in codes and codes[name] != (code, kind):
            problem = f"Trino 476 has {codes[name][1]} {codes[name][0]}, errcodes.def {kind} {code}"
        elif name not in codes and name not in SQE_ONLY:
            problem = "not a Trino error name: add it to SQE_ONLY if it is SQE's own"
        elif name not in SQE_ONLY and code in by_code:
            problem = f"code {code} is also {by_code[code]}"
        by_code.setdefault(code, name)
        if problem:
            failed += 1
            print(f"FAIL errcodes.def {name}: {problem}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
