"""Runs MindSpore's own CPU operator tests (tests/st/ops/cpu of a MindSpore checkout) on minispore.

    python -m tools.mindspore_st.run MS_ST_DIR [--files test_a.py ...] [--timeout 600]

MS_ST_DIR holds MindSpore's `tests/` (its st/ops/cpu files, tests/mark_utils.py and the helpers
they import). Each file runs under pytest in a subprocess of its own (niceness 10, with a
timeout) with ms_st_plugin: `import mindspore` is minispore and only CPU-marked tests are kept.
Writes tests/conformance/mindspore_st.json (one test a line: status, cause, first line of the
failure; CONFORMANCE.md's section is rendered from it) and build/mindspore_st/summary.md.
With --files the named files are re-run and their entries replaced, the others kept.
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.mindspore_st.causes import classify
from tools.mindspore_st.summary import render_markdown

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "tests" / "conformance" / "mindspore_st.json"
SUMMARY = ROOT / "build" / "mindspore_st" / "summary.md"
SUBDIR = Path("tests") / "st" / "ops" / "cpu"
CPU_MARKS = ("cpu_linux", "cpu_windows", "cpu_macos", "platform_x86_cpu", "platform_arm_cpu")


def static_count(path):
    """CPU-marked tests in a file as written (parametrize lists multiplied out where literal):
    the tests a file that cannot be collected or crashes stands for."""
    try:
        tree = ast.parse(path.read_text())
    except SyntaxError:
        return 1
    total = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"):
            continue
        src = " ".join(ast.unparse(d) for d in node.decorator_list)
        if not any(m in src for m in CPU_MARKS):
            continue
        n = 1
        for d in node.decorator_list:
            if (isinstance(d, ast.Call) and ast.unparse(d.func).endswith("parametrize")
                    and len(d.args) >= 2 and isinstance(d.args[1], (ast.List, ast.Tuple))):
                n *= max(1, len(d.args[1].elts))
        total += n
    return max(total, 1)


def run_file(ms_root, path, timeout):
    """[record, ...] for one test file."""
    rel = path.relative_to(ms_root).as_posix()
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
        env = dict(os.environ, MS_ST_RESULTS=out.name,
                   PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), str(ROOT)]))
        env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
        cmd = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-p", "ms_st_plugin",
               "-p", "no:cacheprovider", "--rootdir", str(ms_root), rel]
        start = time.time()
        try:
            proc = subprocess.run(cmd, cwd=ms_root, env=env, capture_output=True, text=True,
                                  timeout=timeout)
            rc, tail = proc.returncode, (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        except subprocess.TimeoutExpired:
            rc, tail = "timeout", []
        seconds = time.time() - start
        records = [json.loads(line) for line in Path(out.name).read_text().splitlines() if line]
    # Collection errors name the file; a file the run never finished leaves its unreported tests.
    reported = [r for r in records if r["status"] != "collect_error"]
    missing = static_count(path) - len(reported)
    if any(r["status"] == "collect_error" for r in records):
        err = next(r for r in records if r["status"] == "collect_error")
        reported += [dict(err, id=f"{rel}::<collection>#{i}", status="error") for i in range(missing)]
    elif rc == "timeout" or (rc not in (0, 1, 5) and missing > 0):
        exc = "Timeout" if rc == "timeout" else "Crash"
        msg = f"no result after {timeout} s" if rc == "timeout" else f"exit {rc}: {' '.join(tail)}"
        reported += [{"id": f"{rel}::<unfinished>#{i}", "status": "error", "exc": exc,
                      "message": msg[:300], "where": ""} for i in range(max(missing, 1))]
    print(f"{rel}: {_counts(reported)} in {seconds:.0f} s", flush=True)
    return reported


def _counts(records):
    out = {}
    for r in records:
        out[r["status"]] = out.get(r["status"], 0) + 1
    return out


def load():
    if not RESULTS.exists():
        return {}, {}
    lines = RESULTS.read_text().splitlines()
    meta = json.loads(lines[0])
    return meta, {r["id"]: r for r in map(json.loads, lines[1:])}


def save(meta, by_id):
    recs = sorted(by_id.values(), key=lambda r: r["id"])
    for r in recs:   # classified afresh, so a sharper causes.py applies without a re-run
        if r["status"] in ("failed", "error"):
            r["kind"], r["cause"] = classify(r.get("exc"), r.get("message"))
    meta = dict(meta, totals=_counts(recs))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    keep = ("id", "status", "kind", "cause", "exc", "message", "where")
    # One test a line, so a re-run's diff reads test by test.
    RESULTS.write_text("\n".join([json.dumps(meta, sort_keys=True)] + [
        json.dumps({k: r[k] for k in keep if r.get(k) is not None}) for r in recs]) + "\n")
    SUMMARY.parent.mkdir(parents=True, exist_ok=True)
    SUMMARY.write_text(render_markdown(meta, recs))
    return meta


def find_root(path):
    path = Path(path).resolve()
    for cand in [path, *path.parents]:
        if (cand / "tests" / "mark_utils.py").exists():
            return cand
    sys.exit(f"mindspore_st: no tests/mark_utils.py in {path} or above it: give the folder that "
             f"holds MindSpore's tests/ (tests/st/ops/cpu, tests/mark_utils.py, tests/st/utils)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ms_st_dir")
    parser.add_argument("--files", nargs="*", help="re-run only these files (names in st/ops/cpu)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per file")
    parser.add_argument("--regroup", action="store_true",
                        help="run nothing: re-classify the recorded failures and rewrite the summary")
    parser.add_argument("--source", default="", help="where the files came from (tag, commit)")
    args = parser.parse_args(argv)
    ms_root = find_root(args.ms_st_dir)
    files = sorted((ms_root / SUBDIR).glob("test_*.py"))
    if args.files:
        wanted = {Path(f).name for f in args.files}
        files = [f for f in files if f.name in wanted]
    meta, by_id = load() if args.files or args.regroup else ({}, {})
    if args.regroup:
        files = []
    if args.source or not meta.get("source"):
        meta["source"] = args.source or str(ms_root)
    meta["files"] = len(list((ms_root / SUBDIR).glob("test_*.py")))
    for path in files:
        rel = path.relative_to(ms_root).as_posix()
        by_id = {k: v for k, v in by_id.items() if not k.startswith(rel + "::")}
        for rec in run_file(ms_root, path, args.timeout):
            by_id[rec["id"]] = rec
        save(meta, by_id)   # after every file, so an interrupted run keeps what it measured
    meta = save(meta, by_id)
    print(json.dumps(meta["totals"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
