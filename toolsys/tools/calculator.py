"""calculator: arithmetic through Python's `ast`, never `eval`.

Only numbers, + - * / // % **, parentheses, unary signs and three functions (sqrt, round, abs)
are allowed; anything else is refused with a ToolError that names the offending part, so a
model can rewrite the expression. Every intermediate result is checked as it is made: more than
1000 digits, infinity, NaN or a complex number is refused with the value's size or kind, before
a huge number is ever built or sent.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from toolsys import ToolError
from toolsys.tools import registry

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {"sqrt": math.sqrt, "round": round, "abs": abs}
MAX_EXPONENT = 1000
MAX_DIGITS = 1000
MAX_LENGTH = 500
_LIMIT = 10**MAX_DIGITS


def _invalid(what: str, expression: str) -> ToolError:
    return ToolError(
        "INVALID_EXPRESSION",
        f"Cannot evaluate {what} in {expression!r}.",
        suggestion="Use only numbers, + - * / // % **, parentheses and sqrt(), round(), abs(); "
        "write '17 * 38', not '17 times 38'.",
    )


def _too_large(what: str, expression: str) -> ToolError:
    return ToolError(
        "RESULT_TOO_LARGE",
        f"{expression!r} cannot be computed: {what}.",
        suggestion=f"Every intermediate result must stay under 10 ** {MAX_DIGITS} (floats under "
        "about 1.8e308): split the calculation into smaller parts, or give the user the size "
        "of the number (e.g. in scientific notation) instead of every digit.",
    )


def _representable(value: float | complex, expression: str) -> float:
    """`value` if a JSON number can carry it; else a ToolError saying what it was."""
    if isinstance(value, complex):
        raise ToolError(
            "NOT_A_REAL_NUMBER",
            f"{expression!r} has no real result: it gives the complex number {value}.",
            suggestion="A negative number has no real fractional power or square root; "
            "check the signs, e.g. write -(8 ** 0.5) for minus the root of 8.",
        )
    if isinstance(value, float) and math.isnan(value):
        raise ToolError(
            "NOT_A_REAL_NUMBER",
            f"{expression!r} is undefined: it gives NaN (not a number).",
            suggestion="Check the expression for infinity minus infinity or a similar form.",
        )
    if isinstance(value, float) and math.isinf(value):
        raise _too_large("a result overflows to infinity", expression)
    if isinstance(value, int) and not -_LIMIT < value < _LIMIT:
        # operands stay under 10 ** 1000, so a result has at most ~2000 digits: str() works
        digits = len(str(abs(value)))
        raise _too_large(f"a result has {digits} digits; the limit is {MAX_DIGITS}", expression)
    return value


def _evaluate(node: ast.AST, expression: str) -> float:
    return _representable(_evaluate_node(node, expression), expression)


def _evaluate_node(node: ast.AST, expression: str) -> float | complex:
    if isinstance(node, ast.Constant) and (type(node.value) is int or type(node.value) is float):
        return node.value  # a number: True, a string or None is not one here
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left, expression), _evaluate(node.right, expression)
        if isinstance(node.op, ast.Pow) and (
            abs(right) > MAX_EXPONENT
            or (abs(left) > 1 and right * math.log10(abs(left)) > MAX_DIGITS)
        ):
            raise ToolError(
                "EXPONENT_TOO_LARGE",
                f"{left} ** {right} is too large to compute.",
                suggestion=f"Use exponents up to {MAX_EXPONENT} and results under "
                f"10 ** {MAX_DIGITS}.",
            )
        if isinstance(node.op, ast.Div | ast.FloorDiv | ast.Mod) and right == 0:
            raise ToolError(
                "DIVISION_BY_ZERO",
                f"{expression!r} divides by zero.",
                suggestion="Check the divisor; the result is undefined.",
            )
        try:
            return _BINARY[type(node.op)](left, right)
        except OverflowError as exc:
            raise _too_large("a result is too large for a float", expression) from exc
        except ZeroDivisionError as exc:
            raise ToolError(
                "DIVISION_BY_ZERO",
                f"{expression!r} divides by zero ({exc}).",
                suggestion="Check the divisor or the negative power of 0; the result is undefined.",
            ) from exc
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand, expression))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        args = [_evaluate(a, expression) for a in node.args]
        try:
            return _FUNCTIONS[node.func.id](*args)
        except (TypeError, ValueError) as exc:
            raise _invalid(f"{node.func.id}() of {args} ({exc})", expression) from exc
        except OverflowError as exc:
            raise _too_large(
                f"the argument of {node.func.id}() is too large for a float", expression
            ) from exc
    raise _invalid(repr(ast.unparse(node)), expression)


@registry.tool
def calculator(expression: str) -> int | float:
    """Evaluate an arithmetic expression exactly, e.g. '17 * 38' or '(2 + 3) ** 2'.

    Use it for any calculation instead of computing in your head: add, subtract, multiply,
    divide, powers, square roots. Limits: numbers and + - * / // % ** ( ) with sqrt, round and
    abs only; no variables, units or words; exponents up to 1000.

    Args:
        expression: Arithmetic expression using digits and operators, e.g. '2 * (3 + 4)'.
    """
    if len(expression) > MAX_LENGTH:
        raise ToolError(
            "EXPRESSION_TOO_LONG",
            f"The expression has {len(expression)} characters; the limit is {MAX_LENGTH}.",
            suggestion="Split the calculation into smaller steps.",
        )
    if not expression.strip():
        raise ToolError(
            "INVALID_EXPRESSION",
            "The expression is empty: there is nothing to calculate.",
            suggestion="Send the calculation itself, e.g. '17 * 38'.",
        )
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        bad = (exc.text or expression)[max((exc.offset or 1) - 1, 0) :][:10] or expression
        raise _invalid(f"the part starting at {bad.strip()!r}", expression) from exc
    value = _evaluate(tree.body, expression)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return round(value, 12) if isinstance(value, float) else value
