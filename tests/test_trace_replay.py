"""A run saved as JSON comes back as the same transcript, replays without the model, and a file
that is not a saved run is refused with one line saying where it is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolsys import models
from toolsys.cli import main
from toolsys.loop import ModelErrorEvent, ObserverError, ToolResultEvent, Transcript, run_agent
from toolsys.models import ScriptedModel, calls, text
from toolsys.tools import registry
from toolsys.widgets import TraceView

PROMPT = "What's the weather in Paris and in Tokyo?"


def _run(seed: int) -> Transcript:
    return run_agent(models.OfflineModel(imperfect=True, seed=seed).client(), registry, PROMPT)


@pytest.mark.parametrize("seed", range(10))
def test_a_saved_run_loads_back_as_the_same_transcript(seed):
    transcript = _run(seed)
    loaded = Transcript.from_json(transcript.to_json())
    assert loaded.to_json() == transcript.to_json()
    assert str(loaded) == str(transcript)
    assert loaded.answer == transcript.answer
    assert [type(e) for e in loaded.events] == [type(e) for e in transcript.events]
    for saved, original in zip(loaded.results, transcript.results, strict=True):
        assert saved.result.to_message() == original.result.to_message()


def test_model_errors_and_observer_errors_survive_the_round_trip():
    def broken(event):
        raise RuntimeError("widget gone")

    transcript = run_agent(
        ScriptedModel([calls(("calculator", {"expression": "1+1"}))]).client(),
        registry,
        "1+1",
        on_event=broken,
    )
    loaded = Transcript.from_json(transcript.to_json())
    assert loaded.status == "model_error"
    assert any(isinstance(e, ModelErrorEvent) for e in loaded.events)
    assert any(isinstance(e, ObserverError) for e in loaded.events)
    assert str(loaded) == str(transcript)


def test_an_event_field_added_later_with_a_default_does_not_break_old_traces():
    from dataclasses import dataclass

    from toolsys._tracefile import read_trace

    @dataclass(frozen=True)
    class Note:
        step: int
        text: str
        level: str = "info"

    data = json.loads(_run(0).to_json())
    data["events"].append({"type": "Note", "step": 2, "text": "saved before 'level' existed"})
    parts = read_trace(data, {"Note": Note, **{type(e).__name__: type(e) for e in _run(0).events}})
    assert parts["events"][-1] == Note(2, "saved before 'level' existed")


def test_from_dict_takes_the_data_of_to_dict():
    transcript = _run(0)
    assert Transcript.from_dict(transcript.to_dict()).to_json() == transcript.to_json()


def _saved() -> dict:
    return json.loads(_run(3).to_json())


def _broken(change) -> str:
    data = _saved()
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "not JSON"),
        ("{'status': 'completed'}", "not JSON"),
        (b"\xff\xfe{", "not JSON"),
        ("[1, 2]", "got a list"),
        ("null", "got null"),
        (_broken(lambda d: d.pop("events")), "'events' is missing"),
        (_broken(lambda d: d.update(steps="3")), "steps is text, expected an integer"),
        (_broken(lambda d: d.update(duration_s=float("nan"))), "duration_s"),
        (_broken(lambda d: d["events"].append({"type": "Hack"})), "unknown type 'Hack'"),
        (_broken(lambda d: d["events"][1].pop("step")), "events[1] (ModelRequest) has no 'step'"),
        (_broken(lambda d: d["events"].append(7)), "is not an event with a 'type'"),
        (_broken(lambda d: d["messages"].append({"content": "x"})), "is not a message"),
        (
            _broken(lambda d: next(e for e in d["events"] if "ok" in e).update(ok="yes")),
            "without a true/false 'ok'",
        ),
        (
            _broken(
                lambda d: next(e for e in d["events"] if e.get("ok") is False).update(error=None)
            ),
            "without an 'error' with code and message",
        ),
    ],
)
def test_a_file_that_is_not_a_saved_run_is_refused_saying_where(text, words):
    with pytest.raises(ValueError) as caught:
        Transcript.from_json(text)
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_view_replays_a_saved_run_from_the_start(tmp_path: Path):
    transcript = _run(3)
    path = tmp_path / "run.json"
    path.write_text(transcript.to_json(), encoding="utf-8")
    for source in (transcript, transcript.to_json(), path, str(path)):
        view = TraceView.replay(source)
        assert view.status == "replay"
        assert view.summary_text().splitlines()[0].startswith("TraceView · replay · 0 steps")
        view.show(len(view.events))
        assert view.summary_text() == TraceView(transcript).summary_text()


def test_the_view_replays_step_by_step_and_can_start_anywhere():
    transcript = _run(0)
    counts = []
    view = TraceView.replay(transcript, at=0)
    for position in range(len(transcript.events) + 1):
        view.show(position)
        counts.append(sum(1 for line in view.summary_text().splitlines() if "call  " in line))
    assert counts == sorted(counts) and counts[-1] == len(transcript.tool_calls)
    assert TraceView.replay(transcript, at=3).summary_text() == _shown(transcript, 3)


def _shown(transcript: Transcript, count: int) -> str:
    view = TraceView(transcript)
    view.show(count)
    return view.summary_text()


def test_the_view_refuses_a_file_that_is_not_a_trace(tmp_path: Path):
    path = tmp_path / "notes.json"
    path.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(ValueError, match="'status' is missing"):
        TraceView.replay(path)


# -- the command line ---------------------------------------------------------------------------


@pytest.fixture
def invoke(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args))


def test_chat_trace_saves_the_run_and_replay_prints_it_step_by_step(invoke, tmp_path: Path):
    path = tmp_path / "run.json"
    chat = invoke("chat", "--imperfect", "--seed", "3", "--trace", str(path), PROMPT)
    assert chat.exit_code == 0
    saved = Transcript.from_json(path.read_bytes())
    assert str(saved) == chat.output.rstrip("\n")
    replay = invoke("replay", str(path))
    assert replay.exit_code == 0
    lines = replay.output.splitlines()
    assert lines[0] == "Replay of a saved run · model toolsys-offline-1 · no model is called"
    assert lines[1] == f"User      {PROMPT}"
    assert [line.split(" · ")[0] for line in lines if line.startswith("── step")] == [
        "── step 1",
        "── step 2",
        "── step 3",
    ]
    assert lines[-2:] == str(saved).splitlines()[-2:]
    body = [line for line in lines[2:-2] if not line.startswith("── step")]
    assert body == str(saved).splitlines()[:-2]


def test_a_run_that_did_not_complete_is_saved_too(invoke, tmp_path: Path):
    path = tmp_path / "run.json"
    assert invoke("chat", "--max-steps", "1", "--trace", str(path), PROMPT).exit_code == 1
    assert Transcript.from_json(path.read_bytes()).status == "max_steps"
    assert invoke("replay", str(path)).output.rstrip().endswith("Status    max_steps")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "is not a saved toolsys trace: not JSON"),
        (b'{"hello": 1}', "is not a saved toolsys trace: 'status' is missing"),
        (b"\x00\x01binary", "is not a saved toolsys trace: not JSON"),
    ],
)
def test_replay_refuses_a_corrupt_trace_in_one_line_with_exit_2(invoke, tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = invoke("replay", str(path))
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert line.startswith("toolsys replay: ") and words in line
    assert "toolsys chat --trace FILE" in line


def test_replay_of_a_missing_file_or_a_folder_is_one_line_with_exit_2(invoke, tmp_path):
    for target, words in ((tmp_path / "nope.json", "No such file"), (tmp_path, "is a directory")):
        result = invoke("replay", str(target))
        assert result.exit_code == 2
        (line,) = result.output.splitlines()
        assert line.startswith("toolsys replay: ") and words in line


def test_chat_refuses_a_trace_path_in_a_missing_folder_before_running(invoke, tmp_path):
    result = invoke("chat", "--trace", str(tmp_path / "no" / "run.json"), "What is 2+2?")
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert line.startswith("toolsys chat: --trace ") and "does not exist" in line


def test_chat_refuses_a_trace_path_that_is_a_folder(invoke, tmp_path):
    result = invoke("chat", "--trace", str(tmp_path), "What is 2+2?")
    assert result.exit_code == 2
    assert result.output.startswith("toolsys chat: ")


def test_a_replayed_trace_keeps_secrets_out(invoke, tmp_path, monkeypatch):
    monkeypatch.setenv("DEMO_API_KEY", "sk-fake-0123456789")
    script = ScriptedModel([text("the key is sk-fake-0123456789")])
    transcript = run_agent(script.client(), registry, "show the key")
    path = tmp_path / "run.json"
    path.write_text(transcript.to_json(), encoding="utf-8")
    assert "sk-fake-0123456789" not in path.read_text(encoding="utf-8")
    assert "sk-fake-0123456789" not in invoke("replay", str(path)).output


def test_results_of_a_replayed_run_are_tool_results():
    loaded = Transcript.from_json(_run(3).to_json())
    assert all(isinstance(e, ToolResultEvent) for e in loaded.results)
    assert [e.result.ok for e in loaded.results] == [e.result.ok for e in _run(3).results]
