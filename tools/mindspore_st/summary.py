"""Renders the results of MindSpore's st tests on minispore: totals, then every failure grouped by
cause, causes sorted by how many tests each breaks. The same text is build/mindspore_st/summary.md
and the "MindSpore's own CPU tests" section of CONFORMANCE.md."""
import re
from collections import defaultdict

from tools.mindspore_st.causes import why

KIND_TITLES = {"missing": "missing in minispore", "differs": "behaves differently",
               "needs MindSpore internals": "needs MindSpore internals",
               "deliberate difference": "deliberate difference"}


def rate(totals):
    ran = sum(totals.get(s, 0) for s in ("passed", "failed", "error"))
    return totals.get("passed", 0), ran


def render_markdown(meta, records, heading="#"):
    totals = meta.get("totals", {})
    passed, ran = rate(totals)
    pct = 100.0 * passed / ran if ran else 0.0
    lines = [
        f"{heading} MindSpore's own CPU operator tests on minispore",
        "",
        f"MindSpore's tests/st/ops/cpu ({meta.get('source', '')}, {meta.get('files', '?')} files), "
        "run as shipped by `make mindspore-st MS_ST_DIR=...` (tools/mindspore_st): `import mindspore` "
        "is minispore, only CPU-marked tests are kept, each file runs in its own process. A file that "
        "cannot be collected counts each CPU test written in it as an error.",
        "",
        f"**{passed} of {ran} pass ({pct:.1f}%)**; "
        + ", ".join(f"{k} {v}" for k, v in sorted(totals.items())) + ".",
        "",
    ]
    by_cause = defaultdict(list)
    for r in records:
        if r["status"] in ("failed", "error"):
            by_cause[(r.get("kind", "differs"), r.get("cause", "?"))].append(r)
    if not by_cause:
        return "\n".join(lines + ["No failures."]) + "\n"
    kinds = defaultdict(int)
    for (kind, _), recs in by_cause.items():
        kinds[kind] += len(recs)
    lines += ["| kind | failing tests |", "|---|---:|"]
    lines += [f"| {KIND_TITLES.get(k, k)} | {n} |" for k, n in sorted(kinds.items(), key=lambda x: -x[1])]
    lines += ["", "| tests | kind | cause |", "|---:|---|---|"]
    ordered = sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0][1]))
    for (kind, cause), recs in ordered:
        lines.append(f"| {len(recs)} | {KIND_TITLES.get(kind, kind)} | {_md(cause)} |")
    lines += ["", f"{heading}# Every failing test by cause", ""]
    for (kind, cause), recs in ordered:
        note = why(kind)
        lines.append(f"- **{_md(cause)}** ({len(recs)}, {KIND_TITLES.get(kind, kind)}"
                     + (f": {note}" if note else "") + "): " + _tests(recs))
    return "\n".join(lines).rstrip() + "\n"


def _tests(recs):
    """test_x_op.py: test_a ×3, test_b; ... (parametrized ids folded into a count)."""
    by_file = defaultdict(lambda: defaultdict(int))
    for r in recs:
        path, _, name = r["id"].partition("::")
        by_file[path.rsplit("/", 1)[-1]][re.sub(r"[\[#].*$", "", name)] += 1
    parts = []
    for f in sorted(by_file):
        names = ", ".join(n + (f" ×{c}" if c > 1 else "") for n, c in sorted(by_file[f].items()))
        parts.append(f"`{f}` ({_md(names)})")
    return "; ".join(parts)


def _md(text):
    return text.replace("|", "\\|").replace("`", "'").replace("<", "&lt;").replace("*", "\\*")
