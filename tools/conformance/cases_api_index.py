"""Hand-written conformance cases for the gather, scatter and index family: see cases_api.py."""

CASES = {
    "ops": [],
    "primitive": [],
    "tensor": [],
}
