"""Shrinks a failing difftest case: fewer table rows, simpler query nodes, same failure.

ROLE
  run_diff.py calls reduce() on each mismatch before it writes the reproducer.

INTERFACE
  reduce(check, tables, case, sig, desc) -> (tables, case, desc)
    check([(tables, [cases])]) -> per pair, per case, (problems, known hits, n queries)
    (run_diff.check_segments); a candidate is kept when it still fails with signature sig.

NOTES: greedy: each round tries every single-node replacement (the node's `alts` from gen.py,
bigger nodes first) in one batch, then row deletions (halves, then single rows) table by
table, and keeps the first candidate that still fails the same way, until nothing shrinks or
the time budget (60 s) is spent.
"""

import time

BUDGET_S = 60


def nodes(root):
    """Preorder list of the descendants of root (root itself excluded: meta cases index it)."""
    out = []
    stack = [p for p in reversed(root.parts) if not isinstance(p, str)]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(p for p in reversed(n.parts) if not isinstance(p, str))
    return out


def replace(node, target, alt):
    if node is target:
        return alt
    changed = False
    parts = []
    for p in node.parts:
        if isinstance(p, str):
            parts.append(p)
            continue
        q = replace(p, target, alt)
        changed |= q is not p
        parts.append(q)
    if not changed:
        return node
    out = type(node)(parts, node.alts)
    return out


def fails(result, sig):
    problems = result[0]
    for s, d in problems:
        if s == sig:
            return d
    return None


def reduce(check, tables, case, sig, desc):
    start = time.monotonic()
    while time.monotonic() - start < BUDGET_S:
        # 1. query nodes
        text = " | ".join(case.queries())
        seen = {text}
        cands = []
        for n in nodes(case.root):
            for alt in n.alts:
                c = case.replaced(replace(case.root, n, alt))
                t = " | ".join(c.queries())
                if t not in seen:
                    seen.add(t)
                    cands.append(c)
        found = None
        for i in range(0, len(cands), 200):
            chunk = cands[i:i + 200]
            res = check([(tables, chunk)])[0]
            for c, r in zip(chunk, res):
                d = fails(r, sig)
                if d:
                    found = (c, d)
                    break
            if found:
                break
        if found:
            case, desc = found
            continue
        # 2. table rows
        pairs = []
        for ti, t in enumerate(tables):
            rows = t.rows
            options = []
            if len(rows) > 1:
                h = len(rows) // 2
                options += [rows[:h], rows[h:]]
            options += [rows[:j] + rows[j + 1:] for j in range(len(rows))]
            for o in options:
                nt = list(tables)
                nt[ti] = t.with_rows(o)
                pairs.append((nt, [case]))
        found = None
        for i in range(0, len(pairs), 60):
            chunk = pairs[i:i + 60]
            res = check(chunk)
            for (nt, _), r in zip(chunk, res):
                d = fails(r[0], sig)
                if d:
                    found = (nt, d)
                    break
            if found:
                break
        if found:
            tables, desc = found
            continue
        break
    # tables the query does not name are left out
    text = " ".join(case.queries())
    used = [t for t in tables if t.name in text.replace("(", " ").replace(")", " ").split()]
    return used or tables, case, desc
