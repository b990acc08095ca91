"""minispore against MindSpore 2.7.2's recorded outputs (tests/conformance/recorded, written by
`make conformance`; no MindSpore needed here).

Every case must keep the status tests/conformance/expected.json lists for it (absent: agree).
So a case that agreed and now differs fails, and so does a listed difference or missing API
that got fixed without its line being removed from expected.json: no silent passes either way.
The whole corpus replays in one minispore process (one start-up, about 15 s)."""
import json
from pathlib import Path

import pytest

from tools.conformance import driver
from tools.conformance.compare import compare

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded"


def _recorded():
    meta = json.loads((RECORDED / "_meta.json").read_text())
    records = []
    for area in meta["areas"]:
        records += json.loads((RECORDED / f"{area}.json").read_text())
    return records


@pytest.fixture(scope="module")
def outcomes():
    records = _recorded()
    mine = driver.run_cases(driver.minispore_command(),
                            [{"id": r["id"], "code": [r["code"]]} for r in records])
    assert [m["id"] for m in mine] == [r["id"] for r in records]
    return {r["id"]: compare(r, m) for r, m in zip(records, mine)}


def test_every_case_has_its_expected_status(outcomes):
    expected = json.loads((HERE / "expected.json").read_text())
    unknown = sorted(set(expected) - set(outcomes))
    assert not unknown, f"expected.json lists cases that are not recorded: {unknown[:10]}"
    wrong = []
    for cid, (status, detail) in sorted(outcomes.items()):
        want = expected.get(cid, {}).get("status", "agree")
        if status != want:
            wrong.append(f"{cid}: {status} (expected {want}) {detail}")
    assert not wrong, ("cases whose status changed (fix the regression, or update "
                       "tests/conformance/expected.json with `make conformance-accept`):\n"
                       + "\n".join(wrong))


def test_deliberate_differences_say_why():
    expected = json.loads((HERE / "expected.json").read_text())
    for cid, entry in expected.items():
        assert entry["status"] in ("differ", "missing"), cid
        assert "reason" not in entry or entry["reason"].strip(), cid
