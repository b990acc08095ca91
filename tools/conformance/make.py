"""`make conformance`: record the corpus under real MindSpore, replay it under minispore, compare,
and write CONFORMANCE.md.

    python -m tools.conformance.make record --oracle .venv-ms/bin/python
    python -m tools.conformance.make check [--update-expected]

`record` enumerates MindSpore's public API in the oracle venv, probes the mechanical candidates
there, and writes tests/conformance/recorded/<area>.json: per case the snippet MindSpore ran and
what it returned, printed or raised. `check` runs every recorded snippet under minispore and
writes the report; --update-expected rewrites tests/conformance/expected.json (the cases that do
not agree yet, which the test suite holds minispore to) keeping the reasons written there.
"""
import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from tools.conformance import cases_manual, driver, generate, presence, report
from tools.conformance.compare import compare

ROOT = Path(__file__).resolve().parent.parent.parent
RECORDED = ROOT / "tests" / "conformance" / "recorded"
EXPECTED = ROOT / "tests" / "conformance" / "expected.json"


def load_recorded():
    """{area: [record, ...]} from the committed recordings."""
    meta = json.loads((RECORDED / "_meta.json").read_text())
    return {area: json.loads((RECORDED / f"{area}.json").read_text()) for area in meta["areas"]}, meta


def record(oracle, areas=None):
    api = json.loads(subprocess.run([str(oracle), str(Path(__file__).with_name("enumerate_api.py"))],
                                    capture_output=True, text=True, check=True,
                                    env=driver._env(), cwd="/").stdout)
    by_area = defaultdict(list)
    hand_written = cases_manual.manual_cases()
    written = {c["id"] for c in hand_written}
    # A hand-written case replaces the mechanical one of the same name.
    for case in hand_written + [c for c in generate.all_cases(api) if c["id"] not in written]:
        by_area[case["area"]].append(case)
    RECORDED.mkdir(parents=True, exist_ok=True)
    uncovered = {}
    if areas:   # re-record some areas only: keep what the others left uncovered
        old = json.loads((RECORDED / "_meta.json").read_text())["uncovered"]
        uncovered = {cid: why for cid, why in old.items() if cid.split("/", 1)[0] not in areas}
    for area, cases in by_area.items():
        if areas and area not in areas:
            continue
        print(f"recording {area}: {len(cases)} cases", flush=True)
        records = driver.run_cases(driver.mindspore_command(oracle), cases, probe=True)
        manual = {c["id"] for c in cases if len(c["code"]) == 1}
        kept = []
        for rec in records:
            # A mechanical case none of whose calls MindSpore accepts tests nothing: drop it.
            if rec["id"] in manual or rec["result"]["kind"] != "error":
                kept.append(rec)
            else:
                uncovered[rec["id"]] = f"{rec['result']['type']}: {rec['result']['message'][:100]}"
        (RECORDED / f"{area}.json").write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n")
    (RECORDED / "_meta.json").write_text(json.dumps(
        {"mindspore": api["version"], "areas": sorted(by_area), "uncovered": uncovered},
        indent=1, sort_keys=True) + "\n")


def replay(areas=None):
    """{case id: (status, detail, record)} for minispore against the recordings."""
    recorded, meta = load_recorded()
    out = {}
    for area, records in recorded.items():
        if areas and area not in areas:
            continue
        cases = [{"id": r["id"], "code": [r["code"]]} for r in records]
        mine = driver.run_cases(driver.minispore_command(), cases)
        for exp, act in zip(records, mine):
            status, detail = compare(exp, act)
            out[exp["id"]] = (status, detail, exp)
    return out, meta


def check(update_expected):
    results, meta = replay()
    expected = json.loads(EXPECTED.read_text()) if EXPECTED.exists() else {}
    if update_expected:
        new = {cid: {"status": s, **({"reason": expected[cid]["reason"]}
                                     if "reason" in expected.get(cid, {}) else {})}
               for cid, (s, _, _) in sorted(results.items()) if s != "agree"}
        # One case a line, so a review reads the changed statuses straight off the diff.
        EXPECTED.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}"
                                                for k, v in new.items()) + "\n}\n")
        expected = new
    here = presence.present(meta.get("uncovered", {}))
    (ROOT / "CONFORMANCE.md").write_text(report.render(results, meta, expected, here)
                                         + _mindspore_st_section())
    counts = defaultdict(int)
    for status, _, _ in results.values():
        counts[status] += 1
    print(dict(counts))


def _mindspore_st_section():
    """MindSpore's own st/ops/cpu tests on minispore, from the results `make mindspore-st`
    committed (tests/conformance/mindspore_st.json): totals and every failure by cause."""
    from tools.mindspore_st import run as st
    from tools.mindspore_st.summary import render_markdown
    st_meta, records = st.load()
    if not st_meta:
        return ""
    return "\n" + render_markdown(st_meta, list(records.values()), heading="##")


def main(argv=None):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--oracle", default=str(ROOT / ".venv-ms" / "bin" / "python"))
    rec.add_argument("--areas", nargs="*", help="re-record only these areas")
    chk = sub.add_parser("check")
    chk.add_argument("--update-expected", action="store_true")
    args = parser.parse_args(argv)
    if args.cmd == "record":
        record(args.oracle, args.areas)
    else:
        check(args.update_expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
