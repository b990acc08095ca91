"""common/malloc_tuning.py: `import minispore` makes glibc reuse freed multi-MB buffers instead
of handing back fresh pages (counted as minor page faults), and leaves settings the user made
in the environment alone."""
import os
import subprocess
import sys

import pytest

from minispore.common.malloc_tuning import tune_malloc

# Allocate, touch and drop four 4-8 MB buffers per step, as an eager training step does with
# its activations; print the minor page faults per step once warm.
FAULTS_PER_STEP = """
import resource, sys
import numpy as np
if sys.argv[1] == "minispore":
    import minispore
def step():
    for b in [np.empty(n << 20, np.uint8) for n in (6, 8, 4, 8)]:
        b.fill(1)
for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    step()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def faults_per_step(importing, **env):
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", FAULTS_PER_STEP, importing], check=True,
                         capture_output=True, text=True, env={**clean, **env}).stdout
    return float(out.split()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc only")
def test_import_minispore_stops_the_page_faults_of_reallocated_buffers():
    # Plain numpy refaults most of the 26 MB every step (glibc trims the heap and mmaps anew).
    assert faults_per_step("numpy") > 1000
    assert faults_per_step("minispore") < 50
    # A threshold the user set in the environment wins.
    assert faults_per_step("minispore", MALLOC_MMAP_THRESHOLD_="131072") > 1000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc only")
def test_settings_from_the_environment_are_left_alone():
    assert tune_malloc({}) == {"MALLOC_MMAP_THRESHOLD_": 32 << 20,
                               "MALLOC_TRIM_THRESHOLD_": 1 << 30}
    assert tune_malloc({"MALLOC_TRIM_THRESHOLD_": "0"}) == {"MALLOC_MMAP_THRESHOLD_": 32 << 20}
    assert tune_malloc({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536"}) == {
        "MALLOC_TRIM_THRESHOLD_": 1 << 30}
