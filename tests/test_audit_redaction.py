"""A secret in a call's arguments or result appears 0 times in the audit log, however planted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolsys import Category, Registry, ToolError
from toolsys.governance import AuditLog
from toolsys.governance.audit import DEFAULT_REDACT_KEYS, read, verify

ENV_SECRET = "Zq8vR2mK9xT4wL7nB3pF6hJ1"  # generated-looking: secret by shape, wherever it is
PASSWORD = "correct-horse-battery-9"  # an ordinary word: secret only by its key's name
CARD = "4111111111111111"
OPENAI = "sk-" + "proj-a1b2c3d4e5f6g7h8i9"  # split: no key-shaped text is committed
BEARER = "bearer-tok-77aa88bb99cc"
URL_PASSWORD = "s3cretUrlPass"
PIN = "9876"
SECRETS = (ENV_SECRET, PASSWORD, CARD, OPENAI, BEARER, URL_PASSWORD)


def spellings(secret: str) -> set[str]:
    return {secret, json.dumps(secret)[1:-1], json.dumps(json.dumps(secret))[1:-1]}


def assert_absent(path: Path, secrets: tuple[str, ...] = SECRETS) -> None:
    text = path.read_text()
    for secret in secrets:
        for spelling in spellings(secret):
            assert text.count(spelling) == 0, f"{secret!r} leaked into the audit log"
    assert verify(path).ok


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Registry:
    monkeypatch.setenv("ACME_SERVICE_KEY", ENV_SECRET)
    registry = Registry(layers=[AuditLog(tmp_path / "audit.jsonl")])

    @registry.tool(category=Category.WRITE)
    def submit(payload: dict[str, Any]) -> dict[str, Any]:
        """Submit a payload, echoing everything in it back.

        Args:
            payload: Anything.
        """
        return {"echo": payload, "env": ENV_SECRET, "note": f"used {PASSWORD} and {CARD}"}

    @registry.tool(category=Category.WRITE)
    def login(user: str, password: str) -> str:
        """Log in.

        Args:
            user: Who.
            password: Their password.
        """
        raise ToolError("BAD_LOGIN", f"password {password} for {user} was rejected")

    @registry.tool
    def charge(card_number: str, amount: float) -> str:
        """Charge a card.

        Args:
            card_number: The card.
            amount: How much.
        """
        raise RuntimeError(f"card {card_number} declined, key {ENV_SECRET}")

    return registry


NESTED = {
    "user": {"name": "ana", "credentials": {"password": PASSWORD}},
    "items": [{"card_number": CARD, "cvv": "123"}],
    "headers": {"X-Note": f"Bearer {BEARER}"},
    "deep": [[[{"text": f"use {OPENAI} here"}]]],
    "db": f"postgres://admin:{URL_PASSWORD}@db.internal/app",
    "env": f"the key is {ENV_SECRET}",
}


def test_secrets_planted_in_nested_arguments_and_the_result_appear_zero_times(
    registry: Registry, tmp_path: Path
) -> None:
    result = registry.execute("submit", {"payload": NESTED})
    assert result.ok
    assert_absent(tmp_path / "audit.jsonl")
    (record,) = read(tmp_path / "audit.jsonl")
    payload = record["arguments"]["payload"]
    assert payload["user"]["name"] == "ana"
    assert payload["user"]["credentials"] == "[redacted]"
    assert payload["items"][0] == {"card_number": "[redacted]", "cvv": "[redacted]"}


def test_a_secret_argument_echoed_in_the_error_message_is_redacted_there_too(
    registry: Registry, tmp_path: Path
) -> None:
    registry.execute("login", {"user": "ana", "password": PASSWORD})
    registry.execute("charge", {"card_number": CARD, "amount": 3})
    assert_absent(tmp_path / "audit.jsonl")
    login, charge = read(tmp_path / "audit.jsonl")
    assert login["outcome"] == "BAD_LOGIN" and "ana was rejected" in login["message"]
    assert charge["outcome"] == "EXECUTION_ERROR"


def test_secrets_in_arguments_that_fail_validation_or_parsing_are_redacted(
    registry: Registry, tmp_path: Path
) -> None:
    registry.execute("charge", {"card_number": int(CARD), "amount": 3})
    registry.execute("login", {"user": "ana", "password": PASSWORD, "extra": OPENAI})
    registry.execute("login", f'{{"user": "ana", "password": "{PASSWORD}", "otp": ')
    registry.execute("login", f'{{"user": "ana", "password": "{PASSWORD}"}} trailing')
    assert_absent(tmp_path / "audit.jsonl")
    outcomes = [r["outcome"] for r in read(tmp_path / "audit.jsonl")]
    assert outcomes == ["INVALID_ARGUMENTS", "INVALID_ARGUMENTS", "INVALID_JSON", "INVALID_JSON"]


def test_a_secret_in_a_tool_name_or_the_callers_identity_is_redacted(
    registry: Registry, tmp_path: Path
) -> None:
    registry.execute(OPENAI, {})
    registry.execute(f"call {OPENAI}", {})
    registry.execute("submit", {"payload": {}}, context={"user": ENV_SECRET, "roles": [OPENAI]})
    assert_absent(tmp_path / "audit.jsonl")


@pytest.mark.parametrize(
    "key", ["password", "Password", "user_password", "API-KEY", "apiKey", "x_auth_token", "CVV"]
)
def test_keys_naming_a_secret_are_matched_whatever_their_case_and_separators(
    registry: Registry, tmp_path: Path, key: str
) -> None:
    registry.execute("submit", {"payload": {key: "plain-value-7"}})
    (record,) = read(tmp_path / "audit.jsonl")
    assert record["arguments"]["payload"] == {key: "[redacted]"}


def test_the_key_words_are_configurable(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    registry = Registry(layers=[AuditLog(path, redact_keys=[*DEFAULT_REDACT_KEYS, "pin"])])

    @registry.tool
    def unlock(door: str, pin: str) -> str:
        """Unlock.

        Args:
            door: Which door.
            pin: The code.
        """
        return f"door {door} opened with {pin}"

    registry.execute("unlock", {"door": "front", "pin": PIN})
    assert_absent(path, (PIN,))
    assert read(path)[0]["arguments"] == {"door": "front", "pin": "[redacted]"}


def test_redact_keys_given_as_one_string_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="list of key words"):
        AuditLog(tmp_path / "a.jsonl", redact_keys="password")


def test_huge_arguments_are_kept_as_their_size_and_hash(registry: Registry, tmp_path: Path) -> None:
    registry.execute("submit", {"payload": {"blob": "x" * 50_000}})
    (record,) = read(tmp_path / "audit.jsonl")
    assert record["arguments"]["omitted"] == "too long"
    assert record["arguments"]["chars"] > 50_000 and len(record["arguments"]["sha256"]) == 64


def test_a_text_remembered_as_clean_is_redacted_once_it_becomes_a_secret(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = "zebra-crossing-42"
    registry.execute("submit", {"payload": {"note": later}})
    monkeypatch.setenv("LATER_TOKEN", later)
    registry.execute("submit", {"payload": {"note": later}})
    first, second = read(tmp_path / "audit.jsonl")
    assert first["arguments"]["payload"]["note"] == later
    assert second["arguments"]["payload"]["note"] == "[redacted]"


@pytest.mark.parametrize(
    "key",
    ["pin", "card_pin", "pinCode", "otp", "otp_code", "auth", "x-auth", "authCode", "key",
     "sessionKey", "api_key", "session", "session_id", "sessionid", "SessionToken"],
)  # fmt: skip
def test_short_secret_shaped_keys_are_redacted_by_default(
    registry: Registry, tmp_path: Path, key: str
) -> None:
    registry.execute("submit", {"payload": {key: "4821-9930"}})
    (record,) = read(tmp_path / "audit.jsonl")
    assert record["arguments"]["payload"] == {key: "[redacted]"}
    assert "4821-9930" not in (tmp_path / "audit.jsonl").read_text()


@pytest.mark.parametrize(
    "key",
    ["monkey", "keyword", "keys", "spinner", "shipping", "author", "hotpot", "discard",
     "turkey", "lesson", "idempotency_key"],
)  # fmt: skip
def test_innocent_keys_that_contain_a_short_secret_word_are_kept(
    registry: Registry, tmp_path: Path, key: str
) -> None:
    registry.execute("submit", {"payload": {key: "plain text"}})
    (record,) = read(tmp_path / "audit.jsonl")
    assert record["arguments"]["payload"] == {key: "plain text"}


_SCALARS = [
    "ORD-1003",
    "ab",
    "ghp_0123456789abcdefghijklmnopqrstuvwxyz",  # a known token shape
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def",  # a secret shown by its context
    "postgres://u:hunter2hunter2@db/x",
    "caf\u00e9",
    "x" * 300,
    3,
    2**14000,
    1.5,
    float("nan"),
    True,
    None,
    [1, 2],
    {"nested": "ORD-1003"},
]
_KEYS = ["order_id", "password", "api_key", "monkey", "caf\u00e9", "q"]


@pytest.mark.parametrize("key", _KEYS)
@pytest.mark.parametrize("value", _SCALARS, ids=repr)
def test_the_remembered_answer_is_the_full_walks(key: str, value: Any) -> None:
    """`Redactor.prepare` answers flat arguments it has seen from memory (`_remembered`): only
    when the full walk would give the same copy, with nothing found and nothing changed."""
    from toolsys.governance._scrub import Redactor

    redactor = Redactor()
    arguments = {key: value, "limit": 10}
    for _ in range(2):  # the first call remembers, the second may be answered from memory
        plain, _ = redactor.prepare(arguments)
    remembered = redactor._remembered(arguments)
    walked, found, changed = redactor.scrub(arguments)
    if remembered is not None:
        assert not found and not changed
        assert json.dumps(remembered) == json.dumps(walked) == json.dumps(plain)
        assert remembered is not arguments
    secret = key in ("password", "api_key") or value in _SCALARS[2:5]
    if secret or not isinstance(value, str | int | float | None) or value != value:
        assert remembered is None
