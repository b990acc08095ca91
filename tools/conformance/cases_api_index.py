"""Hand-written conformance cases: the gather, scatter and index family."""

CASES = {
    "ops": [],
    "primitive": [],
    "tensor": [],
}
