"""Chapter 07 checks reject the careless robustness code a student is likely to write.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`),
or a version written the way seed 002 and common tutorials write it. The references are the
package's own layers, so passing them here also proves that the package passes its own checks.
"""

from __future__ import annotations

import ast
import concurrent.futures
import copy
import hashlib
import json
import threading
from typing import Any

import pytest

from tests.solution_code import answer, swap, verdict
from toolsys.checks import Status
from toolsys.errors import ToolError

# -- 7.1 -------------------------------------------------------------------------------------

_STEP = "step = min(cap, base * 2 ** min(retry - 1, 64))"
_DRAW = "return rng.uniform(0, step)"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([swap(_STEP, "step = base * 2 ** min(retry - 1, 64)")], "more than the cap"),
        ([swap(_DRAW, "return step + rng.uniform(0, base)")], "added on top"),
        ([swap("return min(retry_after, cap)", "return retry_after")], "more than the cap"),
        ([swap("retry_after is not None", "retry_after")], "retry_after=0"),
        ([swap("2 ** min(retry - 1, 64)", "2 ** min(retry, 64)")], "step doubles"),
        ([swap(_DRAW, "return step / 2 + rng.uniform(0, step / 2)")], "whole* wait"),
        ([swap(_DRAW, "return step")], "whole* wait"),
        ([swap(_DRAW, "return random.uniform(0, step)")], "not the random module"),
    ],
    ids=[
        "uncapped-step",
        "jitter-on-top",
        "retry-after-uncapped",
        "retry-after-zero-ignored",
        "off-by-one-exponent",
        "equal-jitter",
        "no-jitter",
        "module-random",
    ],
)
def test_a_wrong_backoff_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("7.1", answer("7.1", *changes)).text()


def test_a_backoff_that_overflows_for_a_large_retry_is_rejected() -> None:
    # "whatever retry is": base * 2 ** 1024 is too large for a float (issue 27)
    unbounded = answer("7.1", swap(_STEP, "step = min(cap, base * 2 ** (retry - 1))"))
    text = verdict("7.1", unbounded).text()
    assert "raised OverflowError" in text and "Bound the exponent" in text
    floats = answer("7.1", swap(_STEP, "step = min(cap, base * 2.0 ** (retry - 1))"))
    assert "Bound the exponent" in verdict("7.1", floats).text()


def test_seed_002s_backoff_exceeds_the_cap_and_is_rejected() -> None:
    def seed_002(retry, base, cap, rng, retry_after=None):  # base * 2^attempt + up to 1 s
        return base * 2 ** (retry - 1) + rng.random()

    assert "Full jitter draws" in verdict("7.1", seed_002).text()


# -- 7.2 -------------------------------------------------------------------------------------

_SAFE = "retryable and (idempotent or bool(key))"
_RETRYABLE_TRUE = "result.get('error', {}).get('retryable') is True"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap(_SAFE, "retryable"), "A write without a key must not be repeated"),
        (swap(_SAFE, "(idempotent or bool(key))"), "fails the same way"),
        (swap("attempt >= max_attempts", "attempt > max_attempts"), "counts every attempt"),
        (swap("bool(key)", "key is not None"), "empty string is no key"),
        (
            swap(_RETRYABLE_TRUE, "result.get('error', {}).get('retryable', True) is True"),
            "has not said",
        ),
        (
            swap(_RETRYABLE_TRUE, "result.get('error', {}).get('retryable') not in (None, False)"),
            "`is True`",
        ),
    ],
    ids=[
        "retries-unkeyed-writes",
        "retries-non-retryable",
        "one-attempt-too-many",
        "empty-key-counts",
        "missing-flag-means-yes",
        "truthy-string-counts",
    ],
)
def test_a_wrong_gate_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("7.2", answer("7.2", change)).text()


def test_a_gate_that_retries_every_exception_is_rejected() -> None:
    def every_failure(result, attempt, max_attempts, idempotent, key):
        return result["ok"] is False and attempt < max_attempts

    assert "fails the same way" in verdict("7.2", every_failure).text()


