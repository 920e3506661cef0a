"""Two ways to hand a captured user message to an agent, shared by the checker's tests (unit) and
the Runner's (behaviour): into the instruction (the pattern the checker warns about) and into a
C block (data the model reads, not instructions)."""

from __future__ import annotations

from adk_fluent import Agent, C, S


def capture_into_instruction():
    return S.capture("q") >> Agent("researcher").instruct("Research: {q}")


def capture_into_a_block():
    return S.capture("q") >> Agent("researcher").instruct(
        "Research the question in the <state> block."
    ).context(C.user_only() + C.from_state("q"))
