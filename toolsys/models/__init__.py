"""Models to talk to: the offline teaching model, a scripted model, or a real endpoint.

    from toolsys import models
    client = models.client()                # a real openai.OpenAI
    print(models.describe())                # which backend answers it
    client.chat.completions.create(model=models.default_model(), messages=..., tools=...)
    print(models.explain("fly me to Rome tomorrow", registry))  # why the offline model chose

With no configuration the client is answered in-process by the offline teaching model (a
simulation, see `offline`). With `OPENAI_API_KEY` set (and optionally `OPENAI_BASE_URL`, e.g.
an Ollama server, and `TOOLSYS_MODEL`) it talks to that endpoint. Importing this package does
not import `openai`; making a client does.

The imperfect model's declared rates (`BASE_RATES`, `rate_table`, `param_rates`, `call_rates`,
`first_call_success`) are public here: `toolsys.evals.simulation` predicts from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolsys.models import config
from toolsys.models._imperfect import (
    BASE_RATES,
    call_rates,
    first_call_success,
    param_rates,
    rate_table,
)
from toolsys.models.explanation import Explanation
from toolsys.models.offline import OfflineModel
from toolsys.models.scripted import ScriptedModel, calls, text

if TYPE_CHECKING:
    import openai

__all__ = [
    "BASE_RATES",
    "Explanation",
    "OfflineModel",
    "ScriptedModel",
    "async_client",
    "call_rates",
    "calls",
    "client",
    "default_model",
    "describe",
    "explain",
    "first_call_success",
    "param_rates",
    "rate_table",
    "text",
]


def default_model() -> str:
    """The model name to send: `TOOLSYS_MODEL` (or a default) with a real endpoint, else offline."""
    endpoint = config.real_endpoint()
    return endpoint[2] if endpoint else config.OFFLINE_MODEL


def describe() -> str:
    """One line saying which backend `client()` uses, for the top of a notebook."""
    endpoint = config.real_endpoint()
    if endpoint is None:
        return (
            f"offline teaching model (simulation): {config.OFFLINE_MODEL}, answered "
            f"in-process; set {config.API_KEY_ENV} to use a real model"
        )
    _, base_url, model = endpoint
    return f"real endpoint at {base_url or 'https://api.openai.com/v1'}, model {model}"


def explain(request: str | list[dict[str, Any]], tools: Any, **options: Any) -> Explanation:
    """Why the offline teaching model answers `request` with `tools` as it does (print it).

    `tools`: a `Registry` or OpenAI tool definitions; `options`: `tool_choice`,
    `parallel_tool_calls`. See `OfflineModel.explain`.
    """
    return OfflineModel().explain(request, tools, **options)


def client() -> openai.OpenAI:
    """A real `openai.OpenAI`: the configured endpoint, else the offline teaching model."""
    import openai

    return _connect(openai.OpenAI, lambda: OfflineModel().client())


def async_client() -> openai.AsyncOpenAI:
    """A real `openai.AsyncOpenAI`: the configured endpoint, else the offline teaching model."""
    import openai

    return _connect(openai.AsyncOpenAI, lambda: OfflineModel().async_client())


def _connect(sdk_class: Any, offline: Callable[[], Any]) -> Any:
    """`sdk_class` for the configured real endpoint, or `offline()` when there is none."""
    endpoint = config.real_endpoint()
    if endpoint is None:
        return offline()
    key, base_url, model = endpoint
    real = sdk_class(api_key=key, base_url=base_url)
    real.toolsys_model = model  # the name `run_agent(model=None)` sends
    return real
