"""Renders CONFORMANCE.md: per area how many recorded MindSpore cases minispore agrees with,
differs from or lacks, how many public names have no case (and whether minispore defines them),
the deliberate differences with their reasons, and every difference."""
from collections import defaultdict

from tools.conformance.absent_reasons import ABSENT_REASONS

STATUSES = ("agree", "differ", "missing")


def render(results, meta, expected, present_uncovered=frozenset()):
    """`present_uncovered`: the ids of meta["uncovered"] (names without a case) that minispore
    defines; the others count as absent, so the share agreeing is over every public name."""
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
        "A public name with no case (none of the mechanical call templates runs under MindSpore",
        "and nobody has written one in tools/conformance/cases_api*.py) is counted as present",
        "(unchecked) when minispore defines it and absent when it does not; *agree share* is",
        "agreeing cases over every public name of the area, cased or not. Absent names that",
        "MindSpore 2.7.2 runs only on Ascend are listed apart at the end, with the reason",
        "(tools/conformance/absent_reasons.py); the table still counts them as absent.",
        "",
        "| area | cases | agree | differ | missing | no case: present | no case: absent "
        "| agree share |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    uncovered = meta.get("uncovered", {})
    bare = defaultdict(lambda: [0, 0])
    for cid in uncovered:
        bare[cid.split("/", 1)[0]][0 if cid in present_uncovered else 1] += 1
    for area in sorted(set(by_area) | set(bare)):
        row = by_area[area]
        n = sum(len(row[s]) for s in STATUSES)
        counts = [len(row[s]) for s in STATUSES] + bare[area]
        for key, count in zip(STATUSES + ("present", "absent"), counts):
            total[key] += count
        lines.append(f"| {area} | {n} | " + " | ".join(map(str, counts))
                     + f" | {_share(counts[0], n + sum(bare[area]))} |")
    cased = sum(total[s] for s in STATUSES)
    lines.append(f"| **all** | {cased} | "
                 + " | ".join(str(total[k]) for k in STATUSES + ("present", "absent"))
                 + f" | {_share(total['agree'], cased + total['present'] + total['absent'])} |")
    lines += ["", f"{len(uncovered)} public names have no case yet (listed at the end, absent "
              "ones marked)."]
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
            names = ", ".join(f"`{cid.split('/', 1)[1]}`"
                              + (f" ({ABSENT_REASONS[cid]})" if cid in ABSENT_REASONS else "")
                              for cid, _, _ in row["missing"])
            lines += [f"Missing ({len(row['missing'])}): {names}", ""]
    if uncovered:
        absent = sorted(cid for cid in uncovered if cid not in present_uncovered)
        ascend = [cid for cid in absent if cid in ABSENT_REASONS]
        absent = [cid for cid in absent if cid not in ABSENT_REASONS]
        here = sorted(cid for cid in uncovered if cid in present_uncovered)
        lines += ["", "## Public names without a case", "",
                  f"Absent from minispore, left out on purpose ({len(ascend)}): "
                  + "; ".join(f"`{cid}`: {ABSENT_REASONS[cid]}" for cid in ascend), "",
                  f"Absent from minispore ({len(absent)}): "
                  + ", ".join(f"`{cid}`" for cid in absent), "",
                  f"Defined by minispore, unchecked ({len(here)}): "
                  + ", ".join(f"`{cid}`" for cid in here)]
    return "\n".join(lines).rstrip() + "\n"


def _share(agree, names):
    return f"{100 * agree / names:.0f}%" if names else "–"


def _clip(text, n):
    text = text.replace("\n", " ").replace("|", "\\|").replace("`", "'")
    return text if len(text) <= n else text[:n - 1] + "…"
