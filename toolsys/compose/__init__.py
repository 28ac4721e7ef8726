"""Composite tools: `pipeline`, `parallel` and `when` build a `Tool` out of tools.

Why: a "tool that calls tools" written by hand loses what the registry knows about its
children (the hand-written wrapper is a READ tool that refunds, its inner errors become one
opaque exception, and no layer sees the inner calls). A composite here is a real `Tool`:

- its schema is generated (a pipeline's first step's input; the merged input of `parallel`
  and `when`, refusing a parameter two children type differently);
- its category is the highest of its children's (READ < WRITE < EXECUTE), and it is
  idempotent only if every child is;
- its children run as inner calls through the registry's own execute path, so every layer
  (audit, policy, retry, timeout) sees them, with the outer call's context and run id and a
  derived call id (`call_7/2`);
- errors stay data: a failure names the failing step and carries its envelope and the results
  of the steps that completed; `parallel` reports partial success.

Children are the `Tool` objects given when the composite is built, and their inner calls carry
those tools' names: build from `registry.get(...)` so that a layer keyed on registered names
(`billing__refund`) recognises them. A plain function is accepted and registered from its hints.

    from toolsys.compose import parallel, pipeline, step, when
    registry.add(pipeline("lookup_then_refund", [find_order, refund], description="..."))

Lesson: `notebooks/09_composition.ipynb` chains tools by hand (and loses the inner error and
the category), builds a pipeline combinator, and compares it with `pipeline` on the same calls.
"""

from toolsys.compose._children import Step, step
from toolsys.compose._parallel import parallel
from toolsys.compose._pipeline import pipeline
from toolsys.compose._run import MAX_NESTING
from toolsys.compose._when import when

__all__ = ["MAX_NESTING", "Step", "parallel", "pipeline", "step", "when"]
