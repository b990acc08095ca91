"""Hand-written conformance cases: matrix products, creation, random and other ops."""

CASES = {
    "ops": [],
    "primitive": [],
    "tensor": [],
}
