"""No refactoring may change a result: `ampsched run --json` is byte-identical, for every
catalog machine, workload and policy of the golden file, to what it was when the file was
written (tests/golden/capture.py says how to regenerate it after a deliberate change). The test
checks the quick part of the grid (`capture.py --quick`: the big workloads only on machines with
a core per thread, without the oracle); `python tests/golden/capture.py` checks it all."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import capture  # noqa: E402


def test_every_catalog_run_is_byte_identical_to_the_golden_file():
    pytest.importorskip("ampsched._core")
    rows = capture.current(quick=True)
    assert len(rows) >= 900, "the quick check still covers most of the grid"
    diff = capture.differences(rows, quick=True)
    assert not diff, f"{len(diff)} outputs changed, e.g. {diff[:5]}"
