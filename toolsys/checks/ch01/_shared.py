"""The tools exercises 1.1 and 1.3 dispatch to, the calls made of them, and how to decode them.

The names are ones no if/else chain written for the lesson knows, and the tools return every
kind of JSON value (text, numbers, a dict, a bool, None) and fail in the ways the exercises name.
"""

from __future__ import annotations

import builtins
import copy
import json
import keyword
import random
from collections.abc import Callable
from typing import Any


def _shout(text: str) -> str:
    return text.upper() + "!"


def _count_words(text: str) -> int:
    return len(text.split())


def _word_stats(text: str) -> dict[str, Any]:
    words = text.split()
    return {"words": len(words), "longest": max(words, key=len)}


def _is_palindrome(text: str) -> bool:
    return text == text[::-1]


def _forget(note: str) -> None:
    return None


def _today() -> str:
    return "2025-01-15"


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise ValueError("b must not be 0")
    return a / b


def _colour_code(colour: str) -> str:
    return {"red": "#ff0000", "green": "#00ff00"}[colour]


def tool_table() -> dict[str, Callable[..., Any]]:
    return {
        "shout": _shout,
        "count_words": _count_words,
        "word_stats": _word_stats,
        "is_palindrome": _is_palindrome,
        "forget": _forget,
        "today": _today,
        "divide": _divide,
        "colour_code": _colour_code,
    }


def noting_table() -> tuple[dict[str, Callable[..., Any]], list[str]]:
    """A table with one tool that acts (it files a note), and the notes it has filed.

    Dispatching one call must run the tool once: a tool books a table or sends a mail, and a
    dispatcher that calls it twice does it twice.
    """
    notes: list[str] = []

    def file_note(text: str) -> str:
        notes.append(text)
        return f"note {len(notes)} filed"

    return {**tool_table(), "file_note": file_note}, notes


# name, arguments, what the tool returns
CALLS: list[tuple[str, Any, Any]] = [
    ("shout", {"text": "hello"}, "HELLO!"),
    ("shout", {"text": "  hello there "}, "  HELLO THERE !"),  # the arguments as they came
    ("count_words", '{"text": "one two three"}', 3),
    ("word_stats", {"text": "a bb ccc"}, {"words": 3, "longest": "ccc"}),
    ("is_palindrome", '{"text": "level"}', True),
    ("forget", {"note": "x"}, None),
    ("forget", {"note": None}, None),  # None is a value: passed on, not dropped
    ("today", None, "2025-01-15"),
    ("today", "", "2025-01-15"),
    ("today", "{}", "2025-01-15"),
    ("divide", {"a": 1, "b": 4}, 0.25),
    ("divide", '{"b": 4, "a": 1}', 0.25),  # keys in another order than the parameters
]


def decode_arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        return json.loads(arguments)
    return dict(arguments)


# --- the differential inputs of 1.1 and 1.3 ---------------------------------------------------
#
# A generated table is plain data, shown as it is in a failure: {tool name: what the tool does},
# where what it does is one of
#   ("echo",)                    def tool(**arguments): return arguments
#   ("returns", value)           def tool(): return value         (it takes no arguments)
#   ("takes", "a", "b=None")     def tool(a, b=None): return [a, b]
#   ("raises", "KeyError", "m")  def tool(**arguments): raise KeyError("m")
# and the call is (table, name, arguments): a name of the table or one it does not have (another
# letter case, a space around it, a near miss), and arguments as a dict or as JSON text (any
# spelling: escaped or not, indented, spaces around) of right, missing or extra arguments, or
# None or "" for none.
#
# Left out, where the package's reference and the exercise text part ways or the text is silent:
# text of only spaces (the reference reads "  " as no arguments, the text names only None and
# ""); JSON text that is not an object ("[1]", "null": the text promises JSON objects); and a
# result json.dumps cannot write (a set: 1.3's text does not say what it gives).

_RAISED = ("KeyError", "ValueError", "TypeError", "ZeroDivisionError", "RuntimeError")
# What an exception's message is made of in the generated tools: no quotes, backslashes or
# control characters, so the message reads the same in str(exc), repr(exc) and exc.args[0].
_MESSAGE = "abcxyz019 _-.éßİ中🙂ש\u0301ñ"


def _identifier(rng: random.Random, size: int, taken: set[str]) -> str:
    from toolsys.checks._differential import name

    made = name(rng, min(size, 6))
    while keyword.iskeyword(made) or made in taken:
        made += "_"
    return made


