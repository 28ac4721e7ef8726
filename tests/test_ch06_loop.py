"""Lesson 06's hand-built loop and `toolsys.loop.run_agent` have the same conversation.

The loop is taken from the lesson itself (the cell that defines `agent_loop`), so the lesson
cannot drift from the package without this test noticing; so is the solution's async loop.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.solution_code import answer
from toolsys import Registry, ToolError, models
from toolsys.loop import run_agent
from toolsys.models import ScriptedModel, calls, text

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "06_agent_loop.ipynb"


def _lesson_loop() -> Any:
    cells = [
        "".join(cell["source"])
        for cell in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    ]
    source = next(c for c in cells if c.startswith("def agent_loop("))
    source = source.split("\n\ndef print_conversation")[0]
    namespace: dict[str, Any] = {"MODEL": models.default_model()}
    exec(compile(source, str(LESSON), "exec"), namespace)
    return namespace["agent_loop"]


def _registry() -> Registry:
    registry = Registry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: City name, e.g. "Paris".
        """
        known = {"Paris": "8 °C", "Tokyo": "9 °C"}
        if city not in known:
            raise ToolError("CITY_NOT_FOUND", f"No weather data for {city!r}.")
        return f"{city}: {known[city]}"

    @registry.tool
    async def slow_echo(word: str) -> str:
        """Echo a word after a short wait.

        Args:
            word: The word to echo.
        """
        await asyncio.sleep(0.01)
        return word

    return registry


SCRIPTS = {
    "text at once": ([text("Hello!")], 5),
    "one call": ([calls(("get_weather", {"city": "Paris"})), text("8 °C")], 5),
    "parallel calls, one failing": (
        [
            calls(
                ("get_weather", {"city": "Paris"}),
                ("get_weather", {"city": "Atlantis"}),
                ("slow_echo", {"word": "hi"}),
            ),
            text("Paris found, Atlantis not."),
        ],
        5,
    ),
    "unknown tool and bad JSON": (
        [calls(("get_wether", {"city": "Paris"}), ("get_weather", '{"city": ')), text("ok")],
        5,
    ),
    "two steps then text": (
        [
            calls(("get_weather", {"city": "Paris"})),
            calls(("get_weather", {"city": "Tokyo"})),
            text("Both."),
        ],
        5,
    ),
    "cut by max_steps": ([calls(("slow_echo", {"word": "again"}))] * 4, 2),
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_lessons_loop_has_the_same_conversation_as_run_agent(name: str) -> None:
    script, max_steps = SCRIPTS[name]
    prompt = f"test: {name}"
    by_hand = _lesson_loop()(ScriptedModel(script).client(), _registry(), prompt, max_steps)
    package = run_agent(ScriptedModel(script).client(), _registry(), prompt, max_steps=max_steps)
    assert by_hand == package.messages


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_solutions_async_loop_has_the_same_conversation_as_run_agent(name: str) -> None:
    script, max_steps = SCRIPTS[name]
    prompt = f"test: {name}"
    loop = answer("6.1")
    by_hand = asyncio.run(loop(ScriptedModel(script).client(), _registry(), prompt, max_steps))
    package = run_agent(ScriptedModel(script).client(), _registry(), prompt, max_steps=max_steps)
    assert by_hand == package.messages


@pytest.mark.parametrize("seed", range(6))
def test_both_loops_agree_with_run_agent_on_the_imperfect_offline_model(seed: int) -> None:
    from toolsys.tools import registry

    prompt = "What's the weather in Paris and in Tokyo, and what is 17 * 38?"

    def client():
        return models.OfflineModel(imperfect=True, seed=seed).client()

    package = run_agent(client(), registry, prompt).messages
    assert _lesson_loop()(client(), registry, prompt) == package
    assert asyncio.run(answer("6.1")(client(), registry, prompt)) == package
