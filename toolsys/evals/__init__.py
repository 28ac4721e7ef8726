"""Evals: measure how well a model uses a tool set, instead of asserting it.

    from toolsys.evals import Case, Variant, run_eval
    cases = [Case("Book a table for 4 tomorrow at 8pm", "book_table", effect=right_table)]
    report = run_eval(cases, [Variant("loose", loose), Variant("typed", typed)], seeds=range(20))
    print(report)               # right tool, valid first try, valid after retry, intended effect
    report.plot()               # the same with 95 % intervals, labelled "simulation" if offline
    report.save("eval.json")    # the same seeds give the same file (report.sha256())

Modules: `cases` (Case, Variant), `harness` (run_eval, run_episode), `scoring` (Episode, the
metrics), `stats` (wilson, Rate), `report` (EvalReport), `simulation` (the offline model's
declared mistake table). Importing this package does not import openai or matplotlib.

Chapter 05 builds this by hand first: notebooks/05_argument_design.ipynb.
"""

from toolsys.evals.cases import Case, Variant
from toolsys.evals.harness import OFFLINE, episode_seed, run_episode, run_eval
from toolsys.evals.report import EvalReport
from toolsys.evals.scoring import METRICS, Episode, score
from toolsys.evals.simulation import mistake_rates, mistake_table, predicted_clean_first_calls
from toolsys.evals.stats import Z_95, Rate, wilson

__all__ = [
    "METRICS",
    "OFFLINE",
    "Z_95",
    "Case",
    "Episode",
    "EvalReport",
    "Rate",
    "Variant",
    "episode_seed",
    "mistake_rates",
    "mistake_table",
    "predicted_clean_first_calls",
    "run_episode",
    "run_eval",
    "score",
    "wilson",
]
