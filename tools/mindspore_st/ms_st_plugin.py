"""pytest plugin (`-p ms_st_plugin`) that runs MindSpore's own st tests on minispore.

It plays the part of the conftest MindSpore's CI has: `import mindspore` resolves to minispore
(as `python -m minispore` does), MindSpore's marks are registered, only tests marked for a CPU
platform are kept, and each test's outcome with the first line of its failure goes, one JSON
object a line, to the file named by $MS_ST_RESULTS.
"""
import json
import os
import traceback

import numpy as np
import pytest

from minispore._mindspore_alias import install

install()

# MindSpore 2.4.1's CI ran numpy 1.x, where these aliases of the builtins still existed; the tests
# use them (np.int in parametrize lists fails a whole file's collection under numpy 2).
for _name, _value in (("int", int), ("float", float), ("complex", complex), ("object", object),
                      ("str", str), ("long", int), ("unicode", str), ("float_", np.float64),
                      ("complex_", np.complex128), ("string_", np.bytes_), ("unicode_", np.str_),
                      ("NINF", -np.inf), ("PINF", np.inf), ("NaN", np.nan), ("Inf", np.inf)):
    if _name not in np.__dict__:
        setattr(np, _name, _value)

CPU_MARKS = ("cpu_linux", "cpu_windows", "cpu_macos", "platform_x86_cpu", "platform_arm_cpu")
MARKS = CPU_MARKS + (
    "platform_ascend", "platform_ascend910b", "platform_gpu", "platform_x86_gpu_training",
    "platform_arm_ascend_training", "platform_x86_ascend_training", "platform_arm_ascend910b_training",
    "level0", "level1", "level2", "level3", "level4", "onecard", "allcards", "env_onecard",
    "env_single", "env_multi", "essential", "unessential")

_results_path = os.environ.get("MS_ST_RESULTS")


def _emit(record):
    if _results_path:
        with open(_results_path, "a") as f:
            f.write(json.dumps(record) + "\n")


def pytest_configure(config):
    for mark in MARKS:
        config.addinivalue_line("markers", f"{mark}: MindSpore CI mark")


def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        (keep if any(item.get_closest_marker(m) for m in CPU_MARKS) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _reason(excinfo):
    """(exception type, first line of its message, innermost frame of the test file)."""
    if excinfo is None:
        return None, "", ""
    value = excinfo.value
    message = str(value).strip().splitlines()
    where = ""
    for entry in reversed(traceback.extract_tb(excinfo.tb)):
        if "/tests/st/" in entry.filename:
            where = f"{os.path.basename(entry.filename)}:{entry.lineno}: {entry.line or ''}".strip()
            break
    return type(value).__name__, (message[0] if message else ""), where


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if report.skipped:
            status = "skipped"
        elif report.passed:
            status = "passed"
        else:
            status = "failed" if report.when == "call" else "error"
        exc, msg, where = _reason(call.excinfo if not report.passed and not report.skipped else None)
        if report.skipped and call.excinfo is not None:
            msg = str(call.excinfo.value).strip().splitlines()[0] if str(call.excinfo.value) else ""
        _emit({"id": item.nodeid, "status": status, "exc": exc, "message": msg[:300],
               "where": where[:200]})


def pytest_collectreport(report):
    if report.failed:
        lines = str(report.longrepr).strip().splitlines()
        # The last "E   Type: message" line of the collection error says what failed.
        err = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
        first = err[-1] if err else (lines[-1] if lines else "")
        exc, _, msg = first.partition(": ")
        _emit({"id": report.nodeid, "status": "collect_error", "exc": exc.strip() or None,
               "message": msg[:300] or first[:300], "where": ""})
