"""On-disk views of an Iceberg table for the robustness tests (through pyiceberg)."""
from __future__ import annotations

from pathlib import Path


def local(path: str) -> Path:
    return Path(path.removeprefix("file://").removeprefix("file:"))


def referenced_files(table):
    """Every data and delete file referenced by any snapshot of the table (local paths)."""
    out = set()
    for snap in table.metadata.snapshots:
        for m in snap.manifests(table.io):
            for e in m.fetch_manifest_entry(table.io, discard_deleted=False):
                out.add(local(e.data_file.file_path).resolve())
    return out


def files_on_disk(table):
    """Every non-hidden file under the table's data/ folder."""
    root = local(table.metadata.location) / "data"
    if not root.exists():
        return set()
    return {p.resolve() for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")}


def snapshot_chain(table):
    """Snapshots from the current one back to the root, following parent ids."""
    by_id = {s.snapshot_id: s for s in table.metadata.snapshots}
    chain = []
    cur = table.current_snapshot()
    while cur is not None:
        chain.append(cur)
        cur = by_id.get(cur.parent_snapshot_id) if cur.parent_snapshot_id is not None else None
    return chain[::-1]
