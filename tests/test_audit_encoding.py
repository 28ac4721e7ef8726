"""The audit log's fast path keeps every promise of the slow one.

A record is written straight in canonical form (no second JSON encoding), its arguments are
scrubbed in one walk (a second only when something must change), redacted texts and timestamps
are remembered: each line must still be exactly the canonical encoding of what it holds, and
nothing remembered may let a secret through once the known secrets change.
"""

from __future__ import annotations

import hashlib
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolsys
from toolsys import Registry, ToolResult
from toolsys import _redact as redaction
from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.execution import Call
from toolsys.governance import AuditLog
from toolsys.governance.audit import _timestamp, read, verify
from toolsys.governance.chain import seal

# Values a model, a caller or a layer may put anywhere in a record.
texts = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["", "ok", "ñandú", "\u2028", 'quote " and \\ slash', "\ud800 lone", "😀", "\x00\x1f"]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**70, max_value=2**80)
    | st.floats()  # NaN and infinities included
    | texts
)
keys = texts | st.integers(-5, 5) | st.sampled_from(["password", "api-key", "Card_Number"])
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(keys, inner, max_size=3)
    ),
    max_leaves=8,
)
results = st.builds(
    lambda ok, code, message, meta: (
        ToolResult(True, 1, None, meta) if ok else ToolResult.failure(ErrorInfo(code, message))
    ),
    st.booleans(),
    st.sampled_from([ErrorCode.TIMEOUT, "CUSTOM_CODE"]),
    texts,
    st.fixed_dictionaries(
        {},
        optional={
            "decision": st.sampled_from(["allow", "approved", "weird"]) | values,
            "approved_by": values,
            "attempt": st.integers(-3, 2**70),
            "replayed": values,
        },
    ),
)


def exact_lines(data: bytes) -> None:
    """Each line is the canonical encoding of the record it holds, and the chain verifies."""
    for line in data.splitlines(keepends=True):
        record = json.loads(line)
        del record["hash"]
        assert seal(record)[0] == line


@settings(max_examples=300)
@given(
    arguments=values,
    raw=texts,
    context=st.fixed_dictionaries({}, optional={"user": values, "roles": values}),
    ids=st.tuples(values, values, values),
    result=results | st.none(),
    seconds=st.floats(min_value=0, max_value=1e6) | st.integers(0, 10),
)
def test_every_record_is_exactly_the_canonical_encoding_of_what_it_holds(
    arguments: Any, raw: str, context: dict[str, Any], ids: Any, result: Any, seconds: Any
) -> None:
    stream = io.BytesIO()
    log = AuditLog(stream)
    run_id, step, call_id = ids
    for raw_arguments in (arguments, raw):
        call = Call("tool", raw_arguments, None, None, context, run_id, step, call_id)
        assert log._write(call, [], result, seconds) is None
    exact_lines(stream.getvalue())


