"""Run an eval: every case against every variant, once per seed, through the real agent loop.

    report = run_eval(cases, [Variant("A", loose), Variant("C", designed)], seeds=range(5))
    print(report)                      # rates with 95 % intervals per variant
    report.plot(); report.save("eval.json"); report.sha256()

Why this module exists: one run of one prompt is an anecdote, and a claim such as "design C
succeeds 96 % of the time" can only be checked by running many. Each episode is a full
`run_agent` (the model's calls, the registry's error-as-data answers, the model's retries), so
what is measured is what a user would get.

Which model answers: `client=None` uses the offline teaching model in imperfect mode, one
instance per episode seeded from (seed, case), so the same seeds give the same report, and the
same case sees the same random draws under every variant (a paired comparison). When
`toolsys.models` is configured for a real endpoint (`OPENAI_API_KEY`, not `TOOLSYS_OFFLINE=1`),
`client=None` uses that endpoint instead; seeds then only repeat each case. `client="offline"`
always uses the offline model (a lesson's simulation stays a simulation, whatever the
environment). Pass a client to use it for every episode, or a function `seed -> client` to make
one per episode.

Chapter 05 builds this by hand first: notebooks/05_argument_design.ipynb.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from toolsys.evals.cases import Case, Variant
from toolsys.evals.report import EvalReport
from toolsys.evals.scoring import Episode, score
from toolsys.loop import Transcript, run_agent
from toolsys.models import OfflineModel, config

__all__ = ["OFFLINE", "episode_seed", "run_episode", "run_eval"]

OFFLINE = "offline"
"""`client=OFFLINE`: the offline teaching model in imperfect mode, even with a real endpoint set."""

_BAD_CLIENT = (
    "client={!r} is not one of: None (what the environment configures), 'offline', a client "
    "(openai.OpenAI, models.client()) or a function seed -> client."
)

Client = Any
"""An `openai.OpenAI` or `openai.AsyncOpenAI` (or anything with `chat.completions.create`)."""


def episode_seed(seed: int, case: int) -> int:
    """The offline model's seed for case number `case` under the eval's `seed`.

    Case 0 gets the seed itself, so a one-case eval reproduces `OfflineModel(seed=seed)` runs.
    """
    return seed + 1_000_003 * case


def run_eval(
    cases: Sequence[Case],
    variants: Sequence[Variant],
    *,
    seeds: Iterable[int] = range(3),
    client: Client | Callable[[int], Client] | None = None,
    max_steps: int = 6,
    system: str | None = None,
) -> EvalReport:
    """Run every case against every variant once per seed and score each episode.

    Episodes per variant: len(cases) × len(seeds). See the module docstring for `client`.
    """
    cases, variants, seeds = _checked(cases, variants, seeds, client)
    episodes: list[Episode] = []
    models_seen: list[str] = []
    for variant in variants:
        for seed in seeds:
            for index in range(len(cases)):
                episode, transcript = run_episode(
                    cases, index, variant, seed, client=client, max_steps=max_steps, system=system
                )
                episodes.append(episode)
                models_seen.append(transcript.model)
    model = Counter(models_seen).most_common(1)[0][0]
    return EvalReport(
        model=model,
        seeds=tuple(seeds),
        variants=tuple(v.name for v in variants),
        cases=tuple(cases),
        episodes=tuple(episodes),
    )


def run_episode(
    cases: Sequence[Case],
    index: int,
    variant: Variant,
    seed: int,
    *,
    client: Client | Callable[[int], Client] | None = None,
    max_steps: int = 6,
    system: str | None = None,
) -> tuple[Episode, Transcript]:
    """One episode: case `cases[index]` against `variant`, with `seed`; its score and transcript.

    Run it again with the same arguments to look at an episode the report lists as failed.
    """
    case = cases[index]
    registry = variant.registry()
    offered = {tool["function"]["name"] for tool in registry.export("openai")}
    intended = variant.tool_names(case.tool)
    missing = [name for name in intended if name not in offered]
    if missing:
        raise ValueError(
            f"Case {index} ({case.label!r}) expects tool {missing[0]!r}, which variant "
            f"{variant.name!r} does not offer ({', '.join(sorted(offered)) or 'no tools'}); "
            "fix the case's tool or the variant's names."
        )
    made, model = _client(client, episode_seed(seed, index))
    transcript = run_agent(made, registry, case.prompt, max_steps=max_steps, system=system)
    scores = score(transcript, intended, offered, case.effect)
    mistakes = tuple(model.mistakes) if model is not None else ()
    episode = Episode(variant.name, index, seed, mistakes=mistakes, **scores)
    return episode, transcript


def _client(
    client: Client | Callable[[int], Client] | None, seed: int
) -> tuple[Client, OfflineModel | None]:
    """The client for one episode, and the offline model behind it when we made one."""
    if client is None and config.real_endpoint() is not None:
        from toolsys import models

        return models.async_client(), None
    if client is None or _is_offline(client):
        model = OfflineModel(imperfect=True, seed=seed)
        return model.async_client(), model
    if hasattr(client, "chat"):
        return client, None
    if isinstance(client, str) or not callable(client):
        raise ValueError(_BAD_CLIENT.format(client))
    return client(seed), None


def _is_offline(client: Any) -> bool:
    return isinstance(client, str) and client == OFFLINE


def _checked(
    cases: Sequence[Case], variants: Sequence[Variant], seeds: Iterable[int], client: Any
) -> tuple[list[Case], list[Variant], list[int]]:
    """The arguments as lists, or a one-line ValueError saying what is wrong."""
    cases, variants = list(cases), list(variants)
    seeds = list(seeds)
    if not cases or not all(isinstance(c, Case) for c in cases):
        raise ValueError(
            "run_eval: pass a non-empty list of evals.Case, e.g. [Case(prompt, tool)]."
        )
    if not variants or not all(isinstance(v, Variant) for v in variants):
        raise ValueError(
            "run_eval: pass a non-empty list of evals.Variant, e.g. [Variant('A', registry)]."
        )
    names = [v.name for v in variants]
    if len(set(names)) != len(names):
        raise ValueError(f"run_eval: variant names must differ; got {names}.")
    if not seeds or not all(type(s) is int for s in seeds):
        raise ValueError(f"run_eval: seeds must be whole numbers, e.g. range(5); got {seeds!r}.")
    acceptable = client is None or _is_offline(client) or hasattr(client, "chat")
    if not acceptable and (isinstance(client, str) or not callable(client)):
        raise ValueError(_BAD_CLIENT.format(client))
    return cases, variants, seeds