# -- 7.3 -------------------------------------------------------------------------------------

_KEY = 'return f"{run_id}:{tool}:{digest[:32]}"'


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([swap(_KEY, 'return f"{run_id}:{call_id}"')], "new call_id"),
        ([swap(_KEY, 'return f"{run_id}:{tool}:{call_id}:{digest[:32]}"')], "new call_id"),
        (
            [
                swap(
                    "json.dumps([tool, arguments], sort_keys=True, separators=(',', ':'))",
                    "json.dumps([tool, arguments], separators=(',', ':'))",
                )
            ],
            "sort_keys=True",
        ),
        ([swap(_KEY, 'return f"{tool}:{digest[:32]}"')], "put the run id in the key"),
        (
            [
                swap("[tool, arguments]", "arguments"),
                swap(_KEY, 'return f"{run_id}:{digest[:32]}"'),
            ],
            "put the tool name in the key",
        ),
        ([swap(_KEY, 'return f"{run_id}:{canonical}"')], "1 to 255 characters"),
    ],
    ids=[
        "tool-call-id",
        "tool-call-id-and-arguments",
        "unsorted-keys",
        "no-run-id",
        "no-tool-name",
        "not-hashed",
    ],
)
def test_a_wrong_key_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("7.3", answer("7.3", *changes)).text()


def test_a_key_that_sorts_only_the_top_level_is_rejected() -> None:
    def top_level_only(run_id, call_id, tool, arguments):
        text = json.dumps([tool, sorted(arguments.items())])
        return f"{run_id}:{hashlib.sha256(text.encode()).hexdigest()}"

    assert "at every depth" in verdict("7.3", top_level_only).text()


def test_the_tool_call_id_alone_is_rejected_as_a_key() -> None:
    assert "new call_id" in verdict("7.3", lambda run, call_id, tool, args: call_id).text()


# -- 7.4 -------------------------------------------------------------------------------------


