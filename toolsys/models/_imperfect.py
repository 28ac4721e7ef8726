"""Imperfect mode: the mistakes real models make, at rates that depend on the schema.

Six mistakes, each with a base rate (override any with `OfflineModel(rates={...})`) and a
formula that lowers it when the schema gives the model what it needs:

| mistake            | base | hits                    | effective rate                            |
|--------------------|------|-------------------------|-------------------------------------------|
| `number_as_string` | 0.15 | each number argument    | base × (0.5 if the parameter is described)|
| `freeform_date`    | 0.6  | each date argument      | base × (0.25 if the description states    |
|                    |      |                         | the format: "YYYY-MM-DD", "ISO 8601")     |
|                    |      |                         | × (0.25 if `format: date`/`date-time`)    |
|                    |      |                         | × (0.5 if it shows an example: "e.g.")    |
| `invented_enum`    | 0.3  | each argument with      | base × (0.1 if a JSON `enum`; 1 if the    |
|                    |      | allowed values          | values are only listed in the description)|
| `missing_required` | 0.12 | each required argument  | base × (0.25 if the parameter is described|
| `misspelled_tool`  | 0.04 | each call               | base × len(tool name) / 10                |
| `malformed_json`   | 0.03 | each call               | base × (1 + 0.25 × number of arguments)   |

Every rate is capped at 1. Mistakes are drawn independently with a seeded `random.Random`, only
on a task's first attempt (a retry applies the fix the error message asked for). The chance that
a first call is entirely right is the product of (1 - rate) over what applies:
`first_call_success` computes it, so chapter 05 can plot design against expected success.

The table above is declared once, as data (`BASE_RATES`, `HITS`, the `Factor`s in `FACTORS`,
`SCALES`), which the rates are computed from and `rate_table()` prints: what the lesson shows is
what the model does.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from toolsys.models._dates import human_date
from toolsys.models._kinds import param_kind, unwrap_optional

BASE_RATES: dict[str, float] = {
    "number_as_string": 0.15,
    "freeform_date": 0.6,
    "invented_enum": 0.3,
    "missing_required": 0.12,
    "misspelled_tool": 0.04,
    "malformed_json": 0.03,
}

HITS: dict[str, str] = {
    "number_as_string": "each number argument",
    "freeform_date": "each date or date-time",
    "invented_enum": "each enum-like argument",
    "missing_required": "each required argument",
    "misspelled_tool": "each call",
    "malformed_json": "each call",
}
"""What each mistake can hit (an enum-like argument: a JSON enum, or values listed in prose)."""


@dataclass(frozen=True)
class Factor:
    """A schema feature that multiplies a mistake's base rate when the schema has it."""

    mistake: str
    feature: str
    multiplier: float


DESCRIBED_NUMBER = Factor("number_as_string", "the parameter is described", 0.5)
FORMAT_STATED = Factor("freeform_date", "description names the format (ISO 8601)", 0.25)
FORMAT_KEYWORD = Factor("freeform_date", "schema says format: date or date-time", 0.25)
EXAMPLE_SHOWN = Factor("freeform_date", "description shows an example (e.g.)", 0.5)
JSON_ENUM = Factor("invented_enum", "values are a JSON enum, not prose", 0.1)
DESCRIBED_REQUIRED = Factor("missing_required", "the parameter is described", 0.25)
FACTORS: tuple[Factor, ...] = (
    DESCRIBED_NUMBER,
    FORMAT_STATED,
    FORMAT_KEYWORD,
    EXAMPLE_SHOWN,
    JSON_ENUM,
    DESCRIBED_REQUIRED,
)
"""Every schema feature that lowers a parameter's mistake rate, and by how much."""

SCALES: dict[str, str] = {
    "misspelled_tool": "× length of the tool name / 10",
    "malformed_json": "× (1 + 0.25 × number of arguments)",
}
"""How the whole-call mistakes scale with the call."""


def rate_table(base: dict[str, float] | None = None) -> str:
    """The declared assumptions as one printable table: base rate, what it hits, what lowers it.

    `base` overrides base rates, as `OfflineModel(rates=...)` does. Rates are capped at 1.
    """
    base = {**BASE_RATES, **(base or {})}
    lines = [f"{'mistake':<17} {'base':>4}  {'hits':<24} effective rate = base, then"]
    for mistake, rate in base.items():
        rules = [f"× {f.multiplier:<4g} if {f.feature}" for f in FACTORS if f.mistake == mistake]
        rules = rules or [SCALES[mistake]]
        lines.append(f"{mistake:<17} {rate:>4.2f}  {HITS[mistake]:<24} {rules[0]}")
        lines += [f"{'':<49}{rule}" for rule in rules[1:]]
    return "\n".join(lines)


