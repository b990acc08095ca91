"""Runs a list of cases through runner.py in a child interpreter (MindSpore's or minispore's),
surviving crashes: a case that kills the process is recorded as a `Crash` and the rest go on."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
RUNNER = HERE / "runner.py"


def minispore_command():
    """This interpreter running the runner with `mindspore` resolved to minispore."""
    return [sys.executable, "-m", "minispore", str(RUNNER)]


def mindspore_command(python):
    """The oracle venv's interpreter running the runner against real MindSpore."""
    return [str(python), str(RUNNER)]


def _env():
    env = dict(os.environ)
    env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    # MindSpore's INFO/WARNING logs go to stderr; keep them quiet and off the compared stdout.
    env.setdefault("GLOG_v", "3")
    # Not inside the repo, so `import mindspore` in the oracle cannot pick up a local folder.
    return env


def run_cases(command, cases, probe=False, timeout=3600):
    """Records for `cases` (dicts with id and code), in order, one per case."""
    records = []
    pending = list(cases)
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        while pending:
            cases_path = Path(tmp) / "cases.json"
            out_path = Path(tmp) / "out.jsonl"
            cases_path.write_text(json.dumps(pending))
            out_path.write_text("")
            argv = command + [str(cases_path), str(out_path)] + (["--probe"] if probe else [])
            proc = subprocess.run(argv, cwd=tmp, env=_env(), capture_output=True, text=True,
                                  timeout=timeout)
            done = [json.loads(line) for line in out_path.read_text().splitlines() if line]
            records.extend(done)
            pending = pending[len(done):]
            if pending:
                # The process died inside pending[0]: record that and carry on after it.
                tail = (proc.stderr or "").strip().splitlines()[-3:]
                crashed = pending.pop(0)
                records.append({"id": crashed["id"], "code": _first(crashed["code"]),
                                "stdout": "", "result": {
                                    "kind": "error", "type": "Crash",
                                    "message": f"exit {proc.returncode}: " + " | ".join(tail)}})
    return records


def _first(code):
    return code[0] if isinstance(code, list) else code