def _replayed_false(tree: ast.Module) -> None:
    """The replay of a stored envelope says replayed False (a change of the syntax tree)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and None in node.keys:  # {**stored, "replayed": True}
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "replayed":
                    value.value = False  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap("store[key]['fingerprint'] != fingerprint", "False"), "one key names one call"),
        (swap("json.dumps(arguments, sort_keys=True)", "json.dumps(arguments)"), "another order"),
        (swap("exc.retryable", "False"), "nothing happened"),
        (
            swap(
                "envelope = {'ok': False, 'error': {'code': 'EXECUTION_ERROR', 'message': ...}}",
                "return {'replayed': False, 'ok': False, "
                "'error': {'code': 'EXECUTION_ERROR', 'message': message}}",
            ),
            "only the reply was lost",
        ),
        (swap("exc.retryable", "True"), "is an outcome too"),
        (
            _replayed_false,
            "replayed True",
        ),
        (swap('message = f"{type(exc).__name__}: {exc}"', "message = str(exc)"), "TimeoutError"),
        (
            swap(
                "f'The key {key!r} was already used for other arguments; not run again.'",
                "'This key was already used for other arguments; not run again.'",
            ),
            "'k-1'",
        ),
    ],
    ids=[
        "no-fingerprint",
        "order-sensitive-fingerprint",
        "retryable-failure-stored",
        "failures-forgotten",
        "tool-errors-forgotten",
        "replay-not-flagged",
        "exception-type-missing",
        "key-not-named",
    ],
)
def test_a_wrong_store_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("7.4", answer("7.4", change)).text()


_GLOBAL: dict[str, Any] = {}


def test_a_store_kept_in_a_global_is_rejected() -> None:
    solution = answer("7.4")
    _GLOBAL.clear()

    def global_store(store, key, arguments, run):
        return solution(_GLOBAL, key, arguments, run)

    assert "not in a global" in verdict("7.4", global_store).text()


def test_a_store_keyed_by_the_arguments_is_rejected() -> None:
    solution = answer("7.4")

    def by_arguments(store, key, arguments, run):
        return solution(store, json.dumps(arguments, sort_keys=True), arguments, run)

    assert "one key names one call" in verdict("7.4", by_arguments).text()


def test_a_store_that_lets_an_exception_escape_is_rejected() -> None:
    narrow = answer("7.4", swap("Exception", "ArithmeticError"))
    assert "raised TimeoutError" in verdict("7.4", narrow).text()


# -- 7.5 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap("worker.join(seconds)", "worker.join()"), "waited for the function"),
        (swap("idempotent", "True"), "retryable = idempotent"),
        (
            swap(
                "threading.Thread(target=work, daemon=True)",
                "threading.Thread(target=work, daemon=False)",
            ),
            "a thread that is not a daemon",
        ),
        (swap("worker.is_alive()", "'value' not in outcome"), "not a timeout"),
        (
            swap("{'side_effects': 'unknown'}", "{'side_effects': 'none'}"),
            "side effects are unknown",
        ),
        (
            swap(
                "{'ok': False, 'abandoned_thread': True, 'error': error}",
                "{'ok': False, 'error': error}",
            ),
            "abandoned",
        ),
    ],
    ids=[
        "waits-for-the-thread",
        "always-retryable",
        "not-a-daemon",
        "exception-as-timeout",
        "claims-no-side-effects",
        "abandoned-thread-unsaid",
    ],
)
def test_a_wrong_deadline_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("7.5", answer("7.5", change)).text()


def test_a_deadline_that_takes_none_for_no_answer_is_rejected() -> None:
    def none_is_timeout(fn, seconds, idempotent):
        box = [None]
        worker = threading.Thread(target=lambda: box.__setitem__(0, fn()), daemon=True)
        worker.start()
        worker.join(seconds)
        if box[0] is None:
            error = {"code": "TIMEOUT", "message": "no answer", "retryable": idempotent}
            return {"ok": False, "abandoned_thread": True, "error": error}
        return {"ok": True, "value": box[0]}

    assert "None is a value" in verdict("7.5", none_is_timeout).text()


def _awaited(future, seconds, idempotent, message="still running"):
    """The envelope a deadline answer builds from a pool's future: its value, TIMEOUT, or the
    failure."""
    try:
        return {"ok": True, "value": future.result(timeout=seconds)}
    except concurrent.futures.TimeoutError:
        error = {
            "code": "TIMEOUT",
            "message": message,
            "retryable": idempotent,
            "details": {"side_effects": "unknown"},
        }
        return {"ok": False, "abandoned_thread": True, "error": error}
    except Exception as exc:
        error = {"code": "EXECUTION_ERROR", "message": f"{type(exc).__name__}: {exc}"}
        return {"ok": False, "error": error}


def test_a_deadline_inside_a_thread_pool_block_is_rejected() -> None:
    def pooled(fn, seconds, idempotent):
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return _awaited(pool.submit(fn), seconds, idempotent)

    text = verdict("7.5", pooled).text()
    assert "a thread that is not a daemon" in text or "waited for the function" in text


def test_a_deadline_that_runs_the_function_inline_is_rejected() -> None:
    def inline(fn, seconds, idempotent):
        try:
            return {"ok": True, "value": fn()}
        except Exception as exc:
            error = {"code": "EXECUTION_ERROR", "message": f"{type(exc).__name__}: {exc}"}
            return {"ok": False, "error": error}

    assert "the caller's own thread" in verdict("7.5", inline).text()


# -- defects found by the held-out trial and the mutants (issue 27) ---------------------------


def test_a_gate_that_reads_retryable_1_as_true_is_rejected() -> None:
    equal_true = answer(
        "7.2", swap(_RETRYABLE_TRUE, "result.get('error', {}).get('retryable') == True")
    )
    assert "1 == True" in verdict("7.2", equal_true).text()


def test_a_key_that_glues_run_and_tool_together_is_rejected() -> None:
    def glued(run_id, call_id, tool, arguments):
        text = run_id + tool + json.dumps(arguments, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    assert "glued together" in verdict("7.3", glued).text()


def test_a_key_that_sorts_lists_too_is_rejected() -> None:
    def sorted_lists(run_id, call_id, tool, arguments):
        def canonical(value):
            if isinstance(value, dict):
                return {key: canonical(item) for key, item in value.items()}
            if isinstance(value, list):
                items = [canonical(item) for item in value]
                return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
            return value

        text = json.dumps([run_id, tool, canonical(arguments)], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    assert "never the items of lists" in verdict("7.3", sorted_lists).text()


def test_a_key_that_drops_non_ascii_characters_is_rejected() -> None:
    def ascii_only(run_id, call_id, tool, arguments):
        text = json.dumps([run_id, tool, arguments], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("ascii", "ignore")).hexdigest()

    assert "Non-ASCII text is text too" in verdict("7.3", ascii_only).text()


def test_a_key_that_cannot_encode_non_ascii_text_is_rejected() -> None:
    def ascii_codec(run_id, call_id, tool, arguments):
        text = json.dumps([run_id, tool, arguments], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    assert "UnicodeEncodeError" in verdict("7.3", ascii_codec).text()


def test_a_worker_that_only_inherits_the_daemon_flag_is_rejected() -> None:
    # check() runs on a daemon thread: before issue 27 this answer passed there.
    inherited = answer(
        "7.5", swap("threading.Thread(target=work, daemon=True)", "threading.Thread(target=work)")
    )
    assert "a thread that is not a daemon" in verdict("7.5", inherited).text()


def test_a_deadline_on_a_thread_pool_left_open_is_rejected() -> None:
    def pool_left_open(fn, seconds, idempotent):
        future = concurrent.futures.ThreadPoolExecutor(1).submit(fn)
        return _awaited(future, seconds, idempotent, "still running, cannot be stopped")

    assert "ThreadPoolExecutor's workers are not daemons" in verdict("7.5", pool_left_open).text()


def test_a_deadline_that_waits_twice_as_long_as_allowed_is_rejected() -> None:
    late = answer("7.5", swap("worker.join(seconds)", "worker.join(seconds + 2)"))
    assert "it must return at the deadline" in verdict("7.5", late).text()


def test_an_exception_reported_as_an_abandoned_thread_is_rejected() -> None:
    abandoned = answer(
        "7.5",
        swap(
            "{'ok': False, 'error': {'code': 'EXECUTION_ERROR', 'message': message}}",
            "{'ok': False, 'abandoned_thread': True, "
            "'error': {'code': 'EXECUTION_ERROR', 'message': message}}",
        ),
    )
    assert "nothing was abandoned" in verdict("7.5", abandoned).text()


def test_a_timeout_with_an_empty_message_is_rejected() -> None:
    silent = answer(
        "7.5",
        swap(
            "{'code': 'TIMEOUT', 'message': message, 'retryable': idempotent, 'details': ...}",
            "{'code': 'TIMEOUT', 'message': '', 'retryable': idempotent, 'details': {}}",
        ),
    )
    assert "should say TIMEOUT" in verdict("7.5", silent).text()


# -- correct answers written differently pass ------------------------------------------------


def test_a_backoff_written_another_way_passes() -> None:
    def retry_delay(retry, base, cap, rng, retry_after=None):
        if retry_after is None:
            return rng.random() * (cap if retry > 100 else min(base * 2 ** (retry - 1), cap))
        return retry_after if retry_after < cap else cap

    verdict("7.1", retry_delay, Status.PASSED)


def test_a_gate_written_another_way_passes() -> None:
    def may_retry(result, attempt, max_attempts, idempotent, key):
        if result.get("ok", True) or attempt + 1 > max_attempts:
            return False
        error = result.get("error") or {}
        safe = idempotent is True or (isinstance(key, str) and len(key) > 0)
        return error.get("retryable", False) is True and safe

    verdict("7.2", may_retry, Status.PASSED)


def test_a_key_written_another_way_passes() -> None:
    def call_key(run_id, call_id, tool, arguments):
        blob = json.dumps({"run": run_id, "tool": tool, "args": arguments}, sort_keys=True)
        return "idem-" + hashlib.blake2b(blob.encode("utf-8"), digest_size=20).hexdigest()

    verdict("7.3", call_key, Status.PASSED)


def test_a_store_written_another_way_passes() -> None:
    from toolsys import ToolError

    def run_once(store, key, arguments, run):
        seen = json.dumps(arguments, sort_keys=True)
        if key in store:
            first_arguments, envelope = store[key]
            if first_arguments != seen:
                error = {"code": "IDEMPOTENCY_KEY_REUSED", "message": f"{key} names another call"}
                return {"ok": False, "error": error, "replayed": False}
            return dict(copy.deepcopy(envelope), replayed=True)
        try:
            envelope = {"ok": True, "value": run()}
        except ToolError as exc:
            envelope = {"ok": False, "error": {"code": exc.code, "message": exc.message}}
            if not exc.retryable:
                store[key] = (seen, envelope)
            return dict(copy.deepcopy(envelope), replayed=False)
        except Exception as exc:
            message = f"{exc.__class__.__name__} ({exc})"
            envelope = {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": message}}
        store[key] = (seen, envelope)
        return dict(copy.deepcopy(envelope), replayed=False)

    verdict("7.4", run_once, Status.PASSED)


def test_a_deadline_written_another_way_passes() -> None:
    def with_deadline(fn, seconds, idempotent):
        box: dict[str, Any] = {}
        done = threading.Event()

        def work():
            try:
                box["value"] = fn()
            except Exception as exc:
                box["error"] = f"{type(exc).__name__}: {exc}"
            finally:
                done.set()

        threading.Thread(target=work, name="deadline", daemon=True).start()
        if not done.wait(seconds):
            return {
                "ok": False,
                "abandoned_thread": True,
                "error": {
                    "code": "TIMEOUT",
                    "message": "Still running after the deadline; it cannot be stopped and may "
                    "still take effect.",
                    "retryable": bool(idempotent),
                    "details": {"side_effects": "unknown"},
                },
            }
        if "error" in box:
            return {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": box["error"]}}
        return {"ok": True, "value": box["value"]}

    verdict("7.5", with_deadline, Status.PASSED)


def test_a_deadline_that_calls_the_function_twice_is_rejected() -> None:
    twice = answer("7.5", swap('outcome["value"] = fn()', 'fn()\noutcome["value"] = fn()'))
    assert "a tool that writes must not run twice" in verdict("7.5", twice).text()


def test_a_deadline_that_catches_only_value_errors_is_rejected() -> None:
    narrow = answer(
        "7.5",
        swap(
            "try:\n    outcome['value'] = fn()\n"
            "except Exception as exc:\n    outcome['error'] = exc",
            "try:\n    outcome['value'] = fn()\n"
            "except ValueError as exc:\n    outcome['error'] = exc",
        ),
    )
    assert "raised KeyError" in verdict("7.5", narrow).text()


# -- defects found by the student-adversary (issue 27, adv2) ---------------------------------


def test_a_key_cut_to_255_characters_is_rejected() -> None:
    def truncated(run_id, call_id, tool, arguments):
        return f"{run_id}:{tool}:{json.dumps(arguments, sort_keys=True)}"[:255]

    text = verdict("7.3", truncated).text()
    assert "gave the same key" in text and "differ only after character 255" in text
    assert "(300 characters)" in text  # the long arguments shown short


def test_a_key_from_the_salted_builtin_hash_is_rejected() -> None:
    def salted(run_id, call_id, tool, arguments):
        return f"{run_id}:{tool}:{hash(json.dumps(arguments, sort_keys=True)) & 0xFFFFFFFF:x}"

    def salted_tuple(run_id, call_id, tool, arguments):
        return str(hash((run_id, tool, json.dumps(arguments, sort_keys=True))))

    for wrong in (salted, salted_tuple):
        text = verdict("7.3", wrong).text()
        assert "built-in hash()" in text and "kernel restart" in text and "hashlib" in text


def test_a_key_with_hashlib_and_the_hash_of_a_number_passes() -> None:
    def numbered(run_id, call_id, tool, arguments):
        text = json.dumps([run_id, tool, arguments], sort_keys=True)
        return f"{hash(len(text))}:{hashlib.sha256(text.encode()).hexdigest()}"

    verdict("7.3", numbered, Status.PASSED)


def _store_by_reference(store, key, arguments, run):
    if key in store:
        kept, envelope = store[key]
        if kept != arguments:
            error = {"code": "IDEMPOTENCY_KEY_REUSED", "message": f"key {key!r} reused"}
            return {"ok": False, "error": error, "replayed": False}
        return {**copy.deepcopy(envelope), "replayed": True}
    try:
        envelope = {"ok": True, "value": run()}
    except ToolError as exc:
        envelope = {"ok": False, "error": {"code": exc.code, "message": exc.message}}
        if exc.retryable:
            return {**envelope, "replayed": False}
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        envelope = {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": message}}
    store[key] = (arguments, envelope)
    return {**copy.deepcopy(envelope), "replayed": False}


def test_a_store_that_keeps_the_callers_arguments_dict_is_rejected() -> None:
    text = verdict("7.4", _store_by_reference).text()
    assert "IDEMPOTENCY_KEY_REUSED" in text and "never the caller's dict itself" in text


def test_a_store_that_keeps_a_shallow_copy_of_the_arguments_is_rejected() -> None:
    def shallow(store, key, arguments, run):
        return _store_by_reference(store, key, dict(arguments), run)

    assert "a nested value" in verdict("7.4", shallow).text()


def test_a_store_that_hands_out_its_stored_envelope_is_rejected() -> None:
    def shared(store, key, arguments, run):
        fingerprint = json.dumps(arguments, sort_keys=True)
        if key in store:
            if store[key]["fingerprint"] != fingerprint:
                error = {"code": "IDEMPOTENCY_KEY_REUSED", "message": f"key {key!r} reused"}
                return {"ok": False, "error": error, "replayed": False}
            store[key]["envelope"]["replayed"] = True
            return store[key]["envelope"]
        try:
            envelope = {"ok": True, "value": run(), "replayed": False}
        except ToolError as exc:
            error = {"code": exc.code, "message": exc.message}
            envelope = {"ok": False, "error": error, "replayed": False}
            if exc.retryable:
                return envelope
        except Exception as exc:
            error = {"code": "EXECUTION_ERROR", "message": f"{type(exc).__name__}: {exc}"}
            envelope = {"ok": False, "error": error, "replayed": False}
        store[key] = {"fingerprint": fingerprint, "envelope": envelope}
        return envelope

    text = verdict("7.4", shared).text()
    assert "changed by the caller" in text and "never the stored envelope or its error dict" in text


def test_a_store_that_copies_what_it_keeps_and_returns_passes() -> None:
    def copies(store, key, arguments, run):
        if key in store:
            kept, envelope = store[key]
            if kept != arguments:
                error = {"code": "IDEMPOTENCY_KEY_REUSED", "message": f"key {key!r} reused"}
                return {"ok": False, "error": error, "replayed": False}
            return dict(copy.deepcopy(envelope), replayed=True)
        try:
            envelope = {"ok": True, "value": run()}
        except ToolError as exc:
            envelope = {"ok": False, "error": {"code": exc.code, "message": exc.message}}
            if exc.retryable:
                return dict(envelope, replayed=False)
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            envelope = {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": message}}
        store[key] = (copy.deepcopy(arguments), envelope)
        return dict(copy.deepcopy(envelope), replayed=False)

    verdict("7.4", copies, Status.PASSED)


_TIMEOUT_ERROR = "{'code': 'TIMEOUT', 'message': message, 'retryable': idempotent, 'details': ...}"


def _saying(message: str) -> Any:
    return swap(
        _TIMEOUT_ERROR,
        f"{{'code': 'TIMEOUT', 'message': {message}, 'retryable': idempotent, "
        "'details': {'side_effects': 'unknown'}}",
    )


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("'Timed out: the call was cancelled and did not happen.'", "claims 'was cancelled'"),
        ("'Timed out. Nothing happened; try again.'", "claims 'Nothing happened'"),
        ("'Timed out; the thread is still there but no side effects.'", "claims 'no side effects'"),
        ("'Timed out.'", "does not say that the call may still be running"),
        ("f'No answer within {seconds} s.'", "does not say that the call may still be running"),
    ],
    ids=["cancelled", "nothing-happened", "no-side-effects", "bare", "seconds-only"],
)
def test_a_timeout_message_that_is_not_honest_is_rejected(message: str, words: str) -> None:
    text = verdict("7.5", answer("7.5", _saying(message))).text()
    assert words in text and "may have taken effect" in text


@pytest.mark.parametrize(
    "message",
    [
        "'Deadline passed; the thread cannot be stopped and may still act.'",
        "'No reply in time: it may have taken effect, or still will.'",
        "'Timed out; the worker thread was abandoned.'",
        "'Timed out; whether the refund was made is not known.'",
    ],
)
def test_an_honest_timeout_message_in_other_words_passes(message: str) -> None:
    verdict("7.5", answer("7.5", _saying(message)), Status.PASSED)


def test_a_shared_thread_pool_first_used_under_the_check_is_rejected() -> None:
    # the pool makes its workers at its first submit: before issue 27 that came from check()'s
    # daemon thread, so the workers were daemons by inheritance and the answer passed
    pool = concurrent.futures.ThreadPoolExecutor(4)

    def shared_pool(fn, seconds, idempotent):
        honest = "No answer; the thread cannot be stopped and may still act."
        return _awaited(pool.submit(fn), seconds, idempotent, honest)

    try:
        assert "a thread that is not a daemon" in verdict("7.5", shared_pool).text()
    finally:
        pool.shutdown(wait=False)


def test_a_deadline_that_joins_twice_is_rejected() -> None:
    twice = answer(
        "7.5",
        swap("worker.join(seconds)", "worker.join(seconds)\nworker.join(seconds)", statements=True),
    )
    text = verdict("7.5", twice).text()
    assert "it must return at the deadline (0.25 s), at once" in text and "second join" in text


def test_a_gate_that_reads_a_retryable_outside_the_error_is_rejected() -> None:
    def top_level_too(result, attempt, max_attempts, idempotent, key):
        said = result.get("retryable") is True or result.get("error", {}).get("retryable") is True
        return (
            result.get("ok") is False
            and attempt < max_attempts
            and said
            and (idempotent or bool(key))
        )

    assert "the error's own" in verdict("7.2", top_level_too).text()


# -- held-out round adv3 (wrong answers nobody had written): each must fail for its real mistake


def test_a_backoff_whose_exponent_bound_is_too_low_is_rejected() -> None:
    # min(retry - 1, 10) cuts a step that has not reached the cap yet (base 1e-06, cap 1e9)
    low = answer("7.1", swap("min(retry - 1, 64)", "min(retry - 1, 10)"))
    assert "Bound the exponent only where the step is past any cap" in verdict("7.1", low).text()


def test_a_backoff_that_draws_before_reading_retry_after_is_rejected() -> None:
    def draws_first(retry, base, cap, rng, retry_after=None):
        jitter = rng.random()
        if retry_after is not None:
            return min(retry_after, cap)
        return jitter * min(cap, base * 2 ** min(retry - 1, 64))

    assert "do not call the rng then" in verdict("7.1", draws_first).text()


def test_a_backoff_that_takes_only_a_float_retry_after_is_rejected() -> None:
    def float_only(retry, base, cap, rng, retry_after=None):
        if isinstance(retry_after, float):
            return min(retry_after, cap)
        return rng.uniform(0, min(cap, base * 2 ** min(retry - 1, 64)))

    assert "an int too" in verdict("7.1", float_only).text()


def test_a_backoff_with_its_own_overflow_bound_passes() -> None:
    def bounded(retry, base, cap, rng, retry_after=None):
        if retry_after is not None:
            return cap if retry_after > cap else retry_after
        step = cap if retry > 1024 else min(cap, base * 2.0 ** (retry - 1))
        return rng.random() * step

    verdict("7.1", bounded, Status.PASSED)


def test_a_gate_that_reads_retryable_as_text_is_rejected() -> None:
    as_text = answer(
        "7.2",
        swap(
            'result.get("error", {}).get("retryable") is True',
            'str(result.get("error", {}).get("retryable")).lower() == "true"',
        ),
    )
    assert "the text 'true' or 'True'" in verdict("7.2", as_text).text()


def test_a_key_over_the_argument_values_alone_is_rejected() -> None:
    def values_only(run_id, call_id, tool, arguments):
        values = [arguments[name] for name in sorted(arguments)]
        text = json.dumps([run_id, tool, values], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    assert "The names of the arguments are part of the call" in verdict("7.3", values_only).text()


def test_a_store_that_hands_out_a_shallow_copy_is_rejected() -> None:
    shallow = answer(
        "7.4",
        swap(
            'return {**copy.deepcopy(store[key]["envelope"]), "replayed": True}',
            'return {**store[key]["envelope"], "replayed": True}',
        ),
        swap(
            'return {**copy.deepcopy(envelope), "replayed": False}',
            'return {**envelope, "replayed": False}',
        ),
    )
    assert "a deep copy" in verdict("7.4", shallow).text()


def test_a_store_that_keeps_a_reused_key_s_arguments_is_rejected() -> None:
    def overwrites(store, key, arguments, run):
        fingerprint = json.dumps(arguments, sort_keys=True)
        if key in store and store[key][0] != fingerprint:
            error = {"code": "IDEMPOTENCY_KEY_REUSED", "message": f"key {key} reused"}
            store[key] = (fingerprint, {"ok": False, "error": error})
            return {"ok": False, "error": dict(error), "replayed": False}
        if key in store:
            return {**copy.deepcopy(store[key][1]), "replayed": True}
        try:
            envelope = {"ok": True, "value": run()}
        except ToolError as exc:
            envelope = {"ok": False, "error": {"code": exc.code, "message": exc.message}}
            if exc.retryable:
                return {**envelope, "replayed": False}
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            envelope = {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": message}}
        store[key] = (fingerprint, envelope)
        return {**copy.deepcopy(envelope), "replayed": False}

    assert "changes nothing" in verdict("7.4", overwrites).text()


def test_a_deadline_that_catches_only_builtin_kinds_is_rejected() -> None:
    def narrow(fn, seconds, idempotent):
        box: dict[str, Any] = {}

        def work():
            try:
                box["value"] = fn()
            except (ValueError, KeyError, TypeError) as exc:
                box["error"] = exc

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(seconds)
        if "error" in box:
            message = f"{type(box['error']).__name__}: {box['error']}"
            return {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": message}}
        if "value" in box:
            return {"ok": True, "value": box["value"]}
        error = {
            "code": "TIMEOUT",
            "message": "No answer; it may still be running and may have taken effect.",
            "retryable": idempotent,
            "details": {"side_effects": "unknown"},
        }
        return {"ok": False, "abandoned_thread": True, "error": error}

    assert "LedgerClosed" in verdict("7.5", narrow).text()
