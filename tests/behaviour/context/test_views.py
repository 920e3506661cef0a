"""Every C transform in a three-agent pipeline over a three-turn session, through the real Runner:
exactly which user messages, agent replies, tool calls and non-text parts reached the model."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_fluent import Agent, C
from adk_fluent.testing import call, mock_backend

IMAGE = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG fake"))


def lookup(q: str) -> dict:
    """Look something up."""
    return {"found": q}


def describe(content: types.Content) -> tuple[str, tuple[str, ...]]:
    """(role, parts) with parts as text, image:<mime>, call:<name> or response:<name>."""
    parts = []
    for part in content.parts or []:
        if part.function_call:
            parts.append(f"call:{part.function_call.name}")
        elif part.function_response:
            parts.append(f"response:{part.function_response.name}")
        elif part.inline_data:
            parts.append(f"image:{part.inline_data.mime_type}")
        elif part.text is not None:
            parts.append(part.text)
    return content.role, tuple(parts)


def view(request) -> list[tuple[str, tuple[str, ...]]]:
    return [describe(c) for c in request.contents]


def pipeline(spec):
    return (
        Agent("researcher").instruct("Research.").tool(lookup).outputs("facts")
        >> Agent("drafter").instruct("Draft.").outputs("draft")
        >> Agent("writer").instruct("Write the answer.").context(spec)
    )


SCRIPTS = {
    "researcher": [
        call("lookup", q="q1"),
        "facts1",
        call("lookup", q="q2"),
        "facts2",
        call("lookup", q="q3"),
        "facts3",
    ],
    "drafter": ["draft1", "draft2", "draft3"],
    "writer": ["final1", "final2", "final3"],
}


async def three_turns(spec):
    backend = mock_backend(SCRIPTS)
    expr = pipeline(spec)
    await expr.run(["Q1", IMAGE], backend=backend, session_id="t")
    await expr.run("Q2", backend=backend, session_id="t")
    await expr.run("Q3", backend=backend, session_id="t")
    backend.assert_consumed()
    return backend.requests["writer"]


TURN3_FULL = [
    ("user", ("Q1", "image:image/png")),
    ("user", ('[researcher] called tool `lookup` with {"q": "q1"}',)),
    ("user", ('[researcher] tool `lookup` returned {"found": "q1"}',)),
    ("user", ("[researcher] said: facts1",)),
    ("user", ("[drafter] said: draft1",)),
    ("model", ("final1",)),
    ("user", ("Q2",)),
    ("user", ('[researcher] called tool `lookup` with {"q": "q2"}',)),
    ("user", ('[researcher] tool `lookup` returned {"found": "q2"}',)),
    ("user", ("[researcher] said: facts2",)),
    ("user", ("[drafter] said: draft2",)),
    ("model", ("final2",)),
    ("user", ("Q3",)),
    ("user", ('[researcher] called tool `lookup` with {"q": "q3"}',)),
    ("user", ('[researcher] tool `lookup` returned {"found": "q3"}',)),
    ("user", ("[researcher] said: facts3",)),
    ("user", ("[drafter] said: draft3",)),
]


async def test_user_only():
    requests = await three_turns(C.user_only())
    assert view(requests[0]) == [("user", ("Q1", "image:image/png"))]
    assert view(requests[2]) == [
        ("user", ("Q1", "image:image/png")),
        ("model", ("final1",)),
        ("user", ("Q2",)),
        ("model", ("final2",)),
        ("user", ("Q3",)),
    ]


async def test_none_keeps_only_this_turns_user_message():
    requests = await three_turns(C.none())
    assert view(requests[0]) == [("user", ("Q1", "image:image/png"))]
    assert view(requests[2]) == [
        ("user", ("Q3",))
    ]  # not even the drafter's reply (ADK's 'none' would leak it)


async def test_from_agents():
    requests = await three_turns(C.from_agents("drafter"))
    assert view(requests[1]) == [
        ("user", ("Q1", "image:image/png")),
        ("user", ("[drafter] said: draft1",)),
        ("model", ("final1",)),
        ("user", ("Q2",)),
        ("user", ("[drafter] said: draft2",)),
    ]


async def test_exclude_agents():
    requests = await three_turns(C.exclude_agents("researcher"))
    assert view(requests[2]) == [c for c in TURN3_FULL if "[researcher]" not in c[1][0]]


async def test_last_n_turns():
    requests = await three_turns(C.last_n_turns(1))
    assert view(requests[2]) == TURN3_FULL[12:]
    requests = await three_turns(C.last_n_turns(2))
    assert view(requests[2]) == TURN3_FULL[6:]


async def test_full_view_keeps_tool_pairs_and_images_when_built_by_us():
    # exclude_agents of an absent agent = everything, assembled by adk-fluent on every ADK version
    requests = await three_turns(C.exclude_agents("nobody"))
    assert view(requests[2]) == TURN3_FULL


async def test_from_state_alone():
    requests = await three_turns(C.from_state("draft", "facts"))
    assert view(requests[2]) == [
        ("user", ('<state>\ndraft = "draft3"\nfacts = "facts3"\n</state>',)),
        ("user", ("Q3",)),
    ]


async def test_template_with_history():
    requests = await three_turns(
        C.user_only() + C.template("Draft so far: {draft}. Notes: {notes?}")
    )
    assert view(requests[2]) == [
        ("user", ("Q1", "image:image/png")),
        ("model", ("final1",)),
        ("user", ("Q2",)),
        ("model", ("final2",)),
        ("user", ("<context>\nDraft so far: draft3. Notes: \n</context>",)),
        ("user", ("Q3",)),
    ]


async def test_default_is_adks_own_assembly():
    requests = await three_turns(C.default())
    texts = [p for _, parts in view(requests[2]) for p in parts]
    assert "Q1" in texts and "Q3" in texts and "image:image/png" in texts
    assert any("draft3" in t for t in texts)


async def test_system_instruction_is_stable_across_turns():
    requests = await three_turns(C.user_only() + C.from_state("draft"))
    instructions = {r.config.system_instruction for r in requests}
    assert len(instructions) == 1
    assert "draft" not in next(iter(instructions))


async def test_own_tool_calls_survive_a_filtered_view():
    backend = mock_backend({"researcher": [call("lookup", q="x"), "done"]})
    agent = Agent("researcher").tool(lookup).context(C.none())
    await agent.run("find x", backend=backend)
    second = backend.requests["researcher"][1]
    assert view(second) == [
        ("user", ("find x",)),
        ("model", ("call:lookup",)),
        ("user", ("response:lookup",)),
    ]


@pytest.mark.parametrize("spec", [C.user_only(), C.from_agents("a"), C.none() + C.from_state("k")])
async def test_parallel_branches_do_not_see_each_other(spec):
    from adk_fluent import S

    backend = mock_backend({"a": "from a", "b": "from b", "c": "from c"})
    tree = (
        S.set(k=1)
        >> (Agent("a") | Agent("b").context(spec))
        >> Agent("c").context(C.from_agents("a", "b"))
    )
    await tree.run("go", backend=backend)
    seen_by_b = [p for _, parts in view(backend.requests["b"][0]) for p in parts]
    assert not any("from a" in p for p in seen_by_b)
    seen_by_c = [p for _, parts in view(backend.requests["c"][0]) for p in parts]
    assert "[a] said: from a" in seen_by_c and "[b] said: from b" in seen_by_c
