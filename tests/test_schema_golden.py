"""Generated schemas for 20 signatures, pinned by golden files.

Regenerate after an intended change with: TOOLSYS_UPDATE_GOLDEN=1 pytest tests/test_schema_golden.py
and read the diff before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.schema_cases import CASES
from toolsys.tool import tool_from_function

GOLDEN = Path(__file__).parent / "golden" / "schemas"


def _render(fn) -> dict:
    tool = tool_from_function(fn)
    return {
        "description": tool.description,
        "parameters": tool.parameters,
        "diagnostics": list(tool.diagnostics),
    }


@pytest.mark.parametrize("fn", CASES, ids=lambda fn: fn.__name__)
def test_schema_matches_golden_file(fn) -> None:
    path = GOLDEN / f"{fn.__name__}.json"
    rendered = _render(fn)
    if os.environ.get("TOOLSYS_UPDATE_GOLDEN"):
        path.write_text(json.dumps(rendered, indent=2) + "\n")
    assert path.exists(), f"No golden file {path.name}; run with TOOLSYS_UPDATE_GOLDEN=1."
    assert rendered == json.loads(path.read_text())


def test_there_are_at_least_twenty_golden_signatures() -> None:
    assert len(CASES) >= 20
    assert {p.stem for p in GOLDEN.glob("*.json")} == {fn.__name__ for fn in CASES}
