"""The claims audit's edits to lessons 09 and 10 (issue 28), to apply once the seam is merged.

Lessons 09 and 10 were gated while the seam branch renamed their prefixes, so these edits are
kept as data: (cell id, the exact text to replace, its replacement). Each edit checks that its
old text is there, so a cell that changed since is reported, never silently rewritten; an edit
already applied is skipped, so running the script twice changes nothing.

    .venv/bin/python docs/claims_09_10.py            # edit notebooks/09 and 10 in place
    .venv/bin/toolsys execute notebooks/09_composition.ipynb
    .venv/bin/toolsys execute notebooks/10_mcp.ipynb

Sources (looked up 2026-12-02) are in docs/claims.md, rows 09 and 10.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]

PLOT_09 = """\
TASK = "track my package 1Z999AA10123456784"
sizes, full_runs, deferred_runs = [], [], []
for count in [0, 2, 5, 10, 25, 50, 100, 200, 356]:
    part = Registry()
    for tool in tools[:count]:
        part.add(tool)
    for name in [*CORE, "shipping_track_package"]:
        if name not in part:
            part.add(catalog.get(name))
    sizes.append(len(part))
    full_runs.append(run_agent(client, part, TASK))
    deferred_runs.append(run_agent(client, part.deferred(core=CORE), TASK))
full_cost = [run.usage["prompt_tokens"] for run in full_runs]
deferred_cost = [run.usage["prompt_tokens"] for run in deferred_runs]
print(f"{'tools':>6}{'full run':>10}{'requests':>10}{'deferred run':>14}{'requests':>10}")
for size, full, deferred, a, b in zip(
    sizes, full_cost, deferred_cost, full_runs, deferred_runs, strict=True
):
    print(f"{size:>6}{full:>10,}{a.steps:>10}{deferred:>14,}{b.steps:>10}")
