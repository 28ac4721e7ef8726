"""Approval as a resumable interruption: pause, resume, deny, edit, replay, restart."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap

import pytest

from tests.test_loop_hostile import RawEndpoint, call, completion
from toolsys import Registry
from toolsys.governance import Hooks, Policy
from toolsys.governance.approval import sign_paused
from toolsys.loop import aresume_agent, resume_agent, run_agent
from toolsys.models import ScriptedModel, calls, text
from toolsys.spec import Category
from toolsys.transcript import Transcript

SUPPORT = {"user": "ana", "roles": {"support"}}


def _registry(*layers) -> tuple[Registry, list[tuple[str, dict]]]:
    ran: list[tuple[str, dict]] = []
    registry = Registry(layers=[*layers] or [Policy()])

    @registry.tool(category=Category.WRITE, roles={"support"})
    def refund(order_id: str, amount: float) -> dict:
        """Refund an order."""
        ran.append(("refund", {"order_id": order_id, "amount": amount}))
        return {"refunded": amount}

    @registry.tool(category=Category.WRITE)
    def delete_account(user: str) -> str:
        """Delete an account."""
        ran.append(("delete_account", {"user": user}))
        return "deleted"

    @registry.tool
    def lookup(order_id: str) -> dict:
        """Look an order up."""
        ran.append(("lookup", {"order_id": order_id}))
        return {"order_id": order_id, "total": 40}

    return registry, ran


def _model(*turns):
    model = ScriptedModel(list(turns))
    return model, model.client()


def _tool_messages(transcript: Transcript) -> dict[str, dict]:
    return {
        m["tool_call_id"]: json.loads(m["content"])
        for m in transcript.messages
        if m["role"] == "tool"
    }


def test_a_write_call_pauses_the_run_with_the_pending_call_and_runs_nothing():
    registry, ran = _registry()
    model, client = _model(
        calls(("lookup", {"order_id": "A1"}), ("refund", {"order_id": "A1", "amount": 20})),
        text("Refunded."),
    )
    t = run_agent(client, registry, "refund A1", context=SUPPORT)
    assert t.status == "awaiting_approval"
    assert ran == [("lookup", {"order_id": "A1"})]
    [pending] = t.pending
    assert (pending.tool, pending.category, pending.arguments) == (
        "refund",
        "write",
        {"order_id": "A1", "amount": 20.0},
    )
    assert pending.id == "call_0002" and "approve" in pending.reason
    assert len(model.requests) == 1  # no tool message went back yet
    assert not [m for m in t.messages if m["role"] == "tool"]
    assert "Pending" in str(t) and "awaiting_approval" in str(t)


def test_approving_resumes_the_run_and_each_call_id_gets_exactly_one_tool_message():
    registry, ran = _registry()
    _, client = _model(
        calls(("lookup", {"order_id": "A1"}), ("refund", {"order_id": "A1", "amount": 20})),
        text("Refunded."),
    )
    t = run_agent(client, registry, "refund A1", context=SUPPORT)
    t = resume_agent(client, registry, t, approve=["call_0002"], context=SUPPORT, approved_by="li")
    assert t.status == "completed" and t.answer == "Refunded."
    assert [name for name, _ in ran] == ["lookup", "refund"]  # lookup ran once, not again
    answers = _tool_messages(t)
    assert list(answers) == ["call_0001", "call_0002"]
    assert answers["call_0002"] == {"ok": True, "value": {"refunded": 20.0}}
    result = [e for e in t.results if e.id == "call_0002"][-1].result
    assert result.meta["decision"] == "approved" and result.meta["approved_by"] == "li"
    assert "Approval  refund approved by li" in str(t)


def test_a_denied_call_runs_zero_times_and_the_model_reads_the_reason():
    registry, ran = _registry()
    model, client = _model(
        calls(("refund", {"order_id": "A1", "amount": 500})), text("Sorry, declined.")
    )
    t = run_agent(client, registry, "refund A1", context=SUPPORT)
    t = resume_agent(
        client, registry, t, deny={"call_0001": "Over 100 needs a manager."}, context=SUPPORT
    )
    assert t.status == "completed" and ran == []
    answer = _tool_messages(t)["call_0001"]
    assert answer["error"]["code"] == "APPROVAL_DENIED"
    assert "Over 100 needs a manager." in answer["error"]["message"]
    sent = model.requests[1]["messages"][-1]
    assert "Over 100 needs a manager." in sent["content"]
    assert t.results[-1].result.meta["decision"] == "denied_by_human"


def test_an_approval_for_a_call_id_that_is_not_pending_is_refused():
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 5})), text("ok"))
    t = run_agent(client, registry, "x", context=SUPPORT)
    with pytest.raises(ValueError, match=r"not pending.*matched by call id"):
        resume_agent(client, registry, t, approve=["call_9999"], context=SUPPORT)
    with pytest.raises(ValueError, match="never by position"):
        resume_agent(client, registry, t, approve=[True], context=SUPPORT)
    with pytest.raises(ValueError, match="never by position"):
        resume_agent(client, registry, t, approve="call_0001", context=SUPPORT)
    assert ran == [] and t.status == "awaiting_approval"


def test_approvals_are_matched_by_id_not_position_in_a_batch_of_two():
    registry, ran = _registry()
    _, client = _model(
        calls(
            ("refund", {"order_id": "A1", "amount": 5}),
            ("delete_account", {"user": "bob"}),
        ),
        text("done"),
    )
    t = run_agent(client, registry, "x", context=SUPPORT)
    assert [p.tool for p in t.pending] == ["refund", "delete_account"]
    t = resume_agent(client, registry, t, approve=["call_0002"], context=SUPPORT)
    # only the second call was approved: the first stays pending, nothing else ran
    assert ran == [("delete_account", {"user": "bob"})]
    assert t.status == "awaiting_approval" and [p.id for p in t.pending] == ["call_0001"]
    t = resume_agent(client, registry, t, deny={"call_0001": "no"}, context=SUPPORT)
    assert t.status == "completed" and list(_tool_messages(t)) == ["call_0001", "call_0002"]


def test_a_replayed_approval_does_not_cover_changed_arguments():
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("ok"))
    t = run_agent(client, registry, "x", context=SUPPORT)
    t.paused["calls"][0]["function"]["arguments"] = '{"order_id": "A1", "amount": 2000}'
    with pytest.raises(ValueError, match="does not match its signature"):
        resume_agent(client, registry, t, approve=["call_0001"], context=SUPPORT)
    # even re-signed (a leaked key), the approval covers only the arguments shown
    t.paused = sign_paused(t.paused)
    t = resume_agent(client, registry, t, approve=["call_0001"], context=SUPPORT)
    assert ran == [] and t.status == "awaiting_approval"
    assert t.pending[0].arguments["amount"] == 2000.0


def test_an_edit_is_revalidated_and_redecided_against_the_tool_it_now_targets():
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("ok"))
    t0 = run_agent(client, registry, "x", context=SUPPORT)
    # approving while switching the call to another WRITE tool does not run it: it needs its
    # own approval, shown with the new arguments
    t = resume_agent(
        client,
        registry,
        t0,
        approve=["call_0001"],
        edit={"call_0001": {"name": "delete_account", "arguments": {"user": "bob"}}},
        context=SUPPORT,
    )
    assert ran == [] and t.status == "awaiting_approval"
    assert (t.pending[0].tool, t.pending[0].arguments) == ("delete_account", {"user": "bob"})
    assistant = [m for m in t.messages if m.get("tool_calls")][-1]
    assert assistant["tool_calls"][0]["function"]["name"] == "delete_account"


def test_an_edit_with_invalid_arguments_comes_back_as_data():
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("ok"))
    t = run_agent(client, registry, "x", context=SUPPORT)
    t = resume_agent(
        client, registry, t, edit={"call_0001": {"arguments": {"amount": "lots"}}}, context=SUPPORT
    )
    assert ran == [] and t.status == "completed"
    assert _tool_messages(t)["call_0001"]["error"]["code"] == "INVALID_ARGUMENTS"


def test_an_edit_to_a_tool_the_caller_may_not_use_is_permission_denied():
    registry, ran = _registry()
    _, client = _model(calls(("delete_account", {"user": "bob"})), text("ok"))
    t = run_agent(client, registry, "x", context={"roles": {"viewer"}})
    t = resume_agent(
        client,
        registry,
        t,
        edit={"call_0001": {"name": "refund", "arguments": {"order_id": "A", "amount": 1}}},
        context={"roles": {"viewer"}},
    )
    assert ran == [] and _tool_messages(t)["call_0001"]["error"]["code"] == "PERMISSION_DENIED"


def test_a_model_that_reuses_an_approved_call_id_later_needs_approval_again():
    registry, ran = _registry()
    endpoint = RawEndpoint(
        completion(tool_calls=[call("same", "refund", '{"order_id": "A", "amount": 1}')]),
        completion(tool_calls=[call("same", "refund", '{"order_id": "A", "amount": 999}')]),
        completion("done"),
    )
    client = endpoint.client()
    t = run_agent(client, registry, "x", context=SUPPORT, model="m")
    t = resume_agent(client, registry, t, approve=["same"], context=SUPPORT)
    assert ran == [("refund", {"order_id": "A", "amount": 1.0})]
    assert t.status == "awaiting_approval" and t.pending[0].arguments["amount"] == 999.0


def test_a_duplicate_call_id_in_one_turn_is_pending_once():
    registry, ran = _registry()
    endpoint = RawEndpoint(
        completion(
            tool_calls=[
                call("dup", "refund", '{"order_id": "A", "amount": 1}'),
                call("dup", "refund", '{"order_id": "A", "amount": 999}'),
            ]
        ),
        completion("done"),
    )
    client = endpoint.client()
    t = run_agent(client, registry, "x", context=SUPPORT, model="m")
    assert [(p.id, p.arguments["amount"]) for p in t.pending] == [("dup", 1.0)]
    t = resume_agent(client, registry, t, approve=["dup"], context=SUPPORT)
    assert ran == [("refund", {"order_id": "A", "amount": 1.0})] and t.status == "completed"
    assert not endpoint.rejected


def test_a_programmatic_approver_sync_or_async_decides_inline():
    registry, ran = _registry()
    seen = []

    async def approver(pending):
        seen.append(pending.tool)
        return True if pending.arguments["amount"] < 100 else "Too much."

    _, client = _model(
        calls(
            ("refund", {"order_id": "A", "amount": 5}),
            ("refund", {"order_id": "B", "amount": 500}),
        ),
        text("ok"),
    )
    t = run_agent(client, registry, "x", context=SUPPORT, approver=approver)
    assert t.status == "completed" and seen == ["refund", "refund"]
    assert ran == [("refund", {"order_id": "A", "amount": 5.0})]
    assert _tool_messages(t)["call_0002"]["error"]["code"] == "APPROVAL_DENIED"
    _, client = _model(calls(("delete_account", {"user": "bob"})), text("ok"))
    t = run_agent(client, registry, "x", approver=lambda pending: 1 / 0)
    assert _tool_messages(t)["call_0001"]["error"]["code"] == "APPROVAL_DENIED"
    assert ("delete_account", {"user": "bob"}) not in ran


def test_resuming_a_run_that_is_not_paused_is_refused():
    registry, _ = _registry()
    _, client = _model(text("hi"))
    t = run_agent(client, registry, "x")
    with pytest.raises(ValueError, match="not awaiting approval"):
        resume_agent(client, registry, t, approve=["call_0001"])


def test_the_paused_run_round_trips_through_json():
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("ok"))
    t = run_agent(client, registry, "x", context=SUPPORT)
    loaded = Transcript.from_json(t.to_json())
    assert loaded.status == "awaiting_approval" and loaded.pending == t.pending
    loaded = resume_agent(client, registry, loaded, approve=["call_0001"], context=SUPPORT)
    assert loaded.status == "completed" and len(ran) == 1


def test_aresume_agent_works_from_async_code():
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("ok"))
    t = run_agent(client, registry, "x", context=SUPPORT)
    t = asyncio.run(aresume_agent(client, registry, t, approve=["call_0001"], context=SUPPORT))
    assert t.status == "completed" and len(ran) == 1


def test_a_paused_run_resumes_in_a_new_process(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLSYS_PAUSE_KEY", "a key both processes hold, from a secret store")
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("Done."))
    t = run_agent(client, registry, "x", context=SUPPORT)
    saved = tmp_path / "paused.json"
    saved.write_text(t.to_json())
    script = textwrap.dedent(
        f"""
        import json, sys
        from tests.test_governance_approval import _registry, SUPPORT
        from toolsys.loop import resume_agent
        from toolsys.models import ScriptedModel, text
        from toolsys.transcript import Transcript
        registry, ran = _registry()
        t = Transcript.from_json(open({str(saved)!r}).read())
        t = resume_agent(ScriptedModel([text("Done.")]).client(), registry, t,
                         approve=[t.pending[0].id], context=SUPPORT)
        print(json.dumps({{"status": t.status, "ran": ran, "answer": t.answer}}))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report == {
        "status": "completed",
        "ran": [["refund", {"order_id": "A1", "amount": 20.0}]],
        "answer": "Done.",
    }
    assert ran == []  # nothing ran in this process


