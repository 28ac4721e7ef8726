"""The pytest plugin: installed with toolsys (entry point `pytest11`), loaded by every pytest run.

It only offers fixtures, and a fixture does nothing until a test asks for it by name, so a
project that never uses them is untouched. Importing this module imports nothing heavy.

    def test_weather_call(scripted):              # the network is blocked for this test
        client = scripted(("get_weather", {"city": "Paris"}), "18 °C")
        ...

    def test_pure_logic(no_network):              # blocked, no client needed
        ...

A blocked attempt raises `NetworkBlocked` where it happens; one that the code under test
swallowed (a tool's `except BaseException`, or `execute`, which never raises) still fails the
test when it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

_BLOCKED_IN_CALL = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Note when the test itself already failed with NetworkBlocked (reported once, not twice)."""
    report = yield
    if call.when == "call" and call.excinfo is not None:
        item.stash[_BLOCKED_IN_CALL] = call.excinfo.typename == "NetworkBlocked"
    return report


@pytest.fixture
def no_network(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Block internet sockets for this test; fail it if anything tried to connect."""
    from toolsys.testing.network import no_network as blocked

    with blocked() as guard:
        yield guard
    if guard.attempts and not request.node.stash.get(_BLOCKED_IN_CALL, False):
        pytest.fail(guard.report(), pytrace=False)


@pytest.fixture
def scripted(no_network: Any) -> Callable[..., Any]:
    """`toolsys.testing.scripted`: a real openai client answered from a script (network blocked)."""
    from toolsys.testing.scripted import scripted as make

    return make
