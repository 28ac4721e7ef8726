"""Chapter 09 checks reject the hand-written composites, merges, rankers and dispatchers a student
is likely to write.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`),
or a version written the way the lesson's counter-examples are. The references are the package's
own pieces, so passing them here also proves that the package passes its own checks.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Any

import pytest

from tests.solution_code import answer, swap, verdict
from toolsys import Category, ToolError
from toolsys.checks import Status
from toolsys.checks.ch09 import DOCUMENTS
from toolsys.compose import when
from toolsys.injection import Context
from toolsys.search import tokenize
from toolsys.tool import tool_from_function

# -- 9.1 -------------------------------------------------------------------------------------

_WHEN = "when('refund_or_escalate', small, then=registry.get('refund'), otherwise=...)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap('arguments["amount"] <= 100', 'arguments["amount"] < 100'), "100 included"),
        (
            swap(
                _WHEN,
                "when('refund_or_escalate', small, then=registry.get('escalate'), "
                "otherwise=registry.get('refund'))",
            ),
            "at most",
        ),
    ],
    ids=["boundary-excluded", "branches-swapped"],
)
def test_a_wrong_condition_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("9.1", answer("9.1", change)).text()


@pytest.mark.parametrize(
    "docstring", ["the amount is over 100", "amounts above 100", "the amount exceeds 100"]
)
def test_a_docstring_that_says_the_opposite_rule_is_rejected(docstring: str) -> None:
    # Held-out round 5: the model reads "Runs refund when the amount is over 100".
    wrong = answer("9.1", swap('"""the amount is at most 100"""', f'"""{docstring}"""'))
    assert "the opposite of what the condition does" in verdict("9.1", wrong).text()


@pytest.mark.parametrize(
    "docstring",
    ["refund 100 or less", "the amount is not over 100", "amounts up to 100", "amount <= 100"],
)
def test_a_docstring_that_says_the_rule_another_way_passes(docstring: str) -> None:
    right = answer("9.1", swap('"""the amount is at most 100"""', f'"""{docstring}"""'))
    verdict("9.1", right, Status.PASSED)


def test_a_function_that_calls_the_tools_is_not_a_composite() -> None:
    def by_hand(registry):
        def refund_or_escalate(order_id: str, amount: float) -> Any:
            name = "refund" if amount <= 100 else "escalate"
            return registry.execute(name, {"order_id": order_id, "amount": amount}).value

        return refund_or_escalate

    assert "should return a Tool" in verdict("9.1", by_hand).text()


def test_a_hand_chained_tool_reads_as_read() -> None:
    def chained(registry):
        def refund_or_escalate(order_id: str, amount: float) -> Any:
            name = "refund" if amount <= 100 else "escalate"
            return registry.execute(name, {"order_id": order_id, "amount": amount}).value

        return tool_from_function(refund_or_escalate)

    assert "highest of its children" in verdict("9.1", chained).text()


def test_a_hand_chained_tool_that_bypasses_the_layers_is_rejected() -> None:
    def bypass(registry):
        refund, escalate = registry.get("refund"), registry.get("escalate")

        def refund_or_escalate(order_id: str, amount: float) -> Any:
            chosen = refund if amount <= 100 else escalate
            return chosen.fn(order_id=order_id, amount=amount)

        return tool_from_function(refund_or_escalate, category=Category.EXECUTE)

    assert "the calls a layer saw" in verdict("9.1", bypass).text()


def test_a_hand_chained_tool_that_loses_the_inner_error_is_rejected() -> None:
    def lossy(registry):
        def refund_or_escalate(order_id: str, amount: float, ctx: Context) -> Any:
            name = "refund" if amount <= 100 else "escalate"
            caller = {"user": ctx.user, "roles": sorted(ctx.roles)}
            result = registry.execute(
                name, {"order_id": order_id, "amount": amount}, context=caller
            )
            if not result.ok:
                raise RuntimeError("refund failed")
            return result.value

        return tool_from_function(refund_or_escalate, category=Category.EXECUTE)

    assert "passes its child's error on" in verdict("9.1", lossy).text()


# -- 9.2 -------------------------------------------------------------------------------------

_PREFIX_RULE = "not re.fullmatch('[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*', prefix)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap('f"{prefix}__{name}"', 'f"{prefix}_{name}"'), "two underscores"),
        (swap('f"{prefix}__{name}"', 'f"{prefix}.{name}"'), "two underscores"),
        (swap(_PREFIX_RULE, "not prefix"), "accept only letters"),
        (swap(_PREFIX_RULE, "not re.fullmatch('[A-Za-z0-9_-]+', prefix)"), "start or end"),
        (swap("len(name) > 64", "len(name) > 65"), "at most 64"),
        (swap("name in target", "False"), "'billing__refund' is taken"),
    ],
    ids=[
        "single-underscore",
        "dot-separator",
        "prefix-unchecked",
        "prefix-edges-unchecked",
        "length-off-by-one",
        "collision-overwrites",
    ],
)
def test_a_wrong_merge_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("9.2", answer("9.2", change)).text()


def test_a_merge_that_adds_tools_before_it_finds_the_collision_is_rejected() -> None:
    def partial(target, other, prefix):
        if not re.fullmatch(r"[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*", prefix):
            raise ValueError(f"bad prefix {prefix!r}")
        for name, tool in other.items():
            full = f"{prefix}__{name}"
            if len(full) > 64 or full in target:
                raise ValueError(f"{full!r} is taken or too long")
            target[full] = tool

    assert "All or nothing" in verdict("9.2", partial).text()


# -- 9.3 -------------------------------------------------------------------------------------


def test_the_documents_are_already_tokens_so_the_reference_ranks_them_as_given() -> None:
    for terms in DOCUMENTS.values():
        assert tokenize(" ".join(terms)) == terms


_SCORE = "idf * tf * (k1 + 1) / (tf + norm)"
_SORTED = "sorted(scores.items(), key=lambda item: (-item[1], item[0]))"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            swap(
                "math.log(1 + (count - df + 0.5) / (df + 0.5))",
                "math.log((count - df + 0.5) / (df + 0.5))",
            ),
            "still counts",
        ),
        (swap("k1, b = 1.2, 0.75", "k1, b = 1.2, 0.0"), "Check the formula"),
        (swap(_SCORE, "idf * tf"), "Check the formula"),
        (swap("set(query)", "query"), "counts once"),
        (swap("lambda item: (-item[1], item[0])", "lambda item: -item[1]"), "ordered by name"),
        (swap(_SORTED + "[:k]", _SORTED), "at most k"),
        (
            swap(
                "if tf:\n    norm = ...\n    scores[name] = ...",
                "if True:\n    norm = k1 * (1 - b + b * len(terms) / average)\n"
                "    scores[name] = scores.get(name, 0.0) + idf * tf * (k1 + 1) / (tf + norm)",
            ),
            # adv2: the hint spoke of idf; the mistake is the documents that match nothing
            "has none of the query's terms",
        ),
    ],
    ids=[
        "idf-without-one",
        "no-length-normalisation",
        "no-saturation",
        "repeated-query-terms",
        "ties-in-insertion-order",
        "k-ignored",
        "zero-scores-kept",
    ],
)
def test_a_wrong_ranking_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("9.3", answer("9.3", change)).text()


def test_a_ranking_of_the_wrong_shape_is_rejected() -> None:
    def names_only(query, documents, k):
        return sorted(name for name, terms in documents.items() if set(query) & set(terms))[:k]

    assert "(name, score) tuples" in verdict("9.3", names_only).text()


# -- 9.4 -------------------------------------------------------------------------------------

_NOT_LOADED = "name in registry and name not in core and name not in loaded"
_ERROR = "{'code': 'TOOL_NOT_LOADED', 'message': ..., 'suggestion': ..., 'retryable': True}"
_NOT_LOADED_MESSAGE = "f'Tool {name!r} exists but is not loaded in this conversation yet.'"
_SUGGESTION = "'Call search_tools with a few words describing the task first.'"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            swap(_NOT_LOADED, "name not in core and name not in loaded"),
            "returned TOOL_NOT_LOADED; the registry answers UNKNOWN_TOOL",
        ),
        (swap(_NOT_LOADED, "False"), "exists but is not loaded yet"),
        (
            swap(
                _ERROR,
                f"{{'code': 'TOOL_NOT_LOADED', 'message': {_NOT_LOADED_MESSAGE}, "
                f"'suggestion': {_SUGGESTION}, 'retryable': False}}",
            ),
            "exists but is not loaded yet",
        ),
        (swap("loaded.append(hit.name)", "None"), "Append each name found"),
        (swap("hit.name not in core and hit.name not in loaded", "True"), "not appended again"),
        (swap('arguments.get("k", 5)', "5"), "the search_tools envelope"),
        (
            swap('"Call search_tools with a few words describing the task first."', '"Try again."'),
            "suggest calling search_tools",
        ),
    ],
    ids=[
        "unknown-name-not-loaded",
        "no-refusal",
        "not-retryable",
        "search-loads-nothing",
        "duplicates-loaded",
        "k-ignored",
        "no-suggestion",
    ],
)
def test_a_wrong_dispatcher_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("9.4", answer("9.4", change)).text()


def test_a_dispatcher_that_shows_every_tool_is_rejected() -> None:
    solution = answer("9.4")

    def everything(registry, core, loaded, name, arguments):
        if name == "search_tools":
            return solution(registry, core, loaded, name, arguments)
        return registry.execute(name, arguments).to_dict()

    assert "exists but is not loaded yet" in verdict("9.4", everything).text()


# -- defects found by the held-out trial and the mutants (issue 27) ---------------------------


def test_a_composite_whose_inner_calls_lose_the_caller_is_rejected() -> None:
    def anonymous(registry):
        def refund_or_escalate(order_id: str, amount: float) -> Any:
            name = "refund" if amount <= 100 else "escalate"
            result = registry.execute(name, {"order_id": order_id, "amount": amount})
            if not result.ok:
                raise ToolError(str(result.error.code), result.error.message)
            return result.value

        return tool_from_function(refund_or_escalate, category=Category.EXECUTE)

    assert "must carry the caller's context" in verdict("9.1", anonymous).text()


def test_a_composite_with_a_fixed_category_is_rejected() -> None:
    def fixed(registry):
        built = answer("9.1")(registry)
        return dataclasses.replace(built, category=Category.EXECUTE)

    assert "not from a constant" in verdict("9.1", fixed).text()


_DOLLAR = "not re.match('[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$', prefix)"
_ISALNUM = (
    "not prefix.replace('-', '').replace('_', 'a').isalnum() or '__' in prefix"
    " or prefix[0] == '_' or prefix[-1] == '_'"
)


def _returns_target(tree: ast.Module) -> None:
    """include() returns the target after updating it (a change of the syntax tree)."""
    (function,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    function.body.append(ast.Return(ast.Name("target", ast.Load())))
    ast.fix_missing_locations(tree)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            swap(_PREFIX_RULE, "not re.fullmatch('[A-Za-z0-9-]+(_+[A-Za-z0-9-]+)*', prefix)"),
            "Never two '_' in a row",
        ),
        (swap(_PREFIX_RULE, _DOLLAR), "fullmatch"),
        (swap(_PREFIX_RULE, _ISALNUM), "Only ASCII letters"),
        (swap("len(name) > 64", "len(name) >= 64"), "the limit itself, and allowed"),
        (_returns_target, "returns nothing"),
    ],
    ids=["double-underscore", "dollar-before-newline", "isalnum", "64-refused", "returns-target"],
)
def test_a_merge_the_held_out_answers_got_past_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("9.2", answer("9.2", change)).text()


def test_a_merge_that_checks_the_length_while_adding_is_rejected() -> None:
    def half(target, other, prefix):
        answer("9.2")({}, {}, prefix)  # the prefix rules
        incoming = {f"{prefix}__{name}": tool for name, tool in other.items()}
        taken = [full for full in incoming if full in target]
        if taken:
            raise ValueError(f"{taken[0]!r} is already registered")
        for full, tool in incoming.items():
            if len(full) > 64:
                raise ValueError(f"{full!r} is longer than 64 characters")
            target[full] = tool

    assert "a name of 65 characters" in verdict("9.2", half).text()


def test_the_merge_reference_agrees_with_the_exercise_text_on_double_underscores() -> None:
    from toolsys.checks.ch09 import include

    with pytest.raises(ValueError, match="never two in a row"):
        include({}, {"charge": len}, "bill__ing")


def test_a_search_that_leaves_core_tools_out_of_found_is_rejected() -> None:
    solution = answer("9.4")

    def hides_core(registry, core, loaded, name, arguments):
        got = solution(registry, core, loaded, name, arguments)
        if name == "search_tools":
            got["value"]["found"] = [n for n in got["value"]["found"] if n not in core]
        return got

    assert "core ones included" in verdict("9.4", hides_core).text()


def test_a_not_loaded_error_without_a_message_is_rejected() -> None:
    silent = answer(
        "9.4",
        swap(
            _ERROR,
            f"{{'code': 'TOOL_NOT_LOADED', 'suggestion': {_SUGGESTION}, 'retryable': True}}",
        ),
    )
    assert "should have a message" in verdict("9.4", silent).text()


# -- correct answers written differently pass ------------------------------------------------


def test_a_composite_written_another_way_passes() -> None:
    def refund_or_escalate(registry):
        def at_most_100(arguments: dict) -> bool:
            """the amount is 100 or less"""
            return not arguments["amount"] > 100

        refund, escalate = registry.get("refund"), registry.get("escalate")
        return when("refund_or_escalate", at_most_100, refund, escalate)

    verdict("9.1", refund_or_escalate, Status.PASSED)


def test_a_merge_written_another_way_passes() -> None:
    import string

    allowed = set(string.ascii_letters + string.digits + "-")

    def include(target, other, prefix):
        parts = prefix.split("_")
        if not prefix or any(not part or not set(part) <= allowed for part in parts):
            raise ValueError(f"bad prefix {prefix!r}")
        names = {prefix + "__" + name: tool for name, tool in other.items()}
        problems = [n for n in names if len(n) > 64 or n in target]
        if problems:
            raise ValueError(f"cannot add {problems[0]!r}: taken or too long")
        for name, tool in names.items():
            target[name] = tool

    verdict("9.2", include, Status.PASSED)


def test_a_ranking_written_another_way_passes() -> None:
    import math
    from collections import Counter

    def rank(query, documents, k):
        n = len(documents)
        if not n:
            return []
        average = sum(map(len, documents.values())) / n
        df = Counter(term for terms in documents.values() for term in set(terms))
        scored = []
        for name, terms in documents.items():
            counts = Counter(terms)
            score = 0.0
            for term in set(query) & set(counts):
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                tf = counts[term]
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(terms) / average))
            if score:
                scored.append((name, score))
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k] if k > 0 else []

    verdict("9.3", rank, Status.PASSED)


def test_a_dispatcher_written_another_way_passes() -> None:
    def dispatch(registry, core, loaded, name, arguments):
        visible = set(core) | set(loaded)
        if name == "search_tools":
            found = [hit.name for hit in registry.search(arguments["query"], arguments.get("k", 5))]
            loaded.extend(n for n in found if n not in visible and n not in loaded)
            return {"ok": True, "value": {"found": found}}
        if name not in visible and name in registry:
            return {
                "ok": False,
                "error": {
                    "code": "TOOL_NOT_LOADED",
                    "message": f"{name} is not available yet.",
                    "suggestion": "Use search_tools to load it, then call it again.",
                    "retryable": True,
                },
            }
        return registry.execute(name, arguments).to_dict()

    verdict("9.4", dispatch, Status.PASSED)


def test_a_ranking_that_stops_at_the_first_unknown_term_is_rejected() -> None:
    stops = answer("9.3", swap("if df == 0:\n    continue", "if df == 0:\n    break"))
    assert "do not stop" in verdict("9.3", stops).text()


def test_a_condition_that_returns_an_int_is_told_to_return_a_bool() -> None:
    # adv2: the hint spoke of passing the arguments on, not of the condition's 1 or 0.
    wrong = answer(
        "9.1", swap('arguments["amount"] <= 100', '1 if arguments["amount"] <= 100 else 0')
    )
    text = verdict("9.1", wrong).text()
    assert "It gave int, not True or False" in text
    assert "The condition must return a bool" in text


def test_an_allowed_import_refused_with_value_error_is_not_told_never_to_raise() -> None:
    # adv2: "raised ValueError ... It must return None, or raise ValueError, never raise."
    wrong = answer("9.2", swap("len(name) > 64", "len(name) > 63"))
    text = verdict("9.2", wrong).text()
    assert "This import is allowed: it should add the tools to target and return None" in text
    assert "never raise" not in text


def test_a_ranking_that_counts_a_term_once_per_document_is_told_about_tf() -> None:
    # adv2: tf as 0 or 1 got the hint about idf.
    wrong = answer("9.3", swap("terms.count(term)", "min(1, terms.count(term))"))
    assert "tf is how many times the term appears" in verdict("9.3", wrong).text()


def test_a_condition_without_a_docstring_is_rejected() -> None:
    # adv2: a lambda passed; the composite's description then said "its condition holds".
    def refund_or_escalate(registry):
        return when(
            "refund_or_escalate",
            lambda arguments: arguments["amount"] <= 100,
            then=registry.get("refund"),
            otherwise=registry.get("escalate"),
        )

    text = verdict("9.1", refund_or_escalate).text()
    assert "'Runs refund when its condition holds, else escalate.'" in text
    assert "from the condition's docstring" in text


# -- held-out round adv3 (wrong answers nobody had written): each must fail for its real mistake


def test_a_composite_whose_docstring_does_not_say_the_limit_is_rejected() -> None:
    vague = answer("9.1", swap('"""the amount is at most 100"""', '"""refund small amounts"""'))
    assert "the number included" in verdict("9.1", vague).text()


def test_a_ranking_that_divides_by_no_documents_is_rejected() -> None:
    no_guard = answer("9.3", swap("if count == 0: return []", ""))
    assert "No documents is no match" in verdict("9.3", no_guard).text()