def test_a_hook_rewrite_before_the_policy_is_what_gets_approved():
    hooks = Hooks(
        before=[lambda c: {**c.values, "amount": min(c.values["amount"], 50)}], tools=["refund"]
    )
    registry, ran = _registry(hooks, Policy())
    _, client = _model(calls(("refund", {"order_id": "A", "amount": 500})), text("ok"))
    t = run_agent(client, registry, "x", context=SUPPORT)
    assert t.pending[0].arguments["amount"] == 50.0
    t = resume_agent(client, registry, t, approve=["call_0001"], context=SUPPORT)
    assert ran == [("refund", {"order_id": "A", "amount": 50.0})]


def test_the_cli_approver_modes_approve_decline_or_ask():
    from click.testing import CliRunner

    from toolsys.cli.chat import _approver, _governed

    pending = run_agent(
        _model(calls(("refund", {"order_id": "A", "amount": 5})), text("ok"))[1],
        _registry()[0],
        "x",
        context=SUPPORT,
    ).pending[0]
    assert _approver("all")(pending) is True
    assert "--approve none" in _approver("none")(pending)
    with CliRunner().isolation(input="y\n"):
        assert _approver("ask")(pending) is True
    with CliRunner().isolation(input="n\nToo much.\n"):
        assert _approver("ask")(pending) == "Too much."
    registry, _ = _registry()
    governed = _governed(registry)
    assert governed.layers == ["policy"] and governed.names() == registry.names()


