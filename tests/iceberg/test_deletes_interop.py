"""Interop tests of SQE's Iceberg delete code (src/iceberg/roaring.c, puffin.c, delete_write.c)
against independent implementations: pyroaring's BitMap64 (CRoaring) for the 64-bit portable
Roaring format both ways, pyiceberg's Puffin / deletion-vector reader for the DV files SQE
writes, a DV Puffin file assembled here from the spec (pyroaring bitmaps, zlib CRC, JSON
footer, LZ4 footer compression) for SQE's reader, and pyarrow for SQE's position delete files
(field ids, sort order, values).

Run through tests/iceberg/run_deletes_tests.sh (sets DELETES_DRIVER).
"""
import json
import os
import random
import struct
import subprocess
import zlib

import lz4.frame
import pyarrow.parquet as pq
import pytest
from pyroaring import BitMap, BitMap64

DRIVER = os.environ.get("DELETES_DRIVER")
pytestmark = pytest.mark.skipif(not DRIVER, reason="DELETES_DRIVER not set (use run_deletes_tests.sh)")


def run(*args, stdin=None):
    p = subprocess.run([DRIVER, *args], input=stdin, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def random_positions(seed, n_sparse=2000, dense=True):
    r = random.Random(seed)
    s = set(r.randrange(0, 3_000_000) for _ in range(n_sparse))
    s |= set((r.randrange(1, 6) << 32) + r.randrange(0, 100_000) for _ in range(500))
    if dense:
        base = r.randrange(0, 50) * 65536
        s |= set(range(base, base + 9000))               # a run / bitmap container
        s |= set(base + 70000 + 2 * i for i in range(6000))  # a bitmap container
    s.add((1 << 63) - 1)
    return sorted(s)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("optimize", [False, True])
def test_pyroaring_to_sqe(tmp_path, seed, optimize):
    pos = random_positions(seed)
    bm = BitMap64(pos)
    if optimize:
        bm.run_optimize()
    f = tmp_path / "bm.bin"
    f.write_bytes(bm.serialize())
    got = [int(x) for x in run("roaring-read", str(f)).split()]
    assert got == pos


@pytest.mark.parametrize("seed", [4, 5])
def test_sqe_to_pyroaring(tmp_path, seed):
    pos = random_positions(seed)
    f = tmp_path / "bm.bin"
    run("roaring-write", str(f), stdin="\n".join(map(str, pos)) + "\n")
    data = f.read_bytes()
    bm = BitMap64.deserialize(data)
    assert list(bm) == pos
    # SQE writes run containers where smaller: the dense range makes the output compact
    assert len(data) < 2 * len(pos)


def test_sqe_rejects_corrupt_pyroaring(tmp_path):
    data = bytearray(BitMap64(random_positions(7)).serialize())
    f = tmp_path / "bad.bin"
    for cut in (0, 7, 12, len(data) // 2, len(data) - 1):
        f.write_bytes(bytes(data[:cut]))
        p = subprocess.run([DRIVER, "roaring-read", str(f)], capture_output=True, text=True)
        assert p.returncode == 1 and "Invalid Roaring bitmap" in p.stderr, (cut, p.stderr)


def write_positions(path, positions):
    path.write_text("\n".join(map(str, positions)) + "\n")


def test_sqe_dv_read_by_pyiceberg(tmp_path):
    from pyiceberg.table.puffin import PuffinFile
    from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file

    sets = {
        "s3://bucket/t/data/a.parquet": random_positions(11, dense=False)[:-1],
        "/local/t/data/b.parquet": list(range(0, 70000, 1)) + [1 << 33],
        "/local/t/data/c.parquet": [5],
    }
    args = []
    for i, (path, p) in enumerate(sets.items()):
        pf = tmp_path / f"p{i}.txt"
        write_positions(pf, p)
        args.append(f"{path}={pf}")
    out = tmp_path / "dv.puffin"
    lines = run("dv-write", str(out), *args).strip().split("\n")
    data = out.read_bytes()
    puffin = PuffinFile(data)
    dvs = deletion_vectors_from_puffin_file(puffin)
    assert len(dvs) == 3
    for dv, line in zip(dvs, lines):
        ref, off, size, card, fsize = line.split()
        assert dv.referenced_data_file == ref
        got = [int(x) for x in dv.to_vector().to_pylist()]
        assert got == sorted(sets[ref])
        assert int(card) == len(sets[ref])
        assert int(fsize) == len(data)
    for blob, line in zip(puffin.footer.blobs, lines):
        ref, off, size, card, _ = line.split()
        assert blob.type == "deletion-vector-v1"
        assert blob.offset == int(off) and blob.length == int(size)
        assert blob.properties["cardinality"] == card
        assert blob.properties["referenced-data-file"] == ref
        assert blob.snapshot_id == -1 and blob.sequence_number == -1
        assert blob.fields == [2147483545]
        assert blob.compression_codec is None


def spec_dv_blob(positions):
    """A deletion-vector-v1 blob built from the Puffin spec with pyroaring's 32-bit bitmaps,
    including an empty bitmap for every key below the largest (as Iceberg Java writes)."""
    by_key = {}
    for p in positions:
        by_key.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    keys = range(max(by_key) + 1) if by_key else []
    vec = struct.pack("<Q", len(keys))
    for k in keys:
        bm = BitMap(by_key.get(k, []))
        bm.run_optimize()
        vec += struct.pack("<I", k) + bm.serialize()
    body = b"\xD1\xD3\x39\x64" + vec
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


@pytest.mark.parametrize("compress_footer", [False, True])
def test_spec_dv_read_by_sqe(tmp_path, compress_footer):
    sets = {"/d/x.parquet": [0, 1, 2, 3, (2 << 32) + 9], "/d/y.parquet": list(range(100, 20000, 3))}
    blobs, content = [], b"PFA1"
    for path, p in sets.items():
        blob = spec_dv_blob(p)
        blobs.append({"type": "deletion-vector-v1", "fields": [2147483545], "snapshot-id": -1,
                      "sequence-number": -1, "offset": len(content), "length": len(blob),
                      "properties": {"referenced-data-file": path, "cardinality": str(len(p))}})
        content += blob
    footer = json.dumps({"blobs": blobs, "properties": {"created-by": "test"}}).encode()
    if compress_footer:
        footer = lz4.frame.compress(footer, store_size=True)
    content += b"PFA1" + footer + struct.pack("<ii", len(footer), 1 if compress_footer else 0) + b"PFA1"
    f = tmp_path / "spec.puffin"
    f.write_bytes(content)
    out = run("dv-read", str(f)).strip().split("\n")
    i = 0
    for path, p in sets.items():
        ref, card, n = out[i].split("\t")
        assert (ref, int(card), int(n)) == (path, len(p), len(p))
        assert [int(x) for x in out[i + 1:i + 1 + len(p)]] == sorted(p)
        i += 1 + len(p)
    # a flipped byte inside a blob: the CRC catches it
    bad = bytearray(content)
    bad[blobs[1]["offset"] + 20] ^= 0x10
    f.write_bytes(bytes(bad))
    p = subprocess.run([DRIVER, "dv-read", str(f)], capture_output=True, text=True)
    assert p.returncode == 1 and "CRC mismatch" in p.stderr


def test_position_delete_file_read_by_pyarrow(tmp_path):
    sets = {"/w/b.parquet": [9, 1, 5], "/w/a.parquet": list(range(3000)), "/w/c.parquet": [1 << 40]}
    args = []
    for i, (path, p) in enumerate(sets.items()):
        pf = tmp_path / f"p{i}.txt"
        write_positions(pf, p)
        args.append(f"{path}={pf}")
    out = tmp_path / "pos.parquet"
    count, ref = run("posdel-write", str(out), *args).split()
    assert int(count) == sum(len(v) for v in sets.values()) and ref == "-"
    t = pq.read_table(out)
    assert t.column_names == ["file_path", "pos"]
    ids = [int(t.schema.field(c).metadata[b"PARQUET:field_id"]) for c in t.column_names]
    assert ids == [2147483546, 2147483545]
    rows = list(zip(t.column("file_path").to_pylist(), t.column("pos").to_pylist()))
    expect = sorted((path, p) for path, v in sets.items() for p in v)
    assert rows == expect
    # one data file: referenced_data_file is reported
    out1 = tmp_path / "pos1.parquet"
    count, ref = run("posdel-write", str(out1), args[0]).split()
    assert (int(count), ref) == (3, "/w/b.parquet")
