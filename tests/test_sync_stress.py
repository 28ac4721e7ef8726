"""A short share of the sync stress run (tests/sync_stress.py); `make fuzz` runs a long one.

Every call must come back with the envelope its kind promises, and once everything hung is
released nothing may be left: no thread, no open event loop, no process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sync_stress import KINDS, stress


@pytest.mark.timeout(240)
@pytest.mark.parametrize("seed", [0])
def test_random_sequences_of_calls_come_back_right_and_leave_nothing_behind(
    seed: int, tmp_path: Path
) -> None:
    report = stress(rounds=len(KINDS) + 6, seed=seed, folder=tmp_path)
    assert report.calls >= len(KINDS) - 1
    assert report.clean, "\n".join([*report.wrong, *report.left])