def _what_it_does(rng: random.Random, size: int) -> tuple[Any, ...]:
    from toolsys.checks._differential import plain, text

    pick = rng.randrange(4)
    if pick == 0:
        return ("echo",)
    if pick == 1:
        return ("returns", text(rng, size) if rng.random() < 0.3 else plain(rng, size))
    if pick == 2:
        taken: set[str] = set()
        parameters: list[str] = []
        for _ in range(rng.randint(0, 3)):
            parameter = _identifier(rng, size, taken)
            taken.add(parameter)
            parameters.append(parameter)
        first = len(parameters) - rng.randint(0, len(parameters))  # these on have a default
        return ("takes", *parameters[:first], *(f"{p}=None" for p in parameters[first:]))
    return ("raises", rng.choice(_RAISED), text(rng, size, _MESSAGE, least=1))


def build_tool(does: tuple[Any, ...]) -> Callable[..., Any]:
    """The function a generated table's entry describes (see above), named `tool`."""
    kind = does[0]
    if kind == "echo":

        def tool(**arguments: Any) -> Any:
            return arguments

    elif kind == "returns":
        value = copy.deepcopy(does[1])

        def tool() -> Any:  # type: ignore[misc]
            return copy.deepcopy(value)

    elif kind == "raises":
        error = getattr(builtins, does[1])

        def tool(**arguments: Any) -> Any:
            raise error(does[2])

    else:
        names = [parameter.partition("=")[0] for parameter in does[1:]]
        source = f"def tool({', '.join(does[1:])}):\n    return [{', '.join(names)}]\n"
        namespace: dict[str, Any] = {}
        # the check's own source, of identifiers it generated: never student input
        exec(compile(source, "<check 1.1 tool>", "exec", dont_inherit=True), namespace)
        return namespace["tool"]
    tool.__qualname__, tool.__module__ = "tool", "builtins"  # errors say tool(), as written
    return tool


def build_table(spec: dict[str, tuple[Any, ...]]) -> dict[str, Callable[..., Any]]:
    return {name: build_tool(does) for name, does in spec.items()}


def on_table(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` (a dispatcher) on the real table a generated one describes."""

    def run(spec: dict[str, Any], name: str, arguments: Any) -> Any:
        return func(build_table(spec), name, arguments)

    return run


def _arguments_for(rng: random.Random, size: int, does: tuple[Any, ...] | None) -> dict[str, Any]:
    from toolsys.checks._differential import mapping, plain, text

    if does is None or does[0] in ("echo", "raises"):
        return mapping(rng, size)
    if does[0] == "returns":
        return {} if rng.random() < 0.8 else {text(rng, 4, least=1): plain(rng, size)}
    names = [parameter.partition("=")[0] for parameter in does[1:]]
    required = [parameter for parameter in does[1:] if "=" not in parameter]
    chosen = required + [n for n in names if n not in required and rng.random() < 0.5]
    pick = rng.randrange(8)
    if pick == 0 and required:
        chosen.remove(rng.choice(required))  # one missing: the function's own TypeError
    elif pick == 1:
        chosen.append(_identifier(rng, size, set(names)))  # one it does not take: TypeError
    rng.shuffle(chosen)  # in any order: keyword arguments, not positions
    return {n: plain(rng, size // 2) for n in chosen}


def spelled_arguments(rng: random.Random, arguments: dict[str, Any]) -> Any:
    """`arguments` as a dict, or as JSON text in one of its spellings (None or "" when empty)."""
    pick = rng.randrange(10)
    if not arguments and pick < 3:
        return rng.choice([None, ""])
    if pick < 6:
        return arguments
    written = json.dumps(
        arguments,
        ensure_ascii=rng.random() < 0.5,
        indent=rng.choice([None, None, 2]),
        separators=rng.choice([None, (",", ":")]),
    )
    return rng.choice(["", " ", "\n"]) + written + rng.choice(["", " ", "\n"])


def table_call(rng: random.Random, size: int) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """A generated table, a name to call (in it, mostly) and the arguments, still a dict."""
    from toolsys.checks._differential import text

    spec: dict[str, tuple[Any, ...]] = {}
    for _ in range(rng.randint(1, 4)):
        spec[text(rng, min(size, 8), least=1)] = _what_it_does(rng, size)
    known = rng.choice(list(spec))
    pick = rng.randrange(10)
    if pick < 7:
        name = known
    else:
        name = rng.choice(
            [known.upper(), known.lower(), f"{known} ", f" {known}", known[:-1], f"{known}s"]
        )
        if name in spec:
            name = f"{name}_"
    return spec, name, _arguments_for(rng, size, spec.get(name))


def named(name: str, error: BaseException | str) -> bool:
    """Whether an error (or a text) names `name`: as it is, or escaped as repr, ascii or
    json.dumps write it (what `{name!r}` puts in a message)."""
    from toolsys.checks._plain import text

    said = [error] if isinstance(error, str) else [text(error), *(text(arg) for arg in error.args)]
    spellings = {name, repr(name)[1:-1], ascii(name)[1:-1], json.dumps(name)[1:-1]}
    return any(spelling in part for part in said for spelling in spellings)
