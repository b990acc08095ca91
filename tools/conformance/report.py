"""Renders CONFORMANCE.md: per area how many recorded MindSpore cases minispore agrees with,
differs from or lacks, the deliberate differences with their reasons, and every difference."""
from collections import defaultdict

STATUSES = ("agree", "differ", "missing")


def render(results, meta, expected):
    by_area = defaultdict(lambda: defaultdict(list))
    for cid, (status, detail, rec) in sorted(results.items()):
        by_area[cid.split("/", 1)[0]][status].append((cid, detail, rec))
    total = defaultdict(int)
    lines = [
        f"# Conformance with MindSpore {meta['mindspore']}",
        "",
        "Written by `make conformance` (tools/conformance): every case is a small snippet run under",
        "real MindSpore (CPU wheel, `.venv-ms`) and under minispore (`python -m minispore`), comparing",
        "printed text, result types, dtypes, shapes, values (rtol 1e-4, atol 1e-5) and error types.",
        "The MindSpore side is recorded in tests/conformance/recorded/; tests/conformance replays it",
        "in `make test` and holds every case to the status listed in tests/conformance/expected.json",
        "(absent = agree). Random ops compare dtype and shape only.",
        "",
        "| area | cases | agree | differ | missing |",
        "|---|---:|---:|---:|---:|",
    ]
    for area in sorted(by_area):
        row = by_area[area]
        n = sum(len(row[s]) for s in STATUSES)
        for s in STATUSES:
            total[s] += len(row[s])
        lines.append(f"| {area} | {n} | " + " | ".join(str(len(row[s])) for s in STATUSES) + " |")
    lines.append(f"| **all** | {sum(total.values())} | "
                 + " | ".join(str(total[s]) for s in STATUSES) + " |")
    uncovered = meta.get("uncovered", {})
    lines += ["", f"{len(uncovered)} public names have no case yet: none of the mechanical call "
              "templates runs under MindSpore (listed at the end)."]
    deliberate = {cid: e["reason"] for cid, e in expected.items() if e.get("reason")}
    lines += ["", "## Deliberate differences", ""]
    lines += [f"- `{cid}`: {reason}" for cid, reason in sorted(deliberate.items())] or ["None."]
    for area in sorted(by_area):
        row = by_area[area]
        if not row["differ"] and not row["missing"]:
            continue
        lines += ["", f"## {area}", ""]
        if row["differ"]:
            lines += [f"Differ ({len(row['differ'])}):", ""]
            for cid, detail, rec in row["differ"]:
                call = rec["code"].strip().splitlines()[-1]
                lines.append(f"- `{cid.split('/', 1)[1]}`: `{_clip(call, 90)}` — {_clip(detail, 160)}")
            lines.append("")
        if row["missing"]:
            names = ", ".join(f"`{cid.split('/', 1)[1]}`" for cid, _, _ in row["missing"])
            lines += [f"Missing ({len(row['missing'])}): {names}", ""]
    if uncovered:
        lines += ["", "## Public names without a case", "",
                  ", ".join(f"`{cid}`" for cid in sorted(uncovered))]
    return "\n".join(lines).rstrip() + "\n"


def _clip(text, n):
    text = text.replace("\n", " ").replace("|", "\\|").replace("`", "'")
    return text if len(text) <= n else text[:n - 1] + "…"
