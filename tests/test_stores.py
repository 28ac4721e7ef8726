"""Idempotency stores: atomic claims, owned finishes, expiry, and SQLite across restarts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from toolsys.stores import MemoryStore, SQLiteStore, Store

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "calls.db")


def test_a_claim_is_taken_once_then_finished_and_found(store: Store) -> None:
    assert store.claim("k", "fp", "t1", 100.0, 200.0) is None
    busy = store.claim("k", "fp", "t2", 101.0, 201.0)
    assert busy is not None and busy.state == "in_flight" and busy.token == "t1"
    assert store.finish("k", "t1", '{"ok": true, "value": 1}', 102.0, 300.0)
    done = store.get("k", 103.0)
    assert done is not None and (done.state, done.result, done.updated_at) == (
        "done",
        '{"ok": true, "value": 1}',
        102.0,
    )
    assert done.created_at == 100.0 and done.expires_at == 300.0


def test_only_the_claim_that_holds_a_key_can_finish_or_release_it(store: Store) -> None:
    store.claim("k", "fp", "mine", 0.0, 100.0)
    assert not store.finish("k", "other", "{}", 1.0, 100.0)
    assert not store.release("k", "other")
    assert store.release("k", "mine")
    assert store.get("k", 1.0) is None
    assert not store.finish("k", "mine", "{}", 2.0, 100.0)  # a late finish after the release


def test_an_expired_key_is_forgotten_and_can_be_claimed_again(store: Store) -> None:
    store.claim("k", "fp", "t1", 0.0, 10.0)
    assert store.get("k", 10.0) is None
    assert store.claim("k", "fp2", "t2", 10.0, 20.0) is None
    record = store.get("k", 11.0)
    assert record is not None and record.fingerprint == "fp2"


def test_delete_forgets_a_key_in_any_state(store: Store) -> None:
    store.claim("k", "fp", "t", 0.0, 10.0)
    assert store.delete("k") and not store.delete("k")


def claim_together(stores: list[Store]) -> list[str]:
    """Every store claims the same key at the same moment; the tokens that won."""
    start = threading.Barrier(len(stores))
    wins: list[str] = []

    def claim(store: Store, token: str) -> None:
        start.wait()
        if store.claim("k", "fp", token, 0.0, 10.0) is None:
            wins.append(token)

    threads = [threading.Thread(target=claim, args=(s, f"t{i}")) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return wins


def test_of_many_concurrent_claims_exactly_one_wins(tmp_path: Path) -> None:
    connections: list[Store] = [SQLiteStore(tmp_path / "race.db") for _ in range(8)]
    assert len(claim_together(connections)) == 1  # 8 connections, as 8 processes would have
    assert len(claim_together([MemoryStore()] * 8)) == 1


CHILD = textwrap.dedent(
    """
    import json, sys
    from toolsys import Category, Registry
    from toolsys.layers import Idempotency
    from toolsys.stores import SQLiteStore

    db, effects = sys.argv[1], sys.argv[2]
    registry = Registry(layers=[Idempotency(SQLiteStore(db))])

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str) -> dict:
        '''Refund an order.

        Args:
            order_id: The order.
        '''
        with open(effects, "a") as f:
            f.write(order_id + "\\n")
        return {"refunded": order_id, "pid": __import__("os").getpid()}

    result = registry.execute("refund", {"order_id": "A-7"}, idempotency_key="run-7:call_abc")
    print(json.dumps({"message": result.to_message(), "replayed": result.meta["replayed"]}))
    """
)


def test_sqlite_store_survives_a_process_restart(tmp_path: Path) -> None:
    db, effects = tmp_path / "calls.db", tmp_path / "effects.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(db), str(effects)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        )
        return json.loads(done.stdout)

    first, second = run(), run()
    assert first["replayed"] is False and second["replayed"] is True
    assert effects.read_text() == "A-7\n"  # the second process did not refund again
    original = str(first["message"])
    assert str(second["message"]).startswith(original[:-1] + ', "notice": ')


def test_a_store_that_cannot_be_opened_says_where_and_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="check that the folder exists"):
        SQLiteStore(tmp_path / "missing" / "calls.db")