def _states_format(description: str) -> bool:
    return bool(re.search(r"yyyy-mm-dd|iso ?8601|iso format", description.lower()))


def _has_example(description: str) -> bool:
    return bool(re.search(r"\d{4}-\d{2}-\d{2}|e\.g\.|for example", description.lower()))


def param_rates(
    name: str, schema: dict[str, Any], required: bool, base: dict[str, float] | None = None
) -> dict[str, float]:
    """The effective rate of each mistake that can hit one parameter (see the module table)."""
    base = {**BASE_RATES, **(base or {})}
    schema = unwrap_optional(schema)
    description = str(schema.get("description", ""))
    kind = param_kind(name, schema)
    rates: dict[str, float] = {}
    if kind == "number":
        rates["number_as_string"] = base["number_as_string"] * _when(description, DESCRIBED_NUMBER)
    if kind in ("date", "datetime"):
        rates["freeform_date"] = (
            base["freeform_date"]
            * _when(_states_format(description), FORMAT_STATED)
            * _when(schema.get("format") in ("date", "date-time"), FORMAT_KEYWORD)
            * _when(_has_example(description), EXAMPLE_SHOWN)
        )
    if kind == "enum":
        rates["invented_enum"] = base["invented_enum"] * _when("enum" in schema, JSON_ENUM)
    if required:
        rates["missing_required"] = base["missing_required"] * _when(
            description, DESCRIBED_REQUIRED
        )
    return {k: min(1.0, v) for k, v in rates.items()}


def _when(present: object, factor: Factor) -> float:
    """The factor's multiplier when the schema has its feature, else 1."""
    return factor.multiplier if present else 1


def call_rates(name: str, n_args: int, base: dict[str, float] | None = None) -> dict[str, float]:
    """The effective rate of the mistakes that hit a whole call."""
    base = {**BASE_RATES, **(base or {})}
    return {
        "misspelled_tool": min(1.0, base["misspelled_tool"] * len(name) / 10),
        "malformed_json": min(1.0, base["malformed_json"] * (1 + 0.25 * n_args)),
    }


def first_call_success(
    function: dict[str, Any], arguments: dict[str, Any], rates: dict[str, float] | None = None
) -> float:
    """Probability that imperfect mode sends this call with no mistake at all."""
    params = function.get("parameters") or {}
    required = set(params.get("required", []))
    p = 1.0
    for name, schema in params.get("properties", {}).items():
        if name in arguments or name in required:
            for rate in param_rates(name, schema, name in required, rates).values():
                p *= 1 - rate
    for rate in call_rates(function["name"], len(arguments), rates).values():
        p *= 1 - rate
    return p


def _invent(value: Any, rng: random.Random) -> str:
    text = str(value)
    return rng.choice(
        [
            text.capitalize() if text != text.capitalize() else text.upper(),
            text[0].upper(),
            f"{text}_unit" if len(text) < 4 else text[:4],
        ]
    )


def _misspell(name: str, rng: random.Random) -> str:
    vowels = [i for i, c in enumerate(name) if c in "aeiou" and 0 < i < len(name) - 1]
    if vowels:
        i = rng.choice(vowels)
        return name[:i] + name[i + 1 :]
    return name + "s"


def corrupt(
    function: dict[str, Any],
    arguments: dict[str, Any],
    rng: random.Random,
    base: dict[str, float] | None = None,
) -> tuple[str, str, list[str]]:
    """(tool name, raw JSON arguments, mistakes made) for one first-attempt call."""
    params = function.get("parameters") or {}
    properties, required = params.get("properties", {}), set(params.get("required", []))
    args, made = dict(arguments), []
    for name, schema in properties.items():
        if name not in args:
            continue
        rates = param_rates(name, schema, name in required, base)
        kind = param_kind(name, schema)
        if rng.random() < rates.get("missing_required", 0):
            del args[name]
            made.append(f"missing_required:{name}")
        elif rng.random() < rates.get("number_as_string", 0):
            args[name] = str(args[name])
            made.append(f"number_as_string:{name}")
        elif rng.random() < rates.get("freeform_date", 0):
            day, _, clock = str(args[name]).partition("T")
            args[name] = human_date(day) + (f" {clock[:5]}" if kind == "datetime" else "")
            made.append(f"freeform_date:{name}")
        elif rng.random() < rates.get("invented_enum", 0):
            args[name] = _invent(args[name], rng)
            made.append(f"invented_enum:{name}")
    whole = call_rates(function["name"], len(args), base)
    tool = function["name"]
    if rng.random() < whole["misspelled_tool"]:
        tool = _misspell(tool, rng)
        made.append("misspelled_tool")
    raw = json.dumps(args)
    if rng.random() < whole["malformed_json"]:
        raw = raw[:-1]
        made.append("malformed_json")
    return tool, raw, made
