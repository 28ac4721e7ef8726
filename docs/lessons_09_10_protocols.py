"""Lesson cells of issue 30 for chapters 09 and 10, applied by cell id (helper "protocols").

Lessons 09 and 10 belong to helper "seam" until "Merge seam" is on main, so the protocols branch
does not edit them; this script does, after both branches are merged:

    .venv/bin/python docs/lessons_09_10_protocols.py
    .venv/bin/toolsys execute notebooks/09_composition.ipynb
    .venv/bin/toolsys execute notebooks/10_mcp.ipynb
    .venv/bin/python -m pytest notebooks/09_composition.ipynb notebooks/10_mcp.ipynb

What it changes:

- 09, after section 7's TOOL_NOT_LOADED cell: both providers' native deferred shapes
  (`toolsys.export.deferred_export`) next to toolsys's own, what differs and which to use; a
  line in the summary.
- 10, section 2: which revision is spoken (2026-07-28, the `mcp` 2.3 SDK's newest) and what
  changed since 2025-06-18 that a tool author sees; section 3: `hints_for` leaves
  `openWorldHint` out for READ tools (the package's `annotations_for` does since issue 30, so
  without this the cell comparing the two prints False), and a subsection on approval asked
  through the client (multi round-trip `input_required`); a row of the closing table.

Every edit is found by cell id and checked against the text it expects; a cell that is missing
or was rewritten stops the script with its id (edit that cell by hand). Running it twice changes
nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def md(cell_id: str, text: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(text.strip("\n"))
    cell.id = cell_id
    return cell


def code(cell_id: str, text: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(text.strip("\n"))
    cell.id = cell_id
    return cell


def index_of(nb: nbformat.NotebookNode, cell_id: str, path: Path) -> int:
    for i, cell in enumerate(nb.cells):
        if cell.id == cell_id:
            return i
    raise SystemExit(f"{path.name}: no cell {cell_id!r}; the lesson changed, edit it by hand.")


def insert_after(nb, anchor: str, cells: list, path: Path) -> None:
    if any(cell.id == cells[0].id for cell in nb.cells):
        return  # applied before
    at = index_of(nb, anchor, path) + 1
    nb.cells[at:at] = cells


def replace_in(nb, cell_id: str, old: str, new: str, path: Path) -> None:
    cell = nb.cells[index_of(nb, cell_id, path)]
    if new in cell.source:
        return  # applied before
    if old not in cell.source:
        raise SystemExit(
            f"{path.name}: cell {cell_id!r} no longer contains {old[:60]!r}...; edit it by hand."
        )
    cell.source = cell.source.replace(old, new)
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None


# --- lesson 09 ---------------------------------------------------------------------------------

NATIVE_09 = [
    md(
        "protocols-09-native",
        """
### The providers' own deferred shapes