def test_the_model_is_offered_only_the_tools_the_caller_may_use():
    registry, _ = _registry()
    model, client = _model(text("hi"))
    run_agent(client, registry, "x", context={"roles": {"viewer"}})
    offered = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert offered == ["delete_account", "lookup"]
    model, client = _model(text("hi"))
    run_agent(client, registry, "x", context=SUPPORT)
    assert [t["function"]["name"] for t in model.requests[0]["tools"]] == [
        "refund",
        "delete_account",
        "lookup",
    ]


def test_a_streamed_run_pauses_for_approval_too():
    from toolsys.streaming import stream_agent
    from toolsys.transcript import RunFinished

    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("ok"))
    events = list(stream_agent(client, registry, "x", context=SUPPORT))
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert finished[-1].status == "awaiting_approval" and ran == []


def test_an_approval_is_recorded_for_the_audit_in_the_result_meta():
    registry, _ = _registry()
    _, client = _model(
        calls(("refund", {"order_id": "A", "amount": 1}), ("lookup", {"order_id": "A"})),
        text("ok"),
    )
    t = run_agent(client, registry, "x", context=SUPPORT)
    t = resume_agent(client, registry, t, approve=["call_0001"], context=SUPPORT)
    decisions = [(e.id, e.result.meta.get("decision")) for e in t.results]
    assert decisions == [
        ("call_0001", "needs_approval"),
        ("call_0002", "allow"),
        ("call_0001", "approved"),
    ]
    assert t.results[-1].result.meta["approved_by"] is None