print("prompt tokens of every request of the run, as the offline model reports them (chars / 4)")
cheaper = next(size for size, f, d in zip(sizes, full_cost, deferred_cost, strict=True) if d < f)
print(f"the deferred run costs less from {cheaper} tools on")

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(sizes, full_cost, marker="o", label="every tool listed: call, answer")
ax.plot(sizes, deferred_cost, marker="s", label="deferred: search, call, answer")
ax.set_xscale("log")
ax.set_xlabel("tools in the registry (log scale)")
ax.set_ylabel("prompt tokens, whole run (est.)")
ax.legend(loc="upper left")
fig.tight_layout()
plt.show()"""

EDITS: dict[str, list[tuple[str, str, str]]] = {
    "notebooks/09_composition.ipynb": [
        (
            "efc3eeca",
            "so we put a prefix on the name. Which separator? Providers accept\n"
            "only `^[a-zA-Z0-9_-]{1,64}$`:",
            "so we put a prefix on the name. Which separator? OpenAI accepts a\n"
            'function name of "a-z, A-Z, 0-9, or ... underscores and dashes, with a maximum'
            " length of"
            ' 64"\n(the `name` field of `FunctionDefinition`, openai-python 3.57), that is'
            " `^[a-zA-Z0-9_-]{1,64}$`:",
        ),
        (
            "e58105fa",
            "`__` can be split back into namespace and tool, and it is what MCP clients already\n"
            "send (`mcp__server__tool`).",
            "`__` can be split back into namespace and tool. Hosts that prefix MCP tools"
            " disagree:\n"
            "Claude Code names them `mcp__server__tool` (its MCP and permissions docs), Gemini"
            " CLI\nprefixes a clashing name as `server__tool` (its `docs/tools/mcp-server.md`),"
            " pydantic-ai's\n`tool_prefix` joins with one `_` (`pydantic_ai/mcp.py`); the MCP"
            " specification sets no\nconvention. toolsys uses `__` for every prefix: `include`,"
            " `Toolkit`, `import_server`,\nOpenAPI tools.",
        ),
        (
            "5d8985dd",
            "Others report\nsimilar sizes: Anthropic reports that a multi-server setup costs"
            " about 55k"
            " tokens of tool definitions\nand that selection accuracy degrades past 30 to 50 tools,"
            " and that its tool search cuts the\ndefinitions' tokens by over 85 %;",
            "Others report\nsimilar sizes: Anthropic reports that a multi-server setup costs"
            " about 55k"
            " tokens of tool definitions\nand that its tool search cuts them by over 85 %"
            ' ("Introducing advanced tool use on the Claude\nDeveloper Platform", anthropic.com,'
            " 2025-11-24), and its tool search docs say selection accuracy\ndegrades past 30 to 50"
            " tools;",
        ),
        (
            "9571fd83",
            "We compare BM25 with the\nbaseline some frameworks ship, unweighted keyword overlap",
            "We compare BM25 with a\nsimple baseline, unweighted keyword overlap",
        ),
        ("988ae227", "*", PLOT_09),
        (
            "35a7153d",
            "The full listing grows with every tool; the deferred first turn does not (a handful of"
            " tools\nmore after each search). Now a run with the offline model:",
            "Measured over a whole run, the search turn is not free: with a handful of tools the"
            " deferred\nrun sends more (three requests instead of two, and a search result to"
            " read);"
            " from the size\nthe cell prints on it sends less, and at 356 tools a few percent of"
            " the full listing.\nIts line still rises a little: the tools a search finds are"
            " listed on every later turn.\nThese are the offline model's runs, both calling the"
            " same tool; a real model may search twice\nor not at all. The deferred run, step by"
            " step:",
        ),
    ],
    "notebooks/10_mcp.ipynb": [
        (
            "63153ae8",
            "MCP errors crashed `openai-agents` runs (#879); `llama_index` ignored `isError`, so\n"
            "failures reached the agent as successes (run-llama/llama_index#22943); output-schema"
            " validation\nreplaced the tool's error text (python-sdk#2429); tool *annotations*"
            ' ("read-only", "destructive")\nare mapped to approval by no framework, and Codex'
            " failed open when they were missing\n(openai/codex#15519).",
            "MCP errors crashed `openai-agents` runs (openai/openai-agents-python#879);"
            " `llama_index`\nignored `isError`, so failures reached the agent as successes"
            " (run-llama/llama_index#22943);\nthe Python SDK's output-schema check replaced a"
            " tool's error text with its own\n(modelcontextprotocol/python-sdk#2429, v1.x); tool"
            ' *annotations* ("read-only", "destructive")\nare hints a host may use to decide'
            " what needs approval, and Codex, which does, failed open\nwhen they were missing"
            " (openai/codex#15519).",
        ),
        (
            "fe3ac2ad",
            "the official SDK raises it,\n`openai-agents` let it crash the whole run (#879), others"
            ' show the model "Error executing tool".',
            "the official SDK's client raises it\n(`MCPError`, section 4 shows one), and"
            " `openai-agents` let it crash the whole run (#879).",
        ),
        (
            "5b960372",
            "The MCP specification says it outright: errors that originate from the tool are"
            " reported inside\nthe result, with `isError` set, so that the model can see them and"
            " correct itself; protocol\nerrors are for a request the server cannot even"
            " understand.",
            "What goes where depends on the specification's revision. The one our handshake names,"
            "\n2025-06-18, lists unknown tools, invalid arguments and server errors as *protocol*"
            " errors, and\nAPI failures, invalid input data and business-logic errors as *tool"
            " execution* errors, reported\nin the result with `isError` so the model can see them."
            ' Revision 2025-11-25 moved input\nvalidation to the result too, "to enable model'
            ' self-correction" (SEP-1303,\nmodelcontextprotocol/modelcontextprotocol#1303);'
            " unknown tools and malformed requests stay\nprotocol errors. `to_server` answers"
            " every failed call with a result, an unknown tool\nincluded: its message names the"
            " closest tools, which only a model that reads it can use.",
        ),
        (
            "b456421f",
            "`to_server(registry)` is an `mcp`\n`MCPServer` (the official SDK)",
            "`to_server(registry)` is an `mcp`\n`MCPServer` (the official SDK; mcp 2.x renamed"
            " `FastMCP` to `MCPServer`, so seed 002's\n`from mcp.server.fastmcp import FastMCP`"
            " fails on mcp 2.3 with a message pointing at the\nSDK's migration guide)",
        ),
        (
            "11d66cf0",
            "    print(tool.name, json.dumps(tool.input_schema))",
            "    print_wrapped(tool.name, json.dumps(tool.input_schema))",
        ),
        (
            "12b143e7",
            "instead of being sent and rejected by the client's validator, which would replace the"
            " tool's words\nwith its own (python-sdk#2429).",
            "instead of being sent and rejected by the client's validator. Such a check must never"
            " replace a\nfailure's own words: the Python SDK's did, for a tool with an output"
            " schema that reported an\nerror as text (python-sdk#2429).",
        ),
        (
            "db2da84b",
            '    print(f"{tool.name:13}", hints == mine == annotations_for(ours),'
            " json.dumps(hints))",
            "    same = hints == mine == annotations_for(ours)\n"
            '    print_wrapped(f"{tool.name:13}", same, json.dumps(hints))',
        ),
        (
            "2085e367",
            "*clients should never make tool-use decisions based on annotations received from\n"
            "untrusted servers*.",
            "*clients should never make tool-use decisions based on annotations received from\n"
            "untrusted servers* (`ToolAnnotations`, schema of revision 2025-06-18).",
        ),
        (
            "379d3849",
            "The specification gives each missing hint a default\n(readOnly false, destructive"
            " true,"
            " idempotent false, openWorld true),",
            "The specification gives each missing hint a default\n(readOnly false, destructive"
            " true,"
            " idempotent false, openWorld true: `ToolAnnotations`, 2025-06-18),",
        ),
        (
            "d828e0ac",
            "(Claude\nDesktop's `claude_desktop_config.json`, and most others, use this shape):",
            "(Claude\nDesktop's `claude_desktop_config.json` has this shape, and Gemini CLI's"
            " `settings.json` the\nsame `mcpServers` key):",
        ),
        (
            "1c2ade25",
            "(the SDK passes `HOME`, `PATH` and a\nfew others, never your API keys)",
            "(the SDK passes `HOME`, `LOGNAME`,\n`PATH`, `SHELL`, `TERM` and `USER` on POSIX:"
            " `DEFAULT_INHERITED_ENV_VARS`, mcp 2.3; never\nyour API keys)",
        ),
        (
            "c5a17955",
            "    print(careful_host_reads(answer))",
            "    print_wrapped(careful_host_reads(answer))",
        ),
        (
            "bdc969d8",
            "    print(tools.names())",
            "    print_wrapped(tools.names())",
        ),
    ],
}


def _pattern(old: str) -> re.Pattern[str]:
    """`old` as a pattern that matches it however its lines were broken."""
    return re.compile(r"\s+".join(re.escape(word) for word in old.split()))


def _rewrap(source: str, at: int) -> str:
    """Wrap the plain paragraph of `source` that holds offset `at` at 100 characters."""
    start = source.rfind("\n\n", 0, at) + 2 if "\n\n" in source[:at] else 0
    end = source.find("\n\n", at)
    end = len(source) if end < 0 else end
    lines = source[start:end].splitlines()
    if any(line.lstrip().startswith(("#", "|", "-", "*", "`" * 3)) for line in lines) or any(
        re.match(r"\s*\d+\.", line) for line in lines
    ):
        return source
    wrapped = textwrap.fill(" ".join(lines), 100, break_on_hyphens=False, break_long_words=False)
    return source[:start] + wrapped + source[end:]


def apply(root: Path = ROOT) -> list[str]:
    """Apply every edit; return what was done. Stop if an edit's old text is missing."""
    done = []
    for relative, edits in EDITS.items():
        path = root / relative
        notebook = nbformat.read(path, as_version=4)
        cells = {cell.id: cell for cell in notebook.cells}
        for cell_id, old, new in edits:
            cell = cells.get(cell_id)
            if cell is None:
                raise SystemExit(f"{relative}: no cell {cell_id!r}; edit it by hand.")
            if old == "*":
                if cell.source != new:
                    cell.source = new
                    done.append(f"{relative} {cell_id}: replaced")
                continue
            if cell.cell_type == "code":  # exact text: indentation matters
                if new not in cell.source and old in cell.source:
                    cell.source = cell.source.replace(old, new, 1)
                    done.append(f"{relative} {cell_id}: edited")
                elif new not in cell.source:
                    raise SystemExit(f"{relative} {cell_id}: the code to replace changed:\n{old}")
                continue
            if _pattern(new).search(cell.source):
                continue
            found = _pattern(old).search(cell.source)
            if found is None:
                raise SystemExit(f"{relative} {cell_id}: the text to replace changed:\n{old}")
            cell.source = cell.source[: found.start()] + new + cell.source[found.end() :]
            cell.source = _rewrap(cell.source, found.start())
            done.append(f"{relative} {cell_id}: edited")
        nbformat.write(notebook, path)
    return done


if __name__ == "__main__":
    for line in apply(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT):
        print(line)
