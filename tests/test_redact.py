"""Redaction: no secret reaches a message, a transcript or `toolsys chat --json`.

A planted-secret matrix: every secret shape, planted in every place a value can travel (a
tool's return value, an exception message, ToolError details nested / in a Path / as a key,
arguments echoed back, a transcript, the CLI), must appear 0 times in what is printed or sent.
Test values are built by concatenation so no committed file looks like a real key.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import unittest.mock
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

import toolsys
from toolsys import ErrorInfo, Registry, ToolError, ToolResult
from toolsys import _redact as redaction
from toolsys.loop import run_agent
from toolsys.models import ScriptedModel, calls, text

# -- the secrets ------------------------------------------------------------------------------

TOKEN_TAIL = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
JWT = ".".join(
    ("eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiIxMjM0In0", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFU")
)
PEM_BODY = "MIIEowIBAAKCAQEA" + TOKEN_TAIL


class Case:
    """A secret, the text it is planted as, and what the environment must hold for it."""

    def __init__(
        self, name: str, secret: str, planted: str | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.name = name
        self.secret = secret
        self.planted = planted if planted is not None else secret
        self.env = env or {}

    def __repr__(self) -> str:
        return self.name


CASES = [
    # known shapes, in no environment variable
    Case("openai-project", "sk-" + "proj-" + TOKEN_TAIL + "T3BlbkFJ"),
    Case("openai-legacy", "sk-" + TOKEN_TAIL),
    Case("github-classic", "ghp_" + TOKEN_TAIL),
    Case("github-oauth", "gho_" + TOKEN_TAIL),
    Case("github-fine-grained", "github_pat_" + "11ABCDEFG0_" + TOKEN_TAIL),
    Case("aws-access-key", "AKIA" + "IOSFODNN7EXAMPL3"),
    Case("slack", "xoxb-" + "1234567890-" + TOKEN_TAIL),
    Case("jwt", JWT),
    Case("bearer", "Zq" + TOKEN_TAIL, planted="Authorization: Bearer Zq" + TOKEN_TAIL),
    Case("bearer-alone", "Yp" + TOKEN_TAIL, planted="sent Bearer Yp" + TOKEN_TAIL + " upstream"),
    Case(
        "url-password",
        "Hunter2-horse-battery",
        planted="postgres://alice:Hunter2-horse-battery@db.example.com:5432/app",
    ),
    Case("password-assignment", "correct-staple-77", planted="password=correct-staple-77"),
    Case(
        "pem-private-key",
        PEM_BODY,
        planted=f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
    ),
    # environment secrets: by name, wider names, by shape, in other spellings
    Case("env-key", "kv-fake-0042-abc", env={"SERVICE_API_KEY": "kv-fake-0042-abc"}),
    Case("env-quote-backslash", 'tok"en\\zz-1234', env={"APP_TOKEN": 'tok"en\\zz-1234'}),
    Case(
        "env-percent-encoded",
        "p@ss w/rd&=9876",
        planted="https://hooks.example/x?sig=" + quote("p@ss w/rd&=9876", safe=""),
        env={"WEBHOOK_SECRET": "p@ss w/rd&=9876"},
    ),
    Case(
        "env-json-escaped",
        'q"uo\\te-5544',
        planted=json.dumps({"token": 'q"uo\\te-5544'}),
        env={"DEPLOY_PASSWORD": 'q"uo\\te-5544'},
    ),
    Case("env-pwd-name", "mysql-pw-8812-zz", env={"MYSQL_PWD": "mysql-pw-8812-zz"}),
    Case("env-pass-name", "db-pass-3310-qq", env={"DB_PASS": "db-pass-3310-qq"}),
    Case("env-pat-name", "pat-value-9911-rr", env={"GH_PAT": "pat-value-9911-rr"}),
    Case("env-credential", "cred-5566-ss-tt", env={"APP_CREDENTIALS": "cred-5566-ss-tt"}),
    Case("env-auth", "auth-7788-uu-vv", env={"X_AUTH": "auth-7788-uu-vv"}),
    Case("env-session", "sess-1122-ww-xx", env={"SESSION_COOKIE": "sess-1122-ww-xx"}),
    Case("env-dsn", "dsn-3344-yy-zz", env={"SENTRY_DSN": "dsn-3344-yy-zz"}),
    Case(
        "env-generated-value",
        "3f2a9c1d8e7b6a5f4c3d2e1f0a9b8c7d",
        env={"UPSTREAM_ID": "3f2a9c1d8e7b6a5f4c3d2e1f0a9b8c7d"},
    ),
]
IDS = [case.name for case in CASES]


@pytest.fixture
def plant(monkeypatch):
    """Put a case's environment in place; return the text to plant."""

    def apply(case: Case) -> str:
        for name, value in case.env.items():
            monkeypatch.setenv(name, value)
        return case.planted

    return apply