def test_an_approval_is_bound_to_the_arguments_shown_not_to_a_hash_in_the_file():
    from toolsys.governance import arguments_hash

    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": 20})), text("ok"))
    t = run_agent(client, registry, "x", context=SUPPORT)
    data = json.loads(t.to_json())
    # a forged file: other arguments to run, a matching hash, the old arguments on show
    data["paused"]["calls"][0]["function"]["arguments"] = '{"order_id": "A1", "amount": 2000}'
    forged = {"order_id": "A1", "amount": 2000.0}
    data["paused"]["pending"][0]["hash"] = arguments_hash("refund", forged)
    with pytest.raises(ValueError, match="no longer match the hash"):
        resume_agent(client, registry, Transcript.from_dict(data), approve=["call_0001"])
    data["paused"]["pending"][0]["hash"] = arguments_hash(
        "refund", {"order_id": "A1", "amount": 20.0}
    )
    data["paused"] = sign_paused(data["paused"])  # a leaked key: the signature holds ...
    t = Transcript.from_dict(data)  # ... and the approval is still bound to what is shown
    assert t.pending[0].arguments["amount"] == 20.0
    t = resume_agent(client, registry, t, approve=["call_0001"], context=SUPPORT)
    assert ran == [] and t.status == "awaiting_approval"
    assert t.pending[0].arguments["amount"] == 2000.0


def test_a_model_calling_a_hidden_tool_by_name_gets_permission_denied_as_data():
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A", "amount": 1})), text("Cannot."))
    t = run_agent(client, registry, "x", context={"roles": {"viewer"}})
    assert t.status == "completed" and ran == []
    assert _tool_messages(t)["call_0001"]["error"]["code"] == "PERMISSION_DENIED"