Both large providers now run a tool search themselves. On Anthropic's Messages API you add a
search tool, `tool_search_tool_bm25_20251119` (natural-language queries) or
`tool_search_tool_regex_20251119` (Python regular expressions), and mark every other tool
`defer_loading: true`; the search runs on Anthropic's side and answers with `tool_reference`
blocks, which load the tools it found
([tool search tool](https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool)).
On OpenAI's Responses API you add `{"type": "tool_search"}` and mark functions
`defer_loading: true`; OpenAI supports it on gpt-5.4 and later models only, and recommends
grouping deferred functions in namespaces
([tool search guide](https://developers.openai.com/api/docs/guides/tools-tool-search);
`ToolSearchToolParam` in openai-python 3.57). `toolsys.export.deferred_export` writes both from
the same registry. Here they are next to ours, for the three core tools and one deferred one:
""",
    ),
    code(
        "protocols-09-native-code",
        """
from toolsys.export import deferred_export

few = [catalog.get(name) for name in [*CORE, "shipping_track_package"]]


def outline(definition) -> dict:
    \"\"\"What tells the shapes apart: type, name and defer_loading (the schemas left out).\"\"\"
    name = definition.get("name") or definition.get("function", {}).get("name")
    shown = {"type": definition.get("type"), "name": name}
    shown["defer_loading"] = definition.get("defer_loading")
    return {key: value for key, value in shown.items() if value is not None}


for target in ("anthropic", "openai-responses"):
    print(f"{target} (the provider searches):")
    for definition in deferred_export(few, target, core=CORE):
        print("  ", json.dumps(outline(definition)))
small = Registry()
for tool in few:
    small.add(tool)
print("toolsys, on any wire (the registry searches):")
for definition in small.deferred(core=CORE).export("openai"):
    print("  ", json.dumps(outline(definition)))
""",
    ),
    md(
        "protocols-09-native-which",
        """
Three things differ. **Where the search runs**: with the native shapes, at the provider, over
the definitions you sent; with ours, in the registry, so it works on every wire (chat
completions, the Responses API, Messages, MCP), with the offline model, and with your own
ranking. **What a request carries**: a native deferred tool still travels in full in every
request, and the provider keeps it out of the model's context until a search finds it; ours
sends only the core tools, `search_tools` and what a search found, so with a large catalog
each request stays small (measured above). **Which models**: the native search needs a model
its provider trained for it; ours needs only function calling.

Use the provider's shape when your provider and model support it: its models were trained on
that surface. Keep ours for any other provider and model, and for tests, where the offline
model runs it. Both come from one registry, so switching is one line.
""",
    ),
]

SUMMARY_09 = (
    "  model search: the first turn stays small whatever the catalog's size.\n",
    "  model search: the first turn stays small whatever the catalog's size.\n"
    "- Anthropic's Messages API and OpenAI's Responses API have their own deferred shapes\n"
    "  (`defer_loading: true` and a search tool the provider runs): `deferred_export` writes them\n"
    "  from the same registry.\n",
)


def lesson_09(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    insert_after(nb, "e46d365a", NATIVE_09, path)
    replace_in(nb, "e0cc86e8", *SUMMARY_09, path)
    nbformat.write(nb, path)


# --- lesson 10 ---------------------------------------------------------------------------------

# What changed 2025-06-18 -> 2026-07-28, and what it means for a tool (a table in lesson 10).
CHANGES = [
    ("change", "what it means for your tools"),
    ("---", "---"),
    (
        "stateless: no `initialize` handshake and no session; every request carries its protocol "
        "version and the client's capabilities in `_meta`, and `server/discover` says what a "
        "server speaks",
        'a tool cannot keep state "per session": return a handle and take it back as an argument',
    ),
    (
        "a server that needs more from the client (a question for its user, say) answers the "
        "request with an `input_required` result, and the client retries the request with the "
        "answers (multi round-trip requests, SEP-2322)",
        "a call can ask the user in the middle, with no request from server to client: toolsys "
        "asks for approval this way (section 3)",
    ),
    (
        "invalid arguments are a tool error (`isError: true`), not a protocol error (SEP-1303, "
        "2025-11-25)",
        "what section 1 fixed by hand is now the rule; only an unknown tool or a malformed "
        "request is a protocol error",
    ),
    (
        "`inputSchema` and `outputSchema` may use any JSON Schema 2020-12 keyword; "
        "`structuredContent` may be any JSON value",
        "a registry's generated schema goes out as it is",
    ),
    (
        "`tools/list` in a deterministic order, with caching hints (`ttlMs`, `cacheScope`); "
        "roots, sampling and logging deprecated",
        "a host may cache your listing: keep the registration order stable",
    ),
]

REVISION_10 = [
    md(
        "protocols-10-revision",
        """
### Which revision of the protocol

Section 1's hand-built server answered `initialize` with `"protocolVersion": "2025-06-18"`. The
`mcp` 2.3 SDK still speaks that revision (and the others that open with a handshake) to older
peers, but its newest is **2026-07-28**, and a client and `to_server` settle on it:
""",
    ),
    code(
        "protocols-10-revision-code",
        """
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION

async with Client(server) as client:
    print("spoken here:            ", client.protocol_version)
print("the SDK's newest:       ", LATEST_PROTOCOL_VERSION)
print("older, with a handshake:", ", ".join(HANDSHAKE_PROTOCOL_VERSIONS))
""",
    ),
    md(
        "protocols-10-changes",
        """
What changed between 2025-06-18 and 2026-07-28 that a tool author sees (the specification's
`changelog.mdx` of revisions 2025-11-25 and 2026-07-28 in the repository
`modelcontextprotocol/modelcontextprotocol`):

{CHANGES}

An older host still opens with section 1's handshake, and `to_server` answers it.
""".replace("{CHANGES}", "\n".join(f"| {what} | {meaning} |" for what, meaning in CHANGES)),
    ),
]

HINTS_MD_10 = (
    "category into hints we can vouch for. Here is the table, by hand:",
    "category into hints we can vouch for, and leave out a hint we cannot. `openWorldHint` is\n"
    'one: it says whether a tool reaches "an open world of external entities", and the\n'
    "specification's own examples are a web search (open) and a memory tool (closed). Both are\n"
    "READ tools, so a category cannot tell them apart: a READ tool is served without\n"
    "`openWorldHint` (a client then reads the default, true, the cautious one), unless it says\n"
    'which it is with the tag `"open-world"` or `"closed-world"`. Here is the table, by hand:',
)

HINTS_CODE_10_OLD = """        return {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }"""
HINTS_CODE_10_NEW = """\
        # openWorldHint left out: a public API is an open world, the tool's own table is not
        return {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True}"""

TABLE_10_OLD = """print(
    f"{'category':10}",
    *(f"{h:16}" for h in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")),
)"""
TABLE_10_NEW = """HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
print(f"{'category':18}", *(f"{h:16}" for h in HINTS))"""

ROW_10_OLD = """        print(f"{label:18}", *(f"{str(v).lower():16}" for v in hints.values()))"""
ROW_10_NEW = """\
        print(f"{label:18}", *(f"{str(hints.get(h, '-')).lower():16}" for h in HINTS))"""

PACKAGE_10 = (
    "package's version, and it agrees with ours for every tool of the shop:",
    "package's version (it also reads the two tags, which the shop's tools do not carry), and it\n"
    "agrees with ours for every tool of the shop:",
)

APPROVAL_10 = [
    md(
        "protocols-10-approval",
        """
### Approval across the boundary: asked through the client

The gate above refuses and lets the host's model read why. With chapter 08's `Policy` behind
`to_server`, a call that needs a person's yes can do better on 2026-07-28: the server answers
`tools/call` with an `input_required` result holding one question (a form: `approve` yes or no,
an optional `reason`); a client that declared the `elicitation` capability asks its user and
retries the call with the answer. The yes is bound to the arguments that were shown, the
`requestState` that carries the question is sealed by the SDK, and anything but an explicit yes
runs nothing. A client that cannot ask (or an older revision) gets what it always got: the
APPROVAL_REQUIRED envelope as an `isError` result (`toolsys/mcp/_approval.py`).
""",
    ),
    code(
        "protocols-10-approval-code",
        """
from mcp_types import ElicitResult

from toolsys.governance import Policy

guarded = Registry(layers=[Policy()])


@guarded.tool(category=Category.WRITE)
def refund(order_id: str, amount: float) -> str:
    \"\"\"Refund an order.

    Args:
        order_id: The order id, e.g. "ORD-42".
        amount: Euros to refund.
    \"\"\"
    return f"refunded {amount:g} EUR on {order_id}"


async def person(context, question) -> ElicitResult:
    \"\"\"The client's user, who reads the question and says yes.\"\"\"
    print_wrapped("the client asks:", question.message)
    return ElicitResult(action="accept", content={"approve": True})


arguments = {"order_id": "ORD-42", "amount": 20}
async with Client(to_server(guarded, name="guarded"), elicitation_callback=person) as client:
    asked = await client.call_tool("refund", arguments)
async with Client(to_server(guarded, name="guarded")) as client:  # declares no elicitation
    cannot_ask = await client.call_tool("refund", arguments)
print_wrapped(f"isError={asked.is_error}:", asked.content[0].text)
print_wrapped(f"isError={cannot_ask.is_error}:", cannot_ask.meta["toolsys/error"]["code"])
""",
    ),
]

TABLE_ROW_10 = (
    "| the trust rule and the spec's defaults | `toolsys.mcp.category_for` |\n",
    "| the trust rule and the spec's defaults | `toolsys.mcp.category_for` |\n"
    "| `approval_gate`: a person's yes | `Policy` behind `to_server`: asked through the client "
    "(`input_required`, 2026-07-28), or APPROVAL_REQUIRED (`toolsys/mcp/_approval.py`) |\n",
)


def lesson_10(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    insert_after(nb, "b0ef90fd", REVISION_10, path)
    replace_in(nb, "b6a1815a", *HINTS_MD_10, path)
    replace_in(nb, "3b985948", HINTS_CODE_10_OLD, HINTS_CODE_10_NEW, path)
    replace_in(nb, "3b985948", TABLE_10_OLD, TABLE_10_NEW, path)
    replace_in(nb, "3b985948", ROW_10_OLD, ROW_10_NEW, path)
    replace_in(nb, "a5403472", *PACKAGE_10, path)
    insert_after(nb, "446b73ab", APPROVAL_10, path)
    replace_in(nb, "671308bb", *TABLE_ROW_10, path)
    nbformat.write(nb, path)


def apply(root: Path = ROOT) -> None:
    """Edit notebooks/09 and 10 under `root` in place (again: no change)."""
    lesson_09(root / "notebooks" / "09_composition.ipynb")
    lesson_10(root / "notebooks" / "10_mcp.ipynb")


if __name__ == "__main__":
    apply(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT)
    print("lessons 09 and 10 edited; re-execute them with `toolsys execute` and run nbval.")
