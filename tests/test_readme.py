"""The README's python blocks must keep working: a new user copies them first."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def _block(starting: str) -> str:
    """The README's ```python block whose first line is `starting`."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if b.startswith(starting)]
    assert len(found) == 1, f"the README has {len(found)} python blocks starting {starting!r}"
    return found[0]


def test_readme_python_example_runs(capsys) -> None:
    exec(compile(_block("from toolsys import Registry, ToolError"), "README.md", "exec"), {})
    assert "Status    completed" in capsys.readouterr().out


def test_readme_testing_example_passes_as_a_test_file(tmp_path: Path) -> None:
    """`Testing your own tools`: the block, as a user pastes it below their own registry."""
    own = (
        "from toolsys import Registry\n\n"
        "registry = Registry()\n\n\n"
        "@registry.tool\n"
        "def get_weather(city: str) -> str:\n"
        '    """The weather in a city.\n\n'
        "    Args:\n"
        "        city: The city, e.g. 'Paris'.\n"
        '    """\n'
        '    return f"Mild in {city}."\n\n\n'
    )
    (tmp_path / "test_readme_tools.py").write_text(own + _block("from toolsys.loop import"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "3 passed" in done.stdout


def test_readme_hidden_case_example_loads_and_passes_on_the_solution(tmp_path: Path) -> None:
    """`Points, hidden cases and feedback pages`: the block, saved as the file it names."""
    from tests.solution_code import answer
    from toolsys.grading.hidden import load

    text = _block("# hidden/2.1.py")
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "2.1.py").write_text(text)
    loaded = load(tmp_path / "hidden" / "2.1.py")
    assert loaded.visible_points == 2 and [c.points for c in loaded.cases] == [2]
    for one in loaded.cases:
        one.run(answer("2.1"))  # raises CheckFailed on a wrong answer