def test_a_resumed_call_still_running_at_the_deadline_is_cancelled_and_answered():
    registry, _ = _registry()

    @registry.tool(category=Category.WRITE)
    async def slow_write(x: int) -> int:
        """Write slowly."""
        await asyncio.sleep(30)
        return x

    _, client = _model(calls(("slow_write", {"x": 1})), text("ok"))
    t = run_agent(client, registry, "x")
    t = resume_agent(client, registry, t, approve=["call_0001"], deadline=0.2)
    assert t.status == "deadline"
    assert _tool_messages(t)["call_0001"]["error"]["code"] == "CANCELLED"


def test_the_audit_log_records_each_decision_of_a_paused_and_resumed_run(tmp_path):
    from toolsys.governance import AuditLog

    path = tmp_path / "audit.jsonl"
    registry, ran = _registry(AuditLog(str(path)), Policy())
    _, client = _model(
        calls(
            ("refund", {"order_id": "A", "amount": 1}), ("refund", {"order_id": "B", "amount": 2})
        ),
        text("done"),
    )
    t = run_agent(client, registry, "x", context=SUPPORT)
    t = resume_agent(
        client,
        registry,
        t,
        approve=["call_0001"],
        deny={"call_0002": "no"},
        approved_by="li",
        context=SUPPORT,
    )
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["call_id"], r["decision"], r["approved_by"]) for r in records] == [
        ("call_0001", "needs_approval", None),
        ("call_0002", "needs_approval", None),
        ("call_0001", "approved", "li"),
        ("call_0002", "denied_by_human", None),
    ]
    assert t.status == "completed" and len(ran) == 1


# --- a saved paused run is tamper-evident ------------------------------------------------------


def _paused_refund(amount: float = 12.5):
    registry, ran = _registry()
    _, client = _model(calls(("refund", {"order_id": "A1", "amount": amount})), text("ok"))
    return registry, ran, client, run_agent(client, registry, "x", context=SUPPORT)


def test_a_saved_run_edited_wherever_its_arguments_appear_is_refused():
    registry, ran, client, t = _paused_refund(12.5)
    saved = t.to_json()
    assert saved.count("12.5") >= 2 and "signature" in saved
    edited = Transcript.from_json(saved.replace("12.5", "9999.5"))
    assert edited.pending[0].arguments["amount"] == 9999.5
    with pytest.raises(ValueError, match=r"call_0001.*no longer match the hash"):
        resume_agent(client, registry, edited, approve=["call_0001"], context=SUPPORT)
    assert ran == []
    loaded = resume_agent(client, registry, Transcript.from_json(saved), approve=["call_0001"],
                          context=SUPPORT)  # fmt: skip
    assert loaded.status == "completed" and ran == [("refund", {"order_id": "A1", "amount": 12.5})]


def test_recomputing_the_hash_does_not_help_without_the_key():
    from toolsys.governance import arguments_hash

    registry, ran, client, t = _paused_refund(12.5)
    data = json.loads(t.to_json().replace("12.5", "9999.5"))
    pending = data["paused"]["pending"][0]
    pending["hash"] = arguments_hash(pending["tool"], pending["arguments"])
    with pytest.raises(ValueError, match="does not match its signature"):
        resume_agent(client, registry, Transcript.from_dict(data), approve=["call_0001"],
                     context=SUPPORT)  # fmt: skip
    del data["paused"]["signature"]
    with pytest.raises(ValueError, match="carries no signature"):
        resume_agent(client, registry, Transcript.from_dict(data), approve=["call_0001"])
    assert ran == []


def test_the_key_is_the_applications_and_never_in_the_saved_run():
    from toolsys.governance import set_pause_key

    key = "the application's own pause key, 32+"
    set_pause_key(key)
    try:
        registry, ran, client, t = _paused_refund(20)
        saved = t.to_json()
        assert key not in saved
        set_pause_key("another application's key, 32 chars")
        with pytest.raises(ValueError, match="signed with another key"):
            resume_agent(client, registry, Transcript.from_json(saved), approve=["call_0001"])
        set_pause_key(key)
        done = resume_agent(client, registry, Transcript.from_json(saved), approve=["call_0001"],
                            context=SUPPORT)  # fmt: skip
        assert done.status == "completed" and len(ran) == 1
        with pytest.raises(ValueError, match="at least 16 bytes"):
            set_pause_key("short")
    finally:
        set_pause_key(None)