@pytest.fixture
def added(monkeypatch):
    """`add_secret*` calls made in a test are forgotten after it."""
    monkeypatch.setattr(redaction, "_added_values", {})
    monkeypatch.setattr(redaction, "_added_words", {})
    monkeypatch.setattr(redaction, "_added_patterns", [])
    monkeypatch.setattr(redaction, "_generation", redaction._generation + 1)


def leaks(secret: str, output: str) -> list[str]:
    """The spellings of `secret` found in `output` (raw, JSON-escaped, percent-encoded)."""
    once = json.dumps(secret)[1:-1]
    forms = {secret, once, json.dumps(once)[1:-1], repr(once)[1:-1]}
    forms |= {quote(secret, safe=""), quote(secret)}
    return [form for form in forms if form in output]


def decoded_strings(message: str) -> list[str]:
    """Every string inside a JSON message, decoded (so an escaped secret is seen as itself)."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            found.append(node)
            if node.startswith(("{", "[")):
                with contextlib.suppress(ValueError):
                    walk(json.loads(node))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(key)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(message))
    return found


def assert_clean(secret: str, *outputs: str) -> None:
    for output in outputs:
        assert leaks(secret, output) == [], output


def assert_clean_message(secret: str, message: str) -> None:
    assert_clean(secret, message)
    assert [s for s in decoded_strings(message) if secret in s] == []


# -- the matrix -------------------------------------------------------------------------------

matrix = Registry()


@matrix.tool
def echo(text: str) -> dict:
    """Return the text in several places.

    Args:
        text: Any text.
    """
    return {"said": text, "nested": [{"deep": text}], text: "as a key", "tuple": (text,)}


@matrix.tool
def crash(text: str) -> None:
    """Raise an exception that carries the text.

    Args:
        text: Any text.
    """
    raise RuntimeError(f"upstream rejected the request with {text} (status 401)")


@matrix.tool
def refuse(text: str) -> None:
    """Raise a ToolError whose details carry the text.

    Args:
        text: Any text.
    """
    raise ToolError(
        "REFUSED",
        f"Refused: {text}",
        suggestion=f"Do not send {text}.",
        details={
            "nested": {"list": [text, {"again": text}]},
            text: "as a key",
            "path": Path("/home/alice/.config") / text,
            "relative": Path("config") / text,
        },
    )


@matrix.tool
def count(items: int) -> int:
    """Count items.

    Args:
        items: How many.
    """
    return items


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_secret_in_a_return_value_never_reaches_the_message(case: Case, plant) -> None:
    result = matrix.execute("echo", {"text": f"value: {plant(case)} end"})
    assert result.ok
    assert_clean_message(case.secret, result.to_message())
    assert_clean(case.secret, str(result))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_secret_in_an_exception_message_never_reaches_the_message(case: Case, plant) -> None:
    result = matrix.execute("crash", {"text": plant(case)})
    assert not result.ok
    assert_clean_message(case.secret, result.to_message())
    assert_clean(case.secret, str(result))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_secret_in_tool_error_details_never_reaches_the_message(case: Case, plant) -> None:
    result = matrix.execute("refuse", {"text": plant(case)})
    assert result.error is not None and result.error.code == "REFUSED"
    assert_clean_message(case.secret, result.to_message())
    assert_clean(case.secret, str(result))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_secret_echoed_in_an_argument_error_never_reaches_the_message(case: Case, plant) -> None:
    planted = plant(case)
    for name, arguments in [
        ("count", {"items": planted}),
        ("count", {"items": 1, planted: 2}),
        ("count", json.dumps({"items": planted})),
        ("count", '{"items": "' + planted),  # broken JSON around the secret
        (planted, {"items": 1}),  # an unknown tool named like the secret
    ]:
        result = matrix.execute(name, arguments)
        assert not result.ok
        assert_clean_message(case.secret, result.to_message())
        assert_clean(case.secret, str(result))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_secret_in_a_run_never_reaches_the_transcript(case: Case, plant) -> None:
    planted = plant(case)
    model = ScriptedModel(
        [
            calls(
                ("echo", {"text": planted}),
                ("crash", {"text": planted}),
                ("refuse", {"text": planted}),
                ("count", {"items": planted}),
            ),
            text(f"Here it is: {planted}"),
        ]
    )
    transcript = run_agent(model.client(), matrix, f"Use {planted} please")
    for message in transcript.messages:
        if message["role"] == "tool":
            assert_clean_message(case.secret, message["content"])
    assert_clean(case.secret, str(transcript), transcript.to_json(), transcript.to_json(None))
    assert_clean(case.secret, json.dumps(transcript.to_dict(), ensure_ascii=False))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_secret_never_reaches_toolsys_chat_output(case: Case, plant, monkeypatch) -> None:
    from toolsys.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    prompt = f"What is the weather in {plant(case)} ?"
    runner = CliRunner()
    for flags in (["--json"], []):
        result = runner.invoke(main, ["chat", *flags, prompt])
        assert result.exit_code in (0, 1), result.output
        assert_clean(case.secret, result.output)


def test_a_secret_cut_by_a_length_limit_leaves_no_long_prefix(monkeypatch) -> None:
    secret = "kv-fake-0042-abcdefghijklmnop"
    monkeypatch.setenv("SERVICE_API_KEY", secret)
    for cut in (9, 15, len(secret) - 1):
        for cut_text in (f"x {secret[:cut]}", f"'{secret[:cut]}...' and", f"{secret[:cut]}…"):
            assert secret[:9] not in toolsys.redact(cut_text), cut_text


def test_a_generated_looking_secret_is_redacted_even_in_part(monkeypatch) -> None:
    secret = "3f2a9c1d8e7b6a5f4c3d2e1f0a9b8c7d"
    monkeypatch.setenv("UPSTREAM_ID", secret)
    assert toolsys.redact(f"near '{secret[:12]}' and {secret[:10]}x") == (
        "near '[redacted]' and [redacted]x"
    )


def test_the_transcript_trace_redacts_before_it_cuts(monkeypatch) -> None:
    secret = "kv-fake-0042-abcdefghijklmnop"
    monkeypatch.setenv("SERVICE_API_KEY", secret)
    planted = "x" * 290 + secret  # the 300-character trace line would cut it in the middle
    model = ScriptedModel([calls(("echo", {"text": planted})), text("done")])
    trace = str(run_agent(model.client(), matrix, "go"))
    assert secret[:8] not in trace


# -- what is and is not a secret --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", "/home/alice"),
        ("PWD", "/work/project"),
        ("OLDPWD", "/work/other"),
        ("TOOLSYS_MODEL", "gpt-4o-mini-2024-07-18"),
        ("LANG", "en_US.UTF-8"),
        ("HOSTTYPE", "x86_64-linux-gnu"),
        ("SESSION_TIMEOUT", "3600"),
        ("AUTH_ENABLED", "true"),
        ("KEYBOARD_LAYOUT", "us"),
        ("XDG_SESSION_CLASS", "user"),
        ("DESKTOP_SESSION", "ubuntu"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock"),
        ("AUTH_TYPE", "basic"),
        ("DB_PASS_FILE", "/run/secrets/db"),
        ("TOKENIZERS_PARALLELISM", "false"),
        ("BUILD_DATE", "2024-11-29T10:00:00Z"),
    ],
)
def test_ordinary_environment_values_are_not_secrets(monkeypatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    assert toolsys.redact_secrets(f"value {value} here") == f"value {value} here"


@pytest.mark.parametrize(
    "text",
    [
        "Bearer tokens are sent in a header",
        "pip install scikit-learn; sk-learn is a nickname",
        "the key is in the drawer; password reset link sent",
        "https://api.weather.example/v1/forecast?city=Paris",
        "ssh://git@github.com/org/repo.git",
        "a ghost_town and the ghp_ prefix",
        "version 2024-01-01, asia-east1 region",
    ],
)
def test_ordinary_text_near_secret_shapes_is_kept(text: str) -> None:
    assert toolsys.redact_secrets(text) == text


def test_a_path_keeps_its_file_name_and_urls_stay_whole() -> None:
    assert toolsys.redact("see /home/alice/x/report.csv and https://a.example/b/c") == (
        "see <path>/report.csv and https://a.example/b/c"
    )


# -- user additions ---------------------------------------------------------------------------


def test_users_can_add_secrets_names_and_patterns(added, monkeypatch) -> None:
    monkeypatch.setenv("ACME_LICENSE", "lic-2231-unique")
    assert "lic-2231-unique" in toolsys.redact("uses lic-2231-unique")
    toolsys.add_secret_name("license")
    toolsys.add_secret("internal-codename-zephyr")
    toolsys.add_secret_pattern(r"ACME-\d{6}")
    toolsys.add_secret_pattern(re.compile(r"acct_[a-z]{5}"))
    message = ToolResult.success(
        "lic-2231-unique internal-codename-zephyr ACME-123456 acct_abcde"
    ).to_message()
    assert json.loads(message)["value"] == "[redacted] [redacted] [redacted] [redacted]"


@pytest.mark.parametrize(
    ("add", "bad"),
    [
        ("add_secret", "ab"),
        ("add_secret", 1234),
        ("add_secret_name", " "),
        ("add_secret_pattern", r"x*"),
    ],
)
def test_bad_additions_are_refused_with_a_reason(added, add: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=add):
        getattr(toolsys, add)(bad)


def test_the_public_api_is_exported() -> None:
    for name in ("redact", "redact_secrets", "add_secret", "add_secret_name", "add_secret_pattern"):
        assert name in toolsys.__all__ and callable(getattr(toolsys, name))


# -- the environment scan is cached -----------------------------------------------------------


def test_the_environment_is_scanned_again_only_when_it_changes(monkeypatch) -> None:
    scans: list[int] = []
    real = redaction._environment_secrets

    def counting(environ):
        scans.append(1)
        return real(environ)

    monkeypatch.setattr(redaction, "_environment_secrets", counting)
    monkeypatch.setenv("CACHE_TEST_TOKEN", "first-value-1234")
    for _ in range(50):
        toolsys.redact("first-value-1234")
    assert len(scans) == 1
    monkeypatch.setenv("CACHE_TEST_TOKEN", "second-value-5678")
    assert toolsys.redact("second-value-5678 first-value-1234") == "[redacted] first-value-1234"
    assert len(scans) == 2
    os.environ.pop("CACHE_TEST_TOKEN")
    assert toolsys.redact("second-value-5678") == "second-value-5678"
    assert len(scans) == 3


# -- properties -------------------------------------------------------------------------------

SECRET_CHARS = st.characters(min_codepoint=33, max_codepoint=0x2FF, exclude_characters="[]")
SURROUNDING = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    secret=st.text(SECRET_CHARS, min_size=12, max_size=40),
    before=SURROUNDING,
    after=SURROUNDING,
    place=st.sampled_from(["value", "key", "message", "details", "path"]),
)
def test_an_environment_secret_never_survives_anywhere(
    secret: str, before: str, after: str, place: str
) -> None:
    if place == "path":  # a Path would split the secret at "/"
        secret = secret.replace("/", "x")
    planted = before + secret + after
    os.environ["PROPERTY_TEST_SECRET"] = secret
    try:
        if place == "value":
            message = ToolResult.success([{"text": planted}]).to_message()
        elif place == "key":
            message = ToolResult.success({planted: 1}).to_message()
        elif place == "message":
            message = ToolResult.failure(ErrorInfo("E", planted, planted)).to_message()
        elif place == "details":
            message = ToolResult.failure(ErrorInfo("E", "m", details={"a": [planted]})).to_message()
        else:
            path = Path("/srv") / planted
            message = ToolResult.failure(ErrorInfo("E", "m", details={"p": path})).to_message()
        assert [s for s in decoded_strings(message) if secret in s] == []
        assert json.dumps(secret, ensure_ascii=False)[1:-1] not in message
    finally:
        del os.environ["PROPERTY_TEST_SECRET"]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(st.characters(exclude_categories=()), max_size=200))
def test_redact_never_raises_and_is_idempotent(text: str) -> None:
    once = toolsys.redact(text)
    assert toolsys.redact(once) == once
    assert toolsys.redact_secrets(toolsys.redact_secrets(text)) == toolsys.redact_secrets(text)


_FRAGMENTS = sorted({t for triggers, _ in redaction._SHAPES for t in triggers})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_FRAGMENTS).map(lambda t: t.upper() if len(t) % 2 else t),
            st.sampled_from(["=", ": '", "://u:", "@h", " ", "a1b2c3d4e5f6g7", "ghp_" + "a1" * 10]),
            st.text(max_size=12),
        ),
        max_size=8,
    ).map("".join)
)
@example("Bearer a1b2c3d4e5f6g7")
@example("password=hunter2xyz")
@example("https://u:pa55word@h")
@example("access_token=abc123def456")
@example("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----")
def test_the_one_trigger_search_changes_no_redaction(text: str) -> None:
    """`redact_secrets` tries the shapes only when its one search finds a trigger in the text:
    the same text out as with every shape tried, on texts made of triggers and neighbours."""
    gated = redaction.redact_secrets(text)
    with unittest.mock.patch.object(redaction, "_ANY_TRIGGER", re.compile("")):
        assert gated == redaction.redact_secrets(text)


def _every_pattern_tried(text: str) -> str:
    """`redact` as it reads without its shortcuts: every pattern tried on every text."""
    text = redaction._TRACEBACK.sub("(traceback removed)", text)
    text = redaction.redact_secrets(text)
    text = redaction._POSIX_PATH.sub(redaction._shorten_path, text)
    return redaction._WINDOWS_PATH.sub(redaction._shorten_path, text)


_PATHLIKE = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "/",
                "/etc/x",
                "/home/alice/.ssh/id",
                str(Path.cwd() / "notes.txt"),
                ":\\",
                "C:\\Users\\bob\\key.txt",
                "Traceback (most recent call last):\n  File",
                "Traceback (most recent call",
                "https://u:pa55word@h/p",
                " ",
                "'",
            ]
        ),
        st.text(max_size=10),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_PATHLIKE)
@example("see /var/log/app.log")
@example("at C:\\Users\\bob\\app.py")
@example("Traceback (most recent call last):\n  File x")
def test_the_literal_shortcuts_change_no_redaction(text: str) -> None:
    """`redact` tries a pattern only when its literal part ("/", ":\\", the traceback's first
    line) is in the text: the same text out as with every pattern tried, on texts made of them."""
    assert redaction.redact(text) == _every_pattern_tried(text)


@settings(max_examples=200, deadline=None)
@given(st.one_of(_PATHLIKE, st.text(max_size=80)))
def test_an_envelopes_redactor_redacts_as_redact_does(text: str) -> None:
    """`redactor()` compares the environment once for all of an envelope's texts: each text
    comes out as `redact` gives it, an environment secret and an added one included."""
    os.environ["REDACTOR_TEST_TOKEN"] = "q9W8e7R6t5Y4u3I2"
    try:
        clean = redaction.redactor()
        for sample in (text, f"key q9W8e7R6t5Y4u3I2 in {text}"):
            assert clean(sample) == redaction.redact(sample)
        assert "q9W8e7R6t5Y4u3I2" not in clean(f"{text}q9W8e7R6t5Y4u3I2")
    finally:
        del os.environ["REDACTOR_TEST_TOKEN"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=6)), max_size=6).map("".join)
)
def test_the_trigger_search_finds_exactly_the_texts_holding_a_trigger(text: str) -> None:
    """The one search is a tree of the triggers' shared starts: it finds a trigger exactly when
    one of them is in the text, as a search for each would."""
    found = redaction._ANY_TRIGGER.search(text) is not None
    assert found == any(trigger in text for trigger in _FRAGMENTS)


def test_an_error_envelope_compares_the_environment_once(monkeypatch) -> None:
    """Building one envelope (message, suggestion, details with several keys and strings)
    looks at the environment once, not once per text."""
    looks = []
    real = redaction.known_secrets
    monkeypatch.setattr(redaction, "known_secrets", lambda: looks.append(1) or real())
    details = {"a": "x", "b": ["y", {"c": "z"}]}
    ErrorInfo(toolsys.ErrorCode.INVALID_ARGUMENTS, "a message", "a suggestion", details=details)
    assert len(looks) == 1


@pytest.mark.parametrize(
    "words", [["ab", "abc", "b"], ["a", "ab", "abc"], ["x-y", "x_y", "x"], ["only"]]
)
def test_the_tree_of_shared_starts_matches_each_word_and_nothing_else(words: list[str]) -> None:
    tree = re.compile(redaction._one_of(words))
    for word in words:
        assert tree.fullmatch(word), (tree.pattern, word)
    for other in ("", "zz", *(word + "!" for word in words), *(word[:-1] + "?" for word in words)):
        assert not tree.fullmatch(other), (tree.pattern, other)