def test_records_of_real_calls_are_exactly_canonical_and_verify(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry = Registry(layers=[AuditLog(path)])

    @registry.tool
    def echo(payload: dict[str, Any], note: str = "") -> dict[str, Any]:
        """Echo.

        Args:
            payload: Anything.
            note: Anything.
        """
        return payload

    for payload in ({}, {"a": [1, 2.5, None, True]}, {"é": {"ü": "😀"}, "password": "p4ss-word"}):
        registry.execute("echo", {"payload": payload, "note": "ñ"}, context={"roles": ["x"]})
    registry.execute("echo", "not json")
    registry.execute("nope", {"x": float("nan")})
    exact_lines(path.read_bytes())
    assert verify(path).ok and len(read(path)) == 5


@settings(max_examples=2000)
@given(
    st.floats(min_value=0, max_value=1e11, exclude_max=True)
    | st.integers(0, 4 * 10**9).map(lambda whole: whole + 0.9995)
    | st.integers(0, 4 * 10**9).map(lambda whole: whole + 0.9999996)
)
def test_a_remembered_second_gives_the_same_timestamp_as_datetime(seconds: float) -> None:
    expected = datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")
    assert _timestamp(seconds) == expected


@pytest.fixture
def forget_added(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redaction, "_added_values", {})
    monkeypatch.setattr(redaction, "_generation", redaction._generation + 1)


def audited(path: Path) -> Registry:
    registry = Registry(layers=[AuditLog(path)])

    @registry.tool
    def note(text: str, password: str = "") -> str:
        """Take a note.

        Args:
            text: The note.
            password: A secret.
        """
        raise toolsys.ToolError("NOTE_FAILED", f"could not save {text!r}")

    return registry


def test_a_secret_set_in_the_environment_after_the_first_record_is_redacted_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.jsonl"
    registry = audited(path)
    later = "walrus-ballroom-5512"
    context = {"user": later, "roles": [later]}
    registry.execute("note", {"text": later}, context=context, call_id=later, run_id=later)
    monkeypatch.setenv("NOTES_API_TOKEN", later)
    registry.execute("note", {"text": later}, context=context, call_id=later, run_id=later)
    first, second = path.read_text().splitlines()
    assert first.count(later) == 6  # remembered as clean: user, role, ids, argument, message
    assert later not in second
    assert verify(path).ok


def test_a_secret_added_with_add_secret_after_the_first_record_is_redacted(
    tmp_path: Path, forget_added: None
) -> None:
    path = tmp_path / "a.jsonl"
    registry = audited(path)
    later = "codename-quiet-harbour"
    registry.execute("note", {"text": later})
    toolsys.add_secret(later)
    registry.execute("note", {"text": later})
    first, second = path.read_text().splitlines()
    assert later in first and later not in second


def test_a_text_remembered_as_clean_loses_a_password_given_in_the_same_call(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.jsonl"
    registry = audited(path)
    echoed = "my pin is orchid-7741"
    registry.execute("note", {"text": echoed})  # remembered: nothing secret in it
    registry.execute("note", {"text": echoed, "password": "orchid-7741"})
    first, second = read(path)
    assert first["arguments"]["text"] == echoed
    assert second["arguments"] == {"text": "my pin is [redacted]", "password": "[redacted]"}
    assert "orchid-7741" not in path.read_text().splitlines()[1]


def test_a_secret_inside_an_argument_object_is_redacted_by_its_key(tmp_path: Path) -> None:
    from pydantic import BaseModel

    class Login(BaseModel):
        user: str
        password: str

    path = tmp_path / "a.jsonl"
    log = AuditLog(path)
    call = Call("login", {"login": Login(user="ana", password="sunflower-88")})
    assert log._write(call, [], ToolResult(True, None), 0.001) is None
    (record,) = read(path)
    assert record["arguments"] == {"login": {"user": "ana", "password": "[redacted]"}}
    assert "sunflower-88" not in path.read_text()


def test_too_long_arguments_keep_the_length_and_hash_of_their_canonical_json(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.jsonl"
    registry = Registry(layers=[AuditLog(path, max_argument_chars=100)])

    @registry.tool
    def store(blob: str) -> int:
        """Store.

        Args:
            blob: The data.
        """
        return len(blob)

    registry.execute("store", {"blob": "é" * 60})
    (record,) = read(path)
    text = json.dumps({"blob": "é" * 60}, sort_keys=True, separators=(",", ":"))
    assert record["arguments"] == {
        "omitted": "too long",
        "chars": len(text),
        "sha256": hashlib.sha256(text.encode("ascii")).hexdigest(),
    }


def test_the_records_encoder_built_once_writes_what_json_writes() -> None:
    """`chain.encoded` keeps one C encoder for every record: the same text as `json.dumps` with
    the canonical options, the same refusals (NaN, a value JSON cannot hold)."""
    from toolsys.governance import chain

    options = {"sort_keys": True, "separators": (",", ":"), "allow_nan": False}
    for value in ({"b": [1, 2.5, None], "a": "é\n"}, "x\u2028", -0.0, 10**30, {1: True}, {}):
        assert chain.encoded(value) == json.dumps(value, **options)  # type: ignore[arg-type]
    for bad in (float("nan"), {"a": float("inf")}, {"a": object()}, {"a": {1}}):
        with pytest.raises((ValueError, TypeError)):
            chain.encoded(bad)
