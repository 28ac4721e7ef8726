"""docs/claims.md stays true to the lessons; the claims it marks *test* stay true of the packages.

Each row of the table quotes its lesson; every issue or spec link a lesson makes is listed in a
row of its chapter, so a new citation cannot enter a lesson without its evidence. The claims about
installed packages (an SDK's default, a docstring the lesson quotes, a renamed class) are checked
here against the versions this environment installs, so an upgrade that changes them fails.
"""

from __future__ import annotations

import importlib
import inspect
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "claims.md"
ROW = re.compile(r"^\| (\d\d) \| (.+?) \| (.+?) \| (\d{4}-\d\d-\d\d) \|$")
LINK = re.compile(
    r"https?://[^\s)\]>\"'`,;]+"  # a URL
    r"|\b[\w.-]+/[\w.-]+#\d+"  # owner/repo#123
    r"|\b[a-z][\w.-]*#\d+"  # repo#123
    r"|(?<![\w/&])#\d{2,6}\b"  # #123 (an issue of the repository named just before)
    r"|\bSEP-\d+"
)


def rows() -> list[tuple[str, str, str, str]]:
    found = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            found.append(match.groups())
    return found


def lesson(chapter: str) -> Path:
    (path,) = sorted((ROOT / "notebooks").glob(f"{chapter}_*.ipynb"))
    return path


def flat(text: str) -> str:
    return " ".join(text.split())


def markdown_of(path: Path) -> str:
    notebook = nbformat.read(path, as_version=4)
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def links_in(text: str) -> set[str]:
    return {link.rstrip(".") for link in LINK.findall(text)}


def test_the_table_covers_every_chapter() -> None:
    chapters = {chapter for chapter, *_ in rows()}
    lessons = {path.name[:2] for path in (ROOT / "notebooks").glob("[01][0-9]_*.ipynb")}
    assert lessons and lessons <= chapters, f"chapters without a row: {sorted(lessons - chapters)}"


@pytest.mark.parametrize("chapter, quote", [(row[0], row[1]) for row in rows()])
def test_each_row_quotes_its_lesson(chapter: str, quote: str) -> None:
    text = flat(markdown_of(lesson(chapter)))
    assert flat(quote) in text, f"{lesson(chapter).name} no longer says: {quote}"


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("[01][0-9]_*.ipynb")))
def test_every_link_in_a_lesson_has_a_row(path: Path) -> None:
    listed = " ".join(
        f"{quote} {evidence}" for chapter, quote, evidence, _ in rows() if chapter == path.name[:2]
    )
    missing = sorted(link for link in links_in(markdown_of(path)) if link not in listed)
    assert not missing, f"{path.name} cites {missing}: add each to docs/claims.md with its evidence"


def test_the_link_pattern_finds_each_kind() -> None:
    text = (
        "see openai/codex#15519, python-sdk#2429 and (#879); SEP-1303; "
        "https://www.sqlite.org/lang_transaction.html. Not a link: C# or &#39;"
    )
    assert links_in(text) == {
        "openai/codex#15519",
        "python-sdk#2429",
        "#879",
        "SEP-1303",
        "https://www.sqlite.org/lang_transaction.html",
    }


def test_the_gated_edits_apply_to_the_lessons_as_they_are(tmp_path: Path) -> None:
    """docs/claims_09_10.py applies cleanly (or is already applied) and twice changes nothing."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        claims_09_10 = importlib.import_module("claims_09_10")
    finally:
        sys.path.remove(str(ROOT / "docs"))
    for relative in claims_09_10.EDITS:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, tmp_path / relative)
    claims_09_10.apply(tmp_path)
    assert claims_09_10.apply(tmp_path) == []


# Claims about installed packages, marked *test* in the table.


def test_openai_reference_warns_that_arguments_may_not_be_json() -> None:
    from openai.types.chat import chat_completion_message_function_tool_call as module

    source = inspect.getsource(module)
    assert "does not always generate valid JSON" in source
    assert "hallucinate parameters not defined by your function schema" in flat(source)


def test_openai_function_names_are_wire_safe_and_at_most_64() -> None:
    from openai.types.shared_params import function_definition

    source = flat(inspect.getsource(function_definition))
    assert "Must be a-z, A-Z, 0-9, or contain underscores and dashes" in source
    assert "maximum length of 64" in source


def test_openai_sdk_retries_twice_by_default() -> None:
    from openai._constants import DEFAULT_MAX_RETRIES

    assert DEFAULT_MAX_RETRIES == 2


def test_mcp_2_renamed_fastmcp_to_mcpserver() -> None:
    from mcp.server.mcpserver import MCPServer

    assert inspect.isclass(MCPServer)
    with pytest.raises(ImportError, match="renamed to MCPServer"):
        importlib.import_module("mcp.server.fastmcp")


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX list")
def test_mcp_stdio_children_inherit_only_a_few_variables() -> None:
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

    assert sorted(DEFAULT_INHERITED_ENV_VARS) == [
        "HOME",
        "LOGNAME",
        "PATH",
        "SHELL",
        "TERM",
        "USER",
    ]
